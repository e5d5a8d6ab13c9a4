/**
 * An oracle developer on Node 22: the installed CLI's `oraclekit new` (the dependency on oraclekit its tarball,
 * copied into the project's vendor/), then the project's own `npm test` (tsc and node:test), `npm start` (src/main.ts
 * run as it is, its types stripped by Node) and one turn of `npm run chat` against a scripted model on loopback —
 * each on the `node` of PATH, this pass's Node 22.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/loopback.ts';
import { NPM_QUIET, scaffoldEnv } from '../helpers/scaffold-env.ts';
import { say, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';

const { cli, tarballs } = inject('node22');
const home = mkdtempSync(join(tmpdir(), 'ok-node22-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-node22-work-'));
// NODE_ENV as a user's shell has it, not vitest's "test"
const env = scaffoldEnv(home, { CI: '', ORACLEKIT_AUTOSTART: '', NODE_ENV: '', ...NPM_QUIET });
let project: { dir: string; apiUrl: string; did: string; warnings: string[] };
let model: ScriptedModelServer;
let server: ChildProcess | undefined;

function npm(args: string[]): { code: number; out: string } {
  try {
    const out = execFileSync('npm', args, {
      cwd: project.dir,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 150_000,
    });
    return { code: 0, out };
  } catch (e) {
    const x = e as { status?: number; stdout?: string; stderr?: string };
    return { code: x.status ?? -1, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  model = await startScriptedModelServer();
  const r = await runCli(
    [
      'new',
      'node22-oracle',
      '--yes',
      '--no-git',
      '--url',
      `http://localhost:${await freePort()}`,
      '--oraclekit-version',
      `file:${tarballs.oraclekit}`,
      '--json',
    ],
    { bin: cli, env, cwd: work, timeoutMs: 330_000 },
  );
  expect(r.code, r.stderr).toBe(0);
  project = JSON.parse(r.stdout);
}, 340_000);

afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const closed = new Promise((ok) => server!.on('close', ok));
    process.kill(-server.pid, 'SIGTERM');
    await closed;
  }
  await model?.close();
  await runCli(['daemon', 'stop', '--grace', '1'], { bin: cli, env });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true }); // an installed project: a guard, not a latency bound
}, 180_000);

describe(`a scaffold on Node ${process.versions.node}`, () => {
  it('new installs it, with no warning about the Node on PATH (this one)', () => {
    expect(execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toBe(
      process.versions.node,
    );
    expect(project.warnings).toEqual([]);
    expect(JSON.parse(readFileSync(join(project.dir, 'package.json'), 'utf8')).engines.node).toBe(
      JSON.parse(readFileSync(join(project.dir, 'node_modules/oraclekit/package.json'), 'utf8')).engines.node,
    );
  });

  it('npm test: typechecks and passes its own tests', () => {
    const r = npm(['test']);
    const out = stripVTControlCharacters(r.out);
    expect(r.code, out).toBe(0);
    expect(out).toMatch(/ℹ pass [1-9]\d*\nℹ fail 0\n/);
  }, 150_000);

  it('npm start serves the oracle, and npm run chat has a turn with it', async () => {
    server = spawn('npm', ['start'], {
      cwd: project.dir,
      env: { ...process.env, ...env, LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let log = '';
    await new Promise<void>((ok, ko) => {
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes('oracle listening on')) ok();
      };
      server!.stdout!.on('data', onData);
      server!.stderr!.on('data', onData);
      server!.on('close', (c) => ko(new Error(`npm start exited ${c}: ${log}`)));
    });
    // node:sqlite is experimental on Node 22: its warning is not one of the boot lines
    expect(log).not.toContain('ExperimentalWarning');
    const health = await (await fetch(`${project.apiUrl}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', name: 'node22-oracle', oracleDid: project.did });
    model.enqueue(say('Hello from Node 22.'));
    // spawned, not run synchronously: the scripted model answers from this process's event loop
    const chat = spawn('npm', ['run', '--silent', 'chat'], {
      cwd: project.dir,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    chat.stdout.on('data', (d: Buffer) => (out += d.toString()));
    chat.stderr.on('data', (d: Buffer) => (out += d.toString()));
    chat.stdin.end('hi\n');
    const [code] = (await once(chat, 'close')) as [number];
    expect(out).toContain('Hello from Node 22.\n');
    expect(code, out).toBe(0);
  }, 90_000);
});
