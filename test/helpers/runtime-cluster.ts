/**
 * Several runtime instances of one oracle for the cluster tests
 * (docs/scaling.md): each instance is createOracleApp of dist/ in a child
 * process, all on one database (a SQLite file or a PostgreSQL URL) and one real redis-server, the model
 * being the scripted model server. With `flood: true` the instance also
 * carries the `flood` plugin: its tool `flood_then_block` emits `count` run
 * events at once and then keeps the event loop busy (a synchronous
 * busy-wait) for `blockMs` — what a loaded instance does to its Redis
 * client's queue.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateSigner, type Signer } from '../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import type { Socket } from 'socket.io-client';
import { handshake, readSse } from './runtime-harness.ts';

const root = join(import.meta.dirname, '..', '..');

/** One runtime instance in a child process; it prints its URL once it serves. */
const INSTANCE = `
const { createOracleApp } = await import(process.env.T_ENTRY);
const { z } = await import('zod');
const plugins = [];
if (process.env.T_FLOOD === '1') {
  plugins.push({
    name: 'flood',
    version: '1.0.0',
    manifest: { title: 'Flood', summary: 'emits many run events, then blocks the event loop', whenToUse: ['tests'], visibility: 'always', stability: 'experimental', category: 'test', defaultState: 'on', dependsOn: [] },
    tools: (ctx) => ({
      flood_then_block: {
        description: 'emits count message events at once, then busy-waits blockMs',
        inputSchema: z.object({ count: z.number().int(), blockMs: z.number().int(), prefix: z.string() }),
        execute: (input, turn) => {
          for (let i = 0; i < input.count; i++) ctx.host.emitRunEvent(turn.sessionId, { event: 'message', data: { content: input.prefix + i + ' ' } });
          const until = Date.now() + input.blockMs;
          while (Date.now() < until) {} // a synchronous busy-wait: the loop reads no socket meanwhile
          return { emitted: input.count };
        },
      },
    }),
  });
}
const app = createOracleApp({
  config: { name: 'Cluster Oracle', model: 'scripted-model', oracleDid: process.env.T_DID },
  // T_DB: a SQLite file, or a PostgreSQL URL
  ...(process.env.T_DB.startsWith('postgres') ? { databaseUrl: process.env.T_DB } : { dbPath: process.env.T_DB }),
  signingMnemonic: process.env.T_MNEMONIC,
  stallTimeoutMs: 60000,
  toolTimeoutMs: Number(process.env.T_TOOL_TIMEOUT_MS),
  plugins,
  logger: { info: () => {}, error: (l) => process.stderr.write(l + '\\n') },
});
const url = await app.listen(0, '127.0.0.1');
while (!app.runtime.signingKeyLoaded || app.runtime.status().pending.length > 0) await new Promise((r) => setTimeout(r, 5));
process.stdout.write(JSON.stringify({ url }) + '\\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
`;

export interface ClusterContext {
  /** The shared database: a SQLite file's path or a PostgreSQL database's URL. */
  database: string;
  mnemonic: string;
  oracleDid: string;
  redisUrl: string;
  modelBaseURL: string;
}

export interface Instance {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts an instance; `toolTimeoutMs` defaults to 60 s, `env` adds to (or overrides) the instance's environment. */
export async function spawnInstance(
  ctx: ClusterContext,
  o: { flood?: boolean; toolTimeoutMs?: number; env?: Record<string, string> } = {},
): Promise<Instance> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', INSTANCE], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      T_ENTRY: pathToFileURL(join(root, 'dist', 'index.js')).href,
      T_DID: ctx.oracleDid,
      T_DB: ctx.database,
      T_TOOL_TIMEOUT_MS: String(o.toolTimeoutMs ?? 60_000),
      T_MNEMONIC: ctx.mnemonic,
      T_FLOOD: o.flood ? '1' : '0',
      LLM_BASE_URL: ctx.modelBaseURL,
      LLM_PROVIDER_API_KEY: 'sk-test',
      ORACLE_REDIS_URL: ctx.redisUrl,
      ORACLE_INSTANCE_LEASE_MS: '10000',
      ...(o.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { child, ...(await instanceUrl(child)) };
}

/**
 * The URL an instance process prints (its stdout line {"url": …}, among the
 * oracle's log lines), and its standard error so far; rejects with that error
 * if it exits first. (bench/scale-runtime.ts spawns its instances this way too.)
 */
export async function instanceUrl(child: ChildProcess): Promise<{ url: string; stderr: () => string }> {
  let err = '';
  child.stderr!.on('data', (d) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const line = out
        .split('\n')
        .slice(0, -1)
        .find((l) => l.startsWith('{"url":'));
      if (!line) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume(); // the log goes on: drain it
      resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stdout!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`instance exited ${code}: ${err}`)));
  });
  return { url, stderr: () => err };
}

interface User {
  did: string;
  req(
    base: string,
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  invocation(): Promise<string>;
  /** POST /messages/:id with stream:true on base; reads until stopAfter (then leaves) or the end. */
  stream(
    base: string,
    sessionId: string,
    message: string,
    o?: { extra?: Record<string, unknown>; stopAfter?: (e: AnyEvent) => boolean },
  ): Promise<{ events: AnyEvent[]; headers: Headers }>;
  sse(base: string, path: string): Promise<AnyEvent[]>;
  socket(base: string, sessionId: string): Promise<Socket>;
  session(base: string): Promise<string>;
}

/** A user with their own key, signing a fresh invocation for each request (or `token` instead). */
export async function newUser(oracleDid: string): Promise<User> {
  const signer: Signer = await generateSigner();
  const u: User = {
    did: signer.did(),
    invocation: () => mintInvocation({ issuer: signer, audience: oracleDid }),
    async req(base, method, path, body, token) {
      const headers: Record<string, string> = {
        authorization: `Bearer ${token ?? (await u.invocation())}`,
        'x-auth-type': 'ucan',
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async stream(base, sessionId, message, o = {}) {
      const ctl = new AbortController();
      const res = await fetch(`${base}/messages/${sessionId}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await u.invocation()}`,
          'x-auth-type': 'ucan',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ message, stream: true, ...(o.extra ?? {}) }),
        signal: ctl.signal,
      });
      if (res.status !== 200) throw new Error(`stream ${res.status}: ${await res.text()}`);
      const { events } = await readSse(res, o.stopAfter, ctl);
      return { events, headers: res.headers };
    },
    async sse(base, path) {
      const res = await fetch(base + path, {
        headers: { authorization: `Bearer ${await u.invocation()}`, 'x-auth-type': 'ucan' },
      });
      if (res.status !== 200) throw new Error(`sse ${res.status}: ${await res.text()}`);
      return (await readSse(res)).events;
    },
    async socket(base, sessionId) {
      const hs = await handshake(base, sessionId, { invocation: await u.invocation() });
      if (!hs.ok) throw new Error(`socket handshake refused: ${hs.code}`);
      return hs.socket;
    },
    async session(base) {
      const r = await u.req(base, 'POST', '/sessions', {});
      if (r.status !== 201) throw new Error(`session ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.sessionId as string;
    },
  };
  return u;
}

/** Polls until fn returns a value (conditions, never durations, are what the tests wait for). */
export async function until<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  what: string,
  tries = 600,
): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
