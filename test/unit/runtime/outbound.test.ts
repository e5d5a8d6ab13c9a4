import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundDispatcher, outboundFetch } from '../../../src/runtime/outbound.ts';
import { preconnect } from '../../../src/lib/fetch-json.ts';
import { freePort } from '../../helpers/loopback.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let url = '';
/** Each connection to the server, with the requests it carried (method, authorization header). */
const connections: { method: string; authorization?: string }[][] = [];
const server = createServer((req, res) => {
  connections.at(-1)?.push({ method: req.method!, authorization: req.headers.authorization });
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ type: req.headers['content-type'], body: Buffer.concat(chunks).toString('latin1') }));
  });
});
server.on('connection', () => connections.push([]));
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the outbound transport (undici with time-outs)', () => {
  it("sends the platform's FormData as multipart with its boundary, as a speech service's upload needs", async () => {
    const dispatcher = outboundDispatcher();
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([new Uint8Array([82, 73, 70, 70])], { type: 'audio/wav' }), 'utterance.wav');
    const res = await outboundFetch(dispatcher)(url, { method: 'POST', body: form, headers: { 'x-test': '1' } });
    const seen = (await res.json()) as { type: string; body: string };
    await dispatcher.close();
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(seen.type)?.[1];
    expect(boundary).toBeTruthy();
    expect(seen.body).toContain(`--${boundary}`);
    expect(seen.body).toContain('name="model"\r\n\r\nwhisper-1');
    expect(seen.body).toContain('filename="utterance.wav"');
    expect(seen.body).toContain('RIFF');
  });
});

describe('preconnect (the one outbound helper) over the outbound transport', () => {
  it('opens a connection that the next request reuses: one OPTIONS request, without credentials, for calls within 2 s', async () => {
    const dispatcher = outboundDispatcher();
    const f = outboundFetch(dispatcher);
    const before = connections.length;
    for (let i = 0; i < 3; i++) preconnect(`${url}v1`, { fetch: f });
    for (let i = 0; i < 100 && connections.slice(before).flat().length === 0; i++) await sleep(10);
    await sleep(50); // its reply read, the connection is back in the pool
    const res = await f(`${url}v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test' },
      body: '{}',
    });
    await res.arrayBuffer();
    await dispatcher.close();
    const mine = connections.slice(before);
    expect(mine.map((c) => c.map((r) => r.method))).toEqual([['OPTIONS', 'POST']]);
    expect(mine[0]![0]!.authorization).toBeUndefined();
  });

  it('never throws: an unreachable service, a URL that is not one, another scheme', async () => {
    const f = outboundFetch(outboundDispatcher({ connectMs: 500 }));
    const port = await freePort();
    expect(() => preconnect(`http://127.0.0.1:${port}/v1`, { fetch: f })).not.toThrow();
    expect(() => preconnect('not a url', { fetch: f })).not.toThrow();
    expect(() => preconnect('file:///etc/passwd', { fetch: f })).not.toThrow();
    await sleep(100); // a refused connection's rejection is caught, not left unhandled
  });
});
