/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON replies of the API under test are checked field by field */
/**
 * Test harness of the registry: an in-process server on 127.0.0.1 (random
 * port) over a real SQLite file in a temp dir (or a real PostgreSQL database,
 * given its URL), and a spawned daemon process
 * (dist/daemon/main.js) for the end-to-end, fuzz and crash tests. Nothing
 * touches the real home directory: every test gets its own ORACLEKIT_HOME.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../../src/daemon/server.ts';
import { Registry } from '../../../src/daemon/registry/index.ts';
import { openStorage } from '../../../src/storage/open.ts';
import { REGISTRY_MIGRATIONS } from '../../../src/daemon/registry/migrations.ts';
import { parseConfig, type DeploymentConfig } from '../../../src/daemon/config.ts';

const ROOT = join(import.meta.dirname, '../../..');
const HASH = 'sha256:' + 'ab'.repeat(32);
export const PKG = { documents: [{ url: 'https://docs.example.org/entity.pdf', hash: HASH, name: 'entity' }] };

export function tempHome(config?: Record<string, unknown>): {
  home: string;
  env: Record<string, string>;
  cleanup: () => void;
} {
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-test-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  if (config) writeFileSync(join(home, 'config/daemon.json'), JSON.stringify(config));
  const env = {
    ORACLEKIT_HOME: home,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'xdg-config'),
    XDG_STATE_HOME: join(home, 'xdg-state'),
    XDG_DATA_HOME: join(home, 'xdg-data'),
    ORACLEKIT_DAEMON_PORT: '0',
    CI: '',
    ORACLEKIT_AUTOSTART: '',
    ORACLEKIT_API_KEY: '',
    ORACLEKIT_REGISTRY: '',
  };
  return { home, env, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

export interface Api {
  url: string;
  call: (
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
  ) => Promise<{ status: number; body: any; headers: Headers }>;
}

function api(url: string): Api {
  return {
    url,
    async call(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined;
      if (opts.raw !== undefined) body = opts.raw;
      else if (opts.body !== undefined) body = JSON.stringify(opts.body);
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
      const r = await fetch(url + path, { method, headers, body });
      const text = await r.text();
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: r.status, body: parsed, headers: r.headers };
    },
  };
}

export interface InProcess extends Api {
  app: FastifyInstance;
  registry: Registry;
  home: string;
  close: () => Promise<void>;
  key: (did: string, ...roles: string[]) => Promise<string>;
}

/**
 * An in-process server (real HTTP on 127.0.0.1, real SQLite file — at `dbPath` when given — or the PostgreSQL
 * database at `databaseUrl`).
 */
export async function startInProcess(
  config: Record<string, unknown> = {},
  o: { databaseUrl?: string | undefined; dbPath?: string } = {},
): Promise<InProcess> {
  const t = tempHome();
  const cfg: DeploymentConfig = parseConfig({ rateLimit: { max: 1_000_000, timeWindowMs: 60_000 }, ...config });
  const db = await openStorage({
    location: o.databaseUrl ?? o.dbPath ?? join(t.home, 'data/registry.db'),
    migrations: { registry: REGISTRY_MIGRATIONS },
    max: 4,
  });
  const registry = new Registry(db, cfg);
  const app = await buildServer({ registry, config: cfg, version: 'test', token: 'admin-token' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    ...api(url),
    app,
    registry,
    home: t.home,
    key: async (did, ...roles) => (await registry.keys.create(did, roles)).key,
    close: async () => {
      await app.close();
      await db.close();
      t.cleanup();
    },
  };
}

export interface Spawned extends Api {
  child: ChildProcess;
  pid: number;
  token: string;
  env: Record<string, string>;
  home: string;
}

/** Spawns dist/daemon/main.js (the real process entry) and waits for its discovery file. */
export async function spawnDaemon(env: Record<string, string>, home: string): Promise<Spawned> {
  const discovery = join(home, 'state/daemon.json');
  rmSync(discovery, { force: true });
  const child = spawn(process.execPath, [join(ROOT, 'dist/daemon/main.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  for (let i = 0; i < 400; i++) {
    if (existsSync(discovery)) {
      const d = JSON.parse(readFileSync(discovery, 'utf8'));
      if (d.pid === child.pid) return { ...api(d.url), child, pid: child.pid!, token: d.token, env, home };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`daemon did not start: ${stderr}`);
}

export async function adminKey(
  d: { call: Api['call']; token: string },
  did: string,
  ...roles: string[]
): Promise<string> {
  const r = await d.call('POST', '/admin/v1/keys', { key: d.token, body: { did, roles } });
  if (r.status !== 201) throw new Error(`key: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.key;
}

export function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r()),
  );
}
