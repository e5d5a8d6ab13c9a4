/**
 * The one outbound JSON request (src/lib/fetch-json.ts) against a real HTTP
 * server on 127.0.0.1: replies whatever their status, the time-out, the
 * caller's abort and an unreachable server as 502 upstream_error (or the
 * caller's own error).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import { freePort, listenLoopback } from '../../helpers/loopback.ts';
import { fetchJson, fetchOutbound } from '../../../src/lib/fetch-json.ts';

let srv: Awaited<ReturnType<typeof listenLoopback>>;
const seen: { url: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  srv = await listenLoopback(
    createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ url: req.url!, headers: req.headers, body });
        if (req.url === '/hang') return;
        if (req.url === '/stream') {
          // headers at once, then one event after the time-out of the test below, then the end
          res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n');
          return void setTimeout(() => res.end('data: 2\n\n'), 300);
        }
        if (req.url === '/text')
          return res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
        if (req.url === '/empty') return res.writeHead(204).end();
        if (req.url === '/audio')
          return res.writeHead(200, { 'content-type': 'audio/pcm' }).end(Buffer.from([0, 1, 254, 255]));
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'no such thing' }));
      });
    }),
  );
});
afterAll(() => srv.close());

describe('fetchJson', () => {
  it('sends a form as multipart and reads a binary reply as bytes (a failed one as text)', async () => {
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'audio/wav' }), 'a.wav');
    const up = await fetchJson({ method: 'POST', url: `${srv.url}/upload`, form, what: 'x' });
    expect(up.status).toBe(404);
    const s = seen.at(-1)!;
    expect(s.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(s.body).toContain('name="model"\r\n\r\nwhisper-1');
    expect(s.body).toContain('filename="a.wav"');
    const audio = await fetchJson({
      method: 'POST',
      url: `${srv.url}/audio`,
      body: { input: 'hi' },
      binary: true,
      what: 'x',
    });
    expect(audio).toMatchObject({ status: 200, ok: true, text: '', body: undefined });
    expect([...audio.bytes!]).toEqual([0, 1, 254, 255]);
    const failed = await fetchJson({ url: `${srv.url}/text`, binary: true, what: 'x' });
    expect(failed).toMatchObject({ status: 503, ok: false, text: 'down for maintenance' });
    expect(failed.bytes).toBeUndefined();
  });

  it('returns any status with its body: JSON parsed, text kept, empty undefined; sends query, bearer and JSON body', async () => {
    const r = await fetchJson<{ error: string }>({
      method: 'POST',
      url: `${srv.url}/thing`,
      query: { q: 'a b', skip: undefined, empty: '', n: 3 },
      bearer: 'tok',
      body: { x: 1 },
      what: 'the test server',
    });
    expect(r).toMatchObject({ status: 404, ok: false, json: true, body: { error: 'no such thing' } });
    const s = seen.at(-1)!;
    expect(s.url).toBe('/thing?q=a+b&n=3');
    expect(s.headers).toMatchObject({ authorization: 'Bearer tok', 'content-type': 'application/json' });
    expect(JSON.parse(s.body)).toEqual({ x: 1 });
    expect(await fetchJson({ url: `${srv.url}/text`, what: 'x' })).toMatchObject({
      status: 503,
      json: false,
      body: 'down for maintenance',
    });
    expect(await fetchJson({ url: `${srv.url}/empty`, what: 'x' })).toMatchObject({
      status: 204,
      ok: true,
      json: false,
      body: undefined,
    });
  });

  it('no answer is 502 upstream_error naming who and why: time-out, abort, refused', async () => {
    const slow = await fetchJson({ url: `${srv.url}/hang`, timeoutMs: 150, what: 'the slow service' }).catch(
      (e: unknown) => e,
    );
    expect(slow).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'the slow service did not answer within 150 ms',
      details: { reason: 'timeout', timeoutMs: 150, url: `${srv.url}/hang` },
    });
    const ac = new AbortController();
    const aborted = fetchJson({ url: `${srv.url}/hang`, signal: ac.signal, what: 'the slow service' }).catch(
      (e: unknown) => e,
    );
    ac.abort();
    expect(await aborted).toMatchObject({
      code: 'upstream_error',
      message: 'the call to the slow service was aborted',
      details: { reason: 'aborted' },
    });
    const port = await freePort();
    const refused = await fetchJson({ url: `http://127.0.0.1:${port}/x?key=secret`, what: 'the gone service' }).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'cannot reach the gone service: ECONNREFUSED',
      details: { reason: 'unreachable', cause: 'ECONNREFUSED', url: `http://127.0.0.1:${port}/x` },
    });
  });

  it("a caller's fail turns the failure into its own error", async () => {
    const port = await freePort();
    const e = await fetchJson({
      url: `http://127.0.0.1:${port}/`,
      what: 'the homeserver',
      fail: (f) => new RangeError(`${f.reason}: ${f.message}`),
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RangeError);
    expect((e as Error).message).toBe('unreachable: cannot reach the homeserver: ECONNREFUSED');
  });
});

describe('fetchOutbound', () => {
  it('times out only until the headers come: a stream read by the caller stays open after them', async () => {
    const res = await fetchOutbound(`${srv.url}/stream`, {}, { what: 'the stream', timeoutMs: 150 });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('no answer is the same 502 upstream_error as fetchJson: time-out, the request signal, refused', async () => {
    const what = 'the MCP server';
    const slow = await fetchOutbound(`${srv.url}/hang`, { method: 'POST' }, { what, timeoutMs: 150 }).catch(
      (e: unknown) => e,
    );
    expect(slow).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'the MCP server did not answer within 150 ms',
      details: { reason: 'timeout', timeoutMs: 150 },
    });
    const ac = new AbortController();
    const aborted = fetchOutbound(`${srv.url}/hang`, { signal: ac.signal }, { what }).catch((e: unknown) => e);
    ac.abort();
    expect(await aborted).toMatchObject({ code: 'upstream_error', message: 'the call to the MCP server was aborted' });
    const port = await freePort();
    const refused = await fetchOutbound(`http://127.0.0.1:${port}/mcp`, {}, { what }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'upstream_error', message: 'cannot reach the MCP server: ECONNREFUSED' });
  });
});
