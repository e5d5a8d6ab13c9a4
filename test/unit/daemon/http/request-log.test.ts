/**
 * The daemon's request log (src/daemon/http/request-log.ts): fastify's own,
 * one pino line per request with its request id, method, URL, status and
 * time; a refusal adds its code on a line bound to the same request id.
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

const completed = () => lines.filter((l) => l.msg === 'request completed');

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
      expect.objectContaining({
        reqId: id,
        level: 30,
        req: expect.objectContaining({ method: 'POST', url: '/v1/sampling' }),
        res: { statusCode: 401 },
      }),
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
    expect(completed()).toEqual([expect.objectContaining({ reqId: 'my-req-1', res: { statusCode: 400 } })]);
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
        msg: 'request completed',
        reqId: r.headers.get('x-request-id'),
        req: expect.objectContaining({ method: 'POST', url: '/v1/sampling' }),
        res: { statusCode: 201 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});
