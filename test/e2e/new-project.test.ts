/**
 * The scaffolded project works: `oraclekit new` (with its npm install) in a
 * temporary folder, the dependency on oraclekit pointing at an `npm pack`
 * tarball of this checkout; then the project's own `npm test` passes and
 * `npm start` serves the oracle at the URL registered for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { join } from 'node:path';
import { ROOT, runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/loopback.ts';

const home = mkdtempSync(join(tmpdir(), 'ok-proj-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-proj-work-'));
// keep HOME: npm reuses its cache
const env: Record<string, string> = { ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0', CI: '', ORACLEKIT_AUTOSTART: '', ORACLEKIT_API_KEY: '', ORACLEKIT_REGISTRY: '', ORACLEKIT_MNEMONIC: '', MATRIX_BASE_URL: '', npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
let tarball: string;
let port: number;
let project: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let server: ChildProcess | undefined;

function npm(args: string[], cwd: string): { code: number; out: string } {
  try {
    const out = execFileSync('npm', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 150_000 });
    return { code: 0, out };
  } catch (e) {
    const x = e as { status?: number; stdout?: string; stderr?: string };
    return { code: x.status ?? -1, out: `${x.stdout ?? ''}${x.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  const packed = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } }).trim().split('\n').at(-1)!;
  tarball = join(work, packed);
  port = await freePort();
  const r = await runCli(['new', 'my-oracle', '--yes', '--no-git', '--url', `http://localhost:${port}`, '--oraclekit-version', `file:${tarball}`, '--json'], { env, cwd: work, timeoutMs: 170_000 });
  expect(r.code, r.stderr).toBe(0);
  project = JSON.parse(r.stdout);
}, 180_000);

afterAll(async () => {
  if (server?.pid && server.exitCode === null) {
    const closed = new Promise((ok) => server!.on('close', ok));
    process.kill(-server.pid, 'SIGTERM');
    await closed;
  }
  await runCli(['daemon', 'stop', '--grace', '1'], { env });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('a freshly scaffolded project', () => {
  it('was installed by `new`', () => {
    expect(project).toMatchObject({ installed: true, port, apiUrl: `http://localhost:${port}` });
    expect(project.warnings).toEqual([]);
    expect(JSON.parse(readFileSync(join(project.dir, 'package.json'), 'utf8')).dependencies.oraclekit).toBe(`file:${tarball}`);
  });

  it('passes its own tests (the oracle with the scripted model of oraclekit/testing)', () => {
    const r = npm(['test'], project.dir);
    expect(r.code, r.out).toBe(0);
    expect(stripVTControlCharacters(r.out)).toMatch(/Tests\s+5 passed/);
  }, 120_000);

  it('`npm start` serves the oracle at the URL registered for it', async () => {
    // its own process group, so the oracle under npm stops with it
    server = spawn('npm', ['start'], { cwd: project.dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
    expect(log).toContain('runtime v');
    expect(log).toContain('[boot] loaded: local-time');
    const health = await (await fetch(`${project.apiUrl}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', name: 'my-oracle', oracleDid: project.did });
    const ready = await fetch(`${project.apiUrl}/ready`);
    expect(ready.status).toBe(200);
  }, 60_000);
});
