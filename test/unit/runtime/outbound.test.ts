import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundDispatcher, outboundFetch } from '../../../src/runtime/outbound.ts';

let url = '';
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ type: req.headers['content-type'], body: Buffer.concat(chunks).toString('latin1') }));
  });
});
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
