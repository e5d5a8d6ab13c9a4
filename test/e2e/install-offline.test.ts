/**
 * Each package installs as a user installs it, with every install script run (npm's --dangerously-allow-all-scripts:
 * what npm 10, the one of Node 22, does by default) on a machine whose only network is the npm registry: the CLI
 * globally into an empty prefix, @oraclekit/client into an empty project, and an oracle's project as `oraclekit new`
 * writes it (templates/oracle's package.json: oraclekit and @oraclekit/calls). An install step that reached outside the
 * registry fails here. The global CLI carries nothing of live calls, runs `sample calc`, and its runtime boots without
 * calls with one line naming the package to add; the oracle's project boots with calls, and its agent's voice-activity
 * model loads from the installed package.
 * Takes about 11 minutes on a 2-core machine shared by eight developers (load average 20) with npm's cache warm (the
 * user's own cache, as a user's install has it): most of it the installs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAll } from '../helpers/packs.ts';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'ok-install-'));
const prefix = join(work, 'global');
let packs: Record<string, string>;

/** npm with every dependency's install script allowed, as npm 10 runs them. */
async function npmInstall(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return run('npm', ['install', '--dangerously-allow-all-scripts', '--no-audit', '--no-fund', ...args], {
    cwd,
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 400_000,
  });
}

/** Every package folder under a node_modules tree (scoped ones as @scope/name). */
function packagesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (nm: string) => {
    let entries: string[];
    try {
      entries = readdirSync(nm);
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.startsWith('.')) continue;
      const names = e.startsWith('@') ? readdirSync(join(nm, e)).map((n) => `${e}/${n}`) : [e];
      for (const n of names) {
        out.push(n);
        walk(join(nm, n, 'node_modules'));
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return out;
}

/** A script that boots an oracle from `entry` on loopback, asks for a call, and prints the boot lines and the answer. */
const BOOT = `
  const { createOracleApp } = await import(process.env.T_ENTRY);
  const lines = [];
  const app = createOracleApp({ config: { name: 'Installed' }, dbPath: ':memory:', logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) } });
  const url = await app.listen(0, '127.0.0.1');
  const r = await fetch(url + '/calls', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  console.log(JSON.stringify({ lines, status: app.plugins.status(), call: { status: r.status, body: await r.json() } }));
  await app.close();
`;

async function boot(entry: string, cwd: string, env: Record<string, string> = {}) {
  const r = await run(process.execPath, ['--input-type=module', '-e', BOOT], {
    cwd,
    env: { ...process.env, T_ENTRY: entry, LOG_LEVEL: 'silent', ...env },
    timeout: 120_000,
  });
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    lines: string[];
    status: { loaded: string[]; excluded: { plugin: string; reason: string }[] };
    call: { status: number; body: { code: string; message: string } };
  };
}

beforeAll(() => {
  packs = packAll(join(work, 'packs'));
}, 300_000);

// three installed trees: removing them takes a while on a busy machine
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

describe('the CLI installed globally (npm install -g) into an empty prefix, every install script run', () => {
  beforeAll(async () => {
    await npmInstall(['-g', '--prefix', prefix, packs.oraclekit!], work);
  }, 420_000);

  it('carries nothing of live calls (LiveKit, WebRTC, the speech model)', () => {
    const installed = packagesUnder(join(prefix, 'lib', 'node_modules', 'oraclekit'));
    expect(installed.length).toBeGreaterThan(50);
    expect(installed.filter((p) => /livekit|werift|onnx|silero|@oraclekit\/calls/.test(p))).toEqual([]);
  });

  it('carries none of the optional packages (the MCP SDK, swagger-ui), and at most 250 packages in all', () => {
    const installed = packagesUnder(join(prefix, 'lib', 'node_modules', 'oraclekit'));
    const optional = ['@modelcontextprotocol/sdk', 'express', 'hono', '@fastify/swagger-ui', 'drand-client', 'execa'];
    expect(installed.filter((p) => optional.includes(p))).toEqual([]);
    expect(installed.length + 1).toBeLessThanOrEqual(250); // + oraclekit itself
  });

  it('runs `sample calc` offline', async () => {
    const r = await run(
      join(prefix, 'bin', 'oraclekit'),
      ['sample', 'calc', '--population', '8000', '--mean', '3.1', '--sd', '1.7', '--dropout', '0.1', '--json'],
      { cwd: work, timeout: 60_000 },
    );
    expect(JSON.parse(r.stdout)).toMatchObject({
      parameters: { population: 8000, calculatedSize: 437, adjustedSize: 486 },
    });
  });

  it('boots an oracle without calls or the MCP SDK: one line each names the package to add, and /calls answers naming it', async () => {
    const entry = join(prefix, 'lib', 'node_modules', 'oraclekit', 'dist', 'index.js');
    // memory configured: the MCP SDK it needs is an optional package the CLI does not install
    const b = await boot(pathToFileURL(entry).href, work, { MEMORY_MCP_URL: 'http://127.0.0.1:9/mcp' });
    expect(b.lines.filter((l) => l.includes('@oraclekit/calls'))).toEqual([
      '[boot] calls: not installed; for live voice and video calls, add its package: npm install @oraclekit/calls',
    ]);
    expect(b.lines.filter((l) => l.includes('@modelcontextprotocol/sdk'))).toEqual([
      "[boot] memory: not installed; for memory's MCP tools and routes (MEMORY_MCP_URL), add its package: " +
        'npm install @modelcontextprotocol/sdk',
    ]);
    expect(b.status.excluded).toContainEqual({ plugin: 'memory', reason: 'not installed' });
    expect(b.status.loaded).not.toContain('calls');
    expect(b.status.excluded).toContainEqual({ plugin: 'calls', reason: 'not installed' });
    expect(b.call.status).toBe(501);
    expect(b.call.body.code).toBe('plugin_not_installed');
    expect(b.call.body.message).toContain('npm install @oraclekit/calls');
  });
});

describe('the packages installed into an empty project, every install script run', () => {
  it('@oraclekit/client', async () => {
    const dir = join(work, 'web');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'web', version: '1.0.0', private: true }));
    await npmInstall([packs['@oraclekit/client']!, 'zod@^4'], dir);
    expect(packagesUnder(dir)).toContain('@oraclekit/client');
  }, 420_000);
});

/** A script that loads the calls agent's voice-activity model from `T_SILERO` and decides a second of silence. */
const LISTEN = `
  const { loadSilero } = await import(process.env.T_SILERO);
  const model = await loadSilero();
  const windows = [];
  for (let i = 0; i < 31; i++) windows.push(model.speech(new Float32Array(512)));
  model.release();
  console.log(JSON.stringify({ speech: windows.filter(Boolean).length, windows: windows.length }));
`;

describe("an oracle's project (the template's package.json, with @oraclekit/calls), every install script run", () => {
  const dir = join(work, 'oracle');
  const calls = join(dir, 'node_modules', '@oraclekit', 'calls');

  beforeAll(async () => {
    mkdirSync(dir);
    const template = JSON.parse(readFileSync(join(import.meta.dirname, '../../templates/oracle/package.json'), 'utf8'));
    const dependencies = {
      ...template.dependencies,
      oraclekit: `file:${packs.oraclekit!}`,
      '@oraclekit/calls': `file:${packs['@oraclekit/calls']!}`,
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...template, name: 'installed-oracle', dependencies }));
    await npmInstall([], dir);
  }, 420_000);

  it("carries the speech model's runtime for this platform alone, and its weights", () => {
    const installed = packagesUnder(dir);
    const os = platform() === 'win32' ? 'win' : platform();
    expect(installed.filter((p) => /onnx/.test(p)).sort()).toEqual([`sherpa-onnx-${os}-${arch()}`, 'sherpa-onnx-node']);
    expect(readdirSync(join(calls, 'models'))).toContain('silero_vad_16k_op15.onnx');
  });

  it("boots an oracle with calls, and the agent's voice-activity model loads and hears no speech in silence", async () => {
    const b = await boot(pathToFileURL(join(dir, 'node_modules', 'oraclekit', 'dist', 'index.js')).href, dir);
    expect(b.status.loaded).toContain('calls');
    expect(b.lines.filter((l) => l.includes('@oraclekit/calls'))).toEqual([]);
    // the calls resource is there: a call needs a signed-in user
    expect(b.call.status).toBe(401);
    const r = await run(process.execPath, ['--input-type=module', '-e', LISTEN], {
      cwd: dir,
      env: { ...process.env, T_SILERO: pathToFileURL(join(calls, 'dist', 'silero.js')).href },
      timeout: 60_000,
    });
    expect(JSON.parse(r.stdout.trim())).toEqual({ speech: 0, windows: 31 });
    // sherpa-onnx says on stderr what it could not load or read
    expect(r.stderr).toBe('');
  });
});
