/**
 * The registry under hostile input, on real
 * servers over real sockets: an in-process daemon app (buildServer over a
 * real SQLite file, 127.0.0.1) for the HTTP edges, whose time limits a test
 * can shorten, and the real daemon process for the database files' modes and
 * the refused start.
 *
 * - every refusal the router and Node's HTTP parser make (bad percent-encoding,
 *   a path parameter over 8,192 characters, headers over 16 KiB, a request
 *   timeout) carries {statusCode, code, message} and X-Request-Id, like 404 and 413;
 * - an unknown /v1 or /admin/v1 route without a key is 401, not 404;
 * - a domain without `type` is 400 missing_field;
 * - made-up Bearer keys count against the client's address (429), and open
 *   no rate-limit window each;
 * - a slow body is cut by the request timeout (408, connection closed), and an
 *   error answered before the body was read closes the connection;
 * - registry.db, -wal and -shm are 0600; a database directory writable by
 *   other users stops the daemon at start with a clear message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/daemon/server.ts';
import { Registry } from '../../src/daemon/registry/index.ts';
import { openStorage } from '../../src/storage/open.ts';
import type { Storage } from '../../src/storage/storage.ts';
import { REGISTRY_MIGRATIONS } from '../../src/daemon/registry/migrations.ts';
import { parseConfig } from '../../src/daemon/config.ts';
import { REGISTRY_ERRORS } from '../../src/lib/registry/errors.ts';
import { STORAGE_ERRORS } from '../../src/lib/errors.ts';
import type { RequestTimeouts } from '../../src/runtime/http/limits.ts';
import { runCli } from '../helpers/cli.ts';
import { adminKey, spawnDaemon, tempHome, waitExit } from '../unit/daemon/harness.ts';

interface Server {
  app: FastifyInstance;
  registry: Registry;
  db: Storage;
  port: number;
  url: string;
  close: () => Promise<void>;
}

const homes: (() => void)[] = [];

async function server(config: Record<string, unknown> = {}, timeouts?: Partial<RequestTimeouts>): Promise<Server> {
  const t = tempHome();
  homes.push(t.cleanup);
  const cfg = parseConfig({ rateLimit: { max: 1_000_000, timeWindowMs: 60_000 }, ...config });
  const db = await openStorage({
    location: join(t.home, 'data/registry.db'),
    migrations: { registry: REGISTRY_MIGRATIONS },
  });
  const registry = new Registry(db, cfg);
  const app = await buildServer({
    registry,
    config: cfg,
    version: 'test',
    token: 'admin-token',
    docs: false,
    timeouts,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return {
    app,
    registry,
    db,
    port,
    url: `http://127.0.0.1:${port}`,
    close: async () => (await app.close(), db.close()),
  };
}

afterAll(() => {
  for (const c of homes) c();
});

/** A raw HTTP exchange on its own socket: what was written, and everything the server sent until it closed. */
interface Raw {
  socket: Socket;
  /** Resolves with all the server sent, once the server has closed the connection. */
  closed: Promise<string>;
  /** Resolves with the first complete reply (status, headers, JSON body). */
  reply: Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }>;
}

function raw(port: number, head: string, body = ''): Raw {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  let onData: () => void = () => {};
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    data += d;
    onData();
  });
  socket.on('error', () => {});
  const closed = new Promise<string>((r) => socket.on('close', () => r(data)));
  const reply = new Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }>(
    (resolve) => {
      onData = () => {
        const end = data.indexOf('\r\n\r\n');
        if (end === -1) return;
        const lines = data.slice(0, end).split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines.slice(1))
          headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
        const len = Number(headers['content-length']);
        if (data.length - end - 4 < len) return;
        onData = () => {};
        resolve({
          status: Number(lines[0]!.split(' ')[1]),
          headers,
          body: JSON.parse(data.slice(end + 4, end + 4 + len)) as Record<string, unknown>,
        });
      };
    },
  );
  socket.write(head.replaceAll('\n', '\r\n') + '\r\n' + body);
  return { socket, closed, reply };
}

/** The one error body, with a request id. */
function expectErrorBody(
  r: { status: number; headers: { get(n: string): string | null } | Record<string, string>; body: unknown },
  status: number,
  code: string,
): void {
  const header = (n: string) =>
    'get' in r.headers && typeof r.headers.get === 'function'
      ? (r.headers.get as (n: string) => string | null)(n)
      : (r.headers as Record<string, string>)[n];
  expect({ status: r.status, code: (r.body as { code?: string }).code }).toEqual({ status, code });
  const b = r.body as Record<string, unknown>;
  expect(b.statusCode).toBe(status);
  expect(typeof b.message).toBe('string');
  expect(Object.keys(b).filter((k) => !['statusCode', 'code', 'message', 'field', 'details'].includes(k))).toEqual([]);
  expect(header('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  expect(code in REGISTRY_ERRORS, code).toBe(true);
}

async function call(
  url: string,
  method: string,
  path: string,
  opts: { key?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const r = await fetch(url + path, { method, headers, body: opts.body });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? (JSON.parse(text) as unknown) : undefined };
}

describe('one error body everywhere', () => {
  let s: Server;
  let key: string;
  beforeAll(async () => {
    s = await server();
    key = (await s.registry.keys.create('did:example:alice', ['admin'])).key;
  });
  afterAll(() => s.close());

  it('bad percent-encoding, a path parameter over 8,192 characters, headers over 16 KiB, 404 and 413', async () => {
    expectErrorBody(await call(s.url, 'GET', '/v1/domains/%E0%A4%A', { key }), 400, 'invalid_url');
    expectErrorBody(await call(s.url, 'GET', '/v1/domains/' + 'a'.repeat(8193), { key }), 414, 'url_too_long');
    expectErrorBody(await call(s.url, 'GET', '/v1/proposals/' + 'b'.repeat(9000), { key }), 414, 'url_too_long');
    expectErrorBody(await call(s.url, 'GET', '/v1/nothing', { key }), 404, 'not_found');
    expectErrorBody(await call(s.url, 'GET', '/nothing'), 404, 'not_found');
    expectErrorBody(
      await call(s.url, 'POST', '/v1/domains', {
        key,
        body: JSON.stringify({ type: 'Protocol', metadata: { x: 'a'.repeat(70_000) } }),
      }),
      413,
      'body_too_large',
    );
    // the request line alone over Node's 16 KiB: refused by the HTTP parser before there is a request
    const big = raw(s.port, `GET /v1/domains/${'c'.repeat(20_000)} HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\n`);
    expectErrorBody(await big.reply, 431, 'headers_too_large');
    await big.closed;
    const garbage = raw(s.port, 'NOT HTTP AT ALL\n');
    expectErrorBody(await garbage.reply, 400, 'bad_request');
    await garbage.closed;
  });

  it('an unknown /v1 or /admin/v1 route without a key is 401 before 404 (no unauthenticated route probing)', async () => {
    for (const [m, p] of [
      ['GET', '/v1/nothing'],
      ['POST', '/v1/domains/x/nothing'],
      ['DELETE', '/v1/domains'],
      ['GET', '/admin/v1/nothing'],
    ] as const) {
      const r = await call(s.url, m, p);
      expectErrorBody(r, 401, 'unauthenticated');
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="oraclekit"');
      expectErrorBody(await call(s.url, m, p, { key: 'ok_made_up' }), 401, 'unauthenticated');
      expectErrorBody(
        await call(s.url, m, p, { key: m === 'GET' && p.startsWith('/admin') ? 'admin-token' : key }),
        404,
        'not_found',
      );
    }
  });

  it('a domain without type is 400 missing_field naming it and what is valid', async () => {
    const r = await call(s.url, 'POST', '/v1/domains', { key, body: JSON.stringify({ metadata: { name: 'n' } }) });
    expectErrorBody(r, 400, 'missing_field');
    expect(r.body).toMatchObject({ field: 'type', details: { valid: expect.stringContaining('Protocol') } });
    // present but wrong stays invalid_body; PATCH needs no type
    expectErrorBody(
      await call(s.url, 'POST', '/v1/domains', { key, body: JSON.stringify({ type: 7 }) }),
      400,
      'invalid_body',
    );
  });
});

describe('slow and abusive clients', () => {
  it('made-up Bearer keys count against the client address: 429 with the documented body, no window per made-up key', async () => {
    const s = await server({ rateLimit: { max: 40, timeWindowMs: 600_000 } });
    try {
      const real = (await s.registry.keys.create('did:example:real', ['member'])).key;
      expect((await call(s.url, 'GET', '/v1/domains', { key: real })).status).toBe(200);
      const statuses: number[] = [];
      let limited: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 200; i++) {
        const r = await call(s.url, 'GET', '/v1/domains', { key: `ok_bogus${i}_${'x'.repeat(43)}` });
        statuses.push(r.status);
        if (r.status === 429) limited ??= r;
      }
      // the first 40 requests of the address are 401, then 429 (the real key counts in a window of its own)
      expect(statuses.filter((x) => x === 401).length).toBe(40);
      expect(statuses.filter((x) => x === 429).length).toBe(160);
      expectErrorBody(limited!, 429, 'rate_limited');
      expect(limited!.body).toMatchObject({ details: { per: 'address', max: 40 } });
      expect(limited!.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limited!.headers.get('x-ratelimit-limit')).toBe('40');
      expect(limited!.headers.get('x-ratelimit-remaining')).toBe('0');
      // the real key keeps its own window
      expect((await call(s.url, 'GET', '/v1/domains', { key: real })).status).toBe(200);
      // no key at all is the address too
      expectErrorBody(await call(s.url, 'GET', '/v1/domains'), 429, 'rate_limited');
    } finally {
      await s.close();
    }
  });

  it('a slow body is cut by the request timeout: 408 request_timeout, connection closed', async () => {
    const s = await server({}, { headersMs: 300, requestMs: 300, checkEveryMs: 50 });
    try {
      const key = (await s.registry.keys.create('did:example:slow', ['member'])).key;
      const c = raw(
        s.port,
        `POST /v1/domains HTTP/1.1\nHost: x\nAuthorization: Bearer ${key}\nContent-Type: application/json\nContent-Length: 1000\n`,
        '{"type":',
      );
      const r = await c.reply;
      expectErrorBody(r, 408, 'request_timeout');
      expect(r.headers.connection).toBe('close');
      await c.closed;
      // headers that never end: the same
      const h = raw(s.port, 'GET /v1/domains HTTP/1.1\nHost: x'.replace(/\n$/, ''));
      expectErrorBody(await h.reply, 408, 'request_timeout');
      await h.closed;
      // the server still answers
      expect((await call(s.url, 'GET', '/v1/domains', { key })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('an error answered before the body is read (401, 404, 429) closes the connection instead of draining the body', async () => {
    // the default time limits (30 s): the connection must close because of the error, not a timeout
    const s = await server({ rateLimit: { max: 2, timeWindowMs: 600_000 } });
    try {
      const key = (await s.registry.keys.create('did:example:d', ['member'])).key;
      const post = (auth: string, path = '/v1/domains') =>
        raw(
          s.port,
          `POST ${path} HTTP/1.1\nHost: x\nAuthorization: Bearer ${auth}\nContent-Type: application/json\nContent-Length: 60000\n`,
          '{"type":"Protocol","metadata":{"x":"',
        );
      const a = post('ok_made_up');
      const r = await a.reply;
      expectErrorBody(r, 401, 'unauthenticated');
      expect(r.headers.connection).toBe('close');
      expect(await a.closed).toContain('401');
      const b = post(key, '/v1/nothing');
      expectErrorBody(await b.reply, 404, 'not_found');
      await b.closed;
      // the address's second request (the real key counts in its own window), then its third: over the limit
      const a2 = post('ok_made_up_2');
      expectErrorBody(await a2.reply, 401, 'unauthenticated');
      await a2.closed;
      const c = post('ok_made_up_again');
      expectErrorBody(await c.reply, 429, 'rate_limited');
      await c.closed;
      // a complete request keeps its keep-alive connection
      const ok = await call(s.url, 'GET', '/v1/domains', { key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('connection')).not.toBe('close');
    } finally {
      await s.close();
    }
  });
});

describe('database files (the real daemon)', () => {
  it('registry.db, -wal and -shm are 0600, whatever the umask', async () => {
    const t = tempHome();
    homes.push(t.cleanup);
    const d = await spawnDaemon(t.env, t.home);
    try {
      const key = await adminKey(d, 'did:example:files', 'admin');
      expect((await d.call('POST', '/v1/domains', { key, body: { type: 'Protocol' } })).status).toBe(201);
      for (const f of ['registry.db', 'registry.db-wal', 'registry.db-shm'])
        expect((statSync(join(t.home, 'data', f)).mode & 0o777).toString(8), f).toBe('600');
      expect((statSync(join(t.home, 'data')).mode & 0o777).toString(8)).toBe('700');
    } finally {
      d.child.kill('SIGTERM');
      await waitExit(d.child);
    }
  });

  it('a database made 0644 before this rule is made 0600 at the next start', async () => {
    const t = tempHome();
    homes.push(t.cleanup);
    let d = await spawnDaemon(t.env, t.home);
    d.child.kill('SIGTERM');
    await waitExit(d.child);
    chmodSync(join(t.home, 'data/registry.db'), 0o644);
    d = await spawnDaemon(t.env, t.home);
    d.child.kill('SIGTERM');
    await waitExit(d.child);
    expect((statSync(join(t.home, 'data/registry.db')).mode & 0o777).toString(8)).toBe('600');
  });

  it('a database directory writable by other users: the daemon refuses to start, saying which and how to fix it', async () => {
    const t = tempHome();
    homes.push(t.cleanup);
    const shared = join(t.home, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const env = { ...t.env, ORACLEKIT_DB: join(shared, 'registry.db') };
    // the daemon process itself: exit 1, the message on its last line
    const direct = await spawnDaemon(env, t.home).then(
      () => ({ code: 0, message: '' }),
      (e: Error) => ({ code: 1, message: e.message }),
    );
    expect(direct.code).toBe(1);
    expect(direct.message).toContain(`the database directory ${shared} is writable by other users (mode 0777)`);
    expect(direct.message).toContain(`chmod o-w ${shared}`);
    // `oraclekit daemon start`: exit 9 with the daemon's message
    const r = await runCli(['daemon', 'start'], { env });
    expect(r.code).toBe(9);
    expect(r.stderr + r.stdout).toContain('is writable by other users');
    expect(statSync(shared).isDirectory()).toBe(true);
    expect(() => statSync(join(shared, 'registry.db'))).toThrow();
    // sticky (like /tmp) is refused too; without o+w it starts
    chmodSync(shared, 0o1777);
    expect((await runCli(['daemon', 'start'], { env })).code).toBe(9);
    chmodSync(shared, 0o755);
    const ok = await runCli(['daemon', 'start', '--json'], { env });
    expect(ok.code).toBe(0);
    expect((statSync(join(shared, 'registry.db')).mode & 0o777).toString(8)).toBe('600');
    await runCli(['daemon', 'stop'], { env });
    expect(STORAGE_ERRORS.insecure_database_dir.status).toBe(400);
  });
});
