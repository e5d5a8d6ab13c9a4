/**
 * The daemon's request log (src/runtime/http/request-log.ts, the one request line of every server the package
 * builds): one pino line per request with its request id, method, path (never the query string), status and time; a
 * refusal adds its code on a line bound to the same request id.
 */
import { Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../../../src/daemon/server.ts';
import { Registry } from '../../../../src/daemon/registry/index.ts';
import { openStorage } from '../../../../src/storage/open.ts';
import type { Storage } from '../../../../src/storage/storage.ts';
import { REGISTRY_MIGRATIONS } from '../../../../src/daemon/registry/migrations.ts';
import { parseConfig } from '../../../../src/daemon/config.ts';

const lines: Record<string, unknown>[] = [];
const stream = new Writable({
  write(chunk: Buffer, _enc, cb) {
    for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
    cb();
  },
});

let app: FastifyInstance;
let db: Storage;
let dir: string;
let url: string;
let registry: Registry;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oraclekit-logging-'));
  db = await openStorage({ location: join(dir, 'data/registry.db'), migrations: { registry: REGISTRY_MIGRATIONS } });
  const config = parseConfig({ rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } });
  registry = new Registry(db, config);
  app = await buildServer({
    registry,
    config,
    version: 'test',
    token: 'admin-token',
    docs: false,
    logger: { level: 'info', stream },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});

afterAll(async () => {
  await app.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const completed = () => lines.filter((l) => l.msg === 'request');

describe('the request log', () => {
  it('a refused request: one line with its code and one request line, both bound to its request id', async () => {
    lines.length = 0;
    const r = await fetch(url + '/v1/sampling', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(401);
    const id = r.headers.get('x-request-id');
    await new Promise((res) => setImmediate(res));
    expect(lines.filter((l) => l.msg === 'request refused')).toEqual([
      expect.objectContaining({ reqId: id, code: 'unauthenticated', statusCode: 401, level: 30 }),
    ]);
    expect(completed()).toEqual([
      expect.objectContaining({ reqId: id, level: 30, method: 'POST', path: '/v1/sampling', status: 401 }),
    ]);
  });

  it('a bad body with a key: the lines carry the request id the client sent', async () => {
    const key = (await registry.keys.create('did:example:alice', ['member'])).key;
    lines.length = 0;
    const r = await fetch(url + '/v1/sampling', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-request-id': 'my-req-1' },
      body: '{"projectId":"did:example:p"}',
    });
    expect(r.status).toBe(400);
    await new Promise((res) => setImmediate(res));
    expect(lines.filter((l) => l.msg === 'request refused')).toEqual([
      expect.objectContaining({ reqId: 'my-req-1', statusCode: 400 }),
    ]);
    expect(completed()).toEqual([expect.objectContaining({ reqId: 'my-req-1', status: 400 })]);
  });

  it('a request that succeeds logs one line: method, URL, status, time; never the key', async () => {
    const key = (await registry.keys.create('did:example:bob', ['member'])).key;
    lines.length = 0;
    const r = await fetch(url + '/v1/sampling', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        projectId: 'did:example:p',
        population: 5000,
        expectedMean: 2.5,
        expectedSD: 1.2,
        dropoutRate: 0.15,
      }),
    });
    expect(r.status).toBe(201);
    await new Promise((res) => setImmediate(res));
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'request',
        reqId: r.headers.get('x-request-id'),
        method: 'POST',
        path: '/v1/sampling',
        status: 201,
        ms: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('a key in the query string never reaches the log: the line has the path only', async () => {
    const key = (await registry.keys.create('did:example:carol', ['admin'])).key;
    lines.length = 0;
    const r = await fetch(`${url}/admin/v1/keys?api_key=${key}&x=1`);
    await r.arrayBuffer();
    await new Promise((res) => setImmediate(res));
    expect(completed()).toEqual([expect.objectContaining({ method: 'GET', path: '/admin/v1/keys' })]);
    expect(JSON.stringify(lines)).not.toContain(key);
    expect(JSON.stringify(lines)).not.toContain('api_key');
  });
});
