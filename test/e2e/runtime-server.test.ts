/**
 * A scaffolded oracle's server (createOracleApp) is the daemon's, from the one server factory: it answers a slow
 * client, a JSON body nested 300 deep and a `__proto__` body as the daemon does (408 request_timeout with the
 * connection closed, 400 body_too_deep, 400 invalid_json), sends an unknown route the one 404 body with a request
 * id, and writes one request line per request whose path never carries the query string.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness({ requestTimeouts: { headersMs: 300, requestMs: 300, checkEveryMs: 50 } });
  port = Number(new URL(h.url).port);
}, 60_000);
afterAll(async () => h?.close());

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** One raw exchange on its own socket: the first reply, and everything sent until the server closed it. */
function raw(head: string, body = ''): { reply: Promise<RawReply>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  let onData = () => {};
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  socket.on('data', (d: string) => ((data += d), onData()));
  const closed = new Promise<string>((r) => socket.on('close', () => r(data)));
  const reply = new Promise<RawReply>((resolve) => {
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
      const status = Number(lines[0]!.split(' ')[1]);
      resolve({ status, headers, body: JSON.parse(data.slice(end + 4, end + 4 + len)) as Record<string, unknown> });
    };
  });
  socket.write(head.replaceAll('\n', '\r\n') + '\r\n' + body);
  return { reply, closed };
}

/** A POST /sessions with a user's credentials and this JSON text as its body. */
async function postSessions(json: string): Promise<Response> {
  const u = await h.user();
  return fetch(`${h.url}/sessions`, {
    method: 'POST',
    headers: { ...(await u.headers()), 'content-type': 'application/json' },
    body: json,
  });
}

describe("a scaffolded oracle's server", () => {
  it('a slow body and headers that never end are cut: 408 request_timeout, connection closed', async () => {
    const u = await h.user();
    const auth = Object.entries(await u.headers())
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
    const slow = raw(
      `POST /sessions HTTP/1.1\nHost: 127.0.0.1\n${auth}\nContent-Type: application/json\nContent-Length: 1000\n`,
      '{"title":',
    );
    const r = await slow.reply;
    expect(r.status).toBe(408);
    expect(r.body).toMatchObject({ statusCode: 408, code: 'request_timeout' });
    expect(r.headers['x-request-id']).toBeTruthy();
    expect(r.headers.connection).toBe('close');
    await slow.closed;
    const headers = raw('GET /health HTTP/1.1\nHost: 127.0.0.1'.replace(/\n$/, ''));
    expect((await headers.reply).body).toMatchObject({ statusCode: 408, code: 'request_timeout' });
    await headers.closed;
    // the server still answers
    expect((await fetch(`${h.url}/health`)).status).toBe(200);
  });

  it('a JSON body nested 300 deep is refused before anything reads it: 400 body_too_deep', async () => {
    const deep = `{"title":${'['.repeat(300)}${']'.repeat(300)}}`;
    const r = await postSessions(deep);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ statusCode: 400, code: 'body_too_deep', field: 'title' });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('a body with __proto__ or constructor.prototype is refused, never merged: 400 invalid_json', async () => {
    for (const body of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}']) {
      const r = await postSessions(body);
      expect(r.status).toBe(400);
      expect(await r.json()).toMatchObject({ statusCode: 400, code: 'invalid_json' });
    }
  });

  it('an unknown route: 404 not_found in the one error body, with a request id', async () => {
    const r = await fetch(`${h.url}/no-such-route?x=1`);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({
      statusCode: 404,
      code: 'not_found',
      message: 'no route GET /no-such-route',
    });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('the request line has the path, never the query string (a key sent as ?api_key= is not logged)', async () => {
    const key = `sk-${'k'.repeat(30)}`;
    const r = await fetch(`${h.url}/health?api_key=${key}`, { headers: { 'x-request-id': 'query-line-1' } });
    expect(r.status).toBe(200);
    await new Promise((res) => setTimeout(res, 50));
    expect(h.logs.filter((l) => l.reqId === 'query-line-1')).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', path: '/health', status: 200, ms: expect.any(Number) }),
    ]);
    expect(JSON.stringify(h.logs)).not.toContain(key);
    expect(JSON.stringify(h.logs)).not.toContain('api_key');
  });
});
