/**
 * The setup scripts as a user's shell sources them: scripts/node-env.sh puts a
 * Node >= 24.15 first on PATH and sets where native addons find its headers
 * in a way npm 11 accepts (no "Unknown env config" warning on every npm call).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

describe('scripts/node-env.sh', () => {
  it('gives a Node >= 24.15 and npm calls print no unknown-config warning', () => {
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (/^npm_config_nodedir$/i.test(k)) delete env[k];
    const r = spawnSync('bash', ['-c', 'source scripts/node-env.sh && node --version && npm --version && env'], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const [nodeVersion] = r.stdout.split('\n');
    const [major, minor] = nodeVersion!.replace(/^v/, '').split('.').map(Number);
    expect(major! > 24 || (major === 24 && minor! >= 15)).toBe(true);
    expect(r.stderr).not.toMatch(/Unknown env config/);
    expect(r.stdout).not.toMatch(/^npm_config_nodedir=/m);
  });
});
