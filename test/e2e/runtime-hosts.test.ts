/**
 * DNS rebinding and cross-origin pages against a loopback oracle: a request
 * or socket.io upgrade whose Host is not one of this server's names gets 421
 * misdirected_host; a page of another origin gets no CORS grant over HTTP and
 * 403 origin_not_allowed on the socket.io upgrade, unless CORS_ORIGINS names it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { rawRequest, SOCKET_IO_UPGRADE } from '../helpers/raw-http.ts';

describe('a loopback oracle by default', () => {
  let h: Harness;
  let port: string;
  beforeAll(async () => {
    h = await startHarness();
    port = new URL(h.url).port;
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 421 misdirected_host to a rebound name, on every route and the socket.io upgrade', async () => {
    for (const path of ['/health', '/sessions', '/messages/abc', '/nowhere']) {
      const r = await rawRequest(h.url + path, { host: `rebound.example:${port}` });
      expect(r.status, path).toBe(421);
      expect(JSON.parse(r.body), path).toMatchObject({
        statusCode: 421,
        code: 'misdirected_host',
        field: 'host',
        message: expect.stringContaining('rebound.example'),
      });
    }
    const up = await rawRequest(h.url + SOCKET_IO_UPGRADE, { host: `rebound.example:${port}`, upgrade: true });
    expect(up.status).toBe(421);
    expect(JSON.parse(up.body)).toMatchObject({ code: 'misdirected_host' });
    // its own names
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST.:${port}`])
      expect((await rawRequest(`${h.url}/health`, { host })).status, host).toBe(200);
    expect((await rawRequest(h.url + SOCKET_IO_UPGRADE, { upgrade: true })).status).toBe(101);
  });

  it('grants no cross-origin access: no CORS headers, and the socket.io upgrade from another page is refused', async () => {
    const pre = await rawRequest(`${h.url}/sessions`, {
      method: 'OPTIONS',
      origin: 'http://evil.example',
      headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await rawRequest(`${h.url}/health`, { origin: 'http://evil.example' });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    const up = await rawRequest(h.url + SOCKET_IO_UPGRADE, { origin: 'http://evil.example', upgrade: true });
    expect(up.status).toBe(403);
    expect(JSON.parse(up.body)).toMatchObject({ code: 'origin_not_allowed' });
    // a page served by the oracle's own origin may
    expect((await rawRequest(h.url + SOCKET_IO_UPGRADE, { origin: h.url, upgrade: true })).status).toBe(101);
  });
});

describe('a loopback oracle with CORS_ORIGINS and ORACLE_ALLOWED_HOSTS', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { CORS_ORIGINS: 'http://app.example:5173', ORACLE_ALLOWED_HOSTS: 'oracle.example' },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('grants the named origin only, and answers to the named host', async () => {
    const ok = await rawRequest(`${h.url}/health`, { origin: 'http://app.example:5173' });
    expect(ok.headers['access-control-allow-origin']).toBe('http://app.example:5173');
    const evil = await rawRequest(`${h.url}/health`, { origin: 'http://evil.example' });
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    expect(
      (await rawRequest(h.url + SOCKET_IO_UPGRADE, { origin: 'http://app.example:5173', upgrade: true })).status,
    ).toBe(101);
    expect((await rawRequest(h.url + SOCKET_IO_UPGRADE, { origin: 'http://evil.example', upgrade: true })).status).toBe(
      403,
    );
    expect((await rawRequest(`${h.url}/health`, { host: 'oracle.example' })).status).toBe(200);
    expect((await rawRequest(`${h.url}/health`, { host: 'other.example' })).status).toBe(421);
  });
});
