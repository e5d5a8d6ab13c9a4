/**
 * The one HTTP helper and typed client of the registry against a real HTTP
 * server on 127.0.0.1 that answers like the registry (and, for the failure
 * cases, unlike it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage } from 'node:http';
import { listenLoopback } from '../../../helpers/loopback.ts';
import { RegistryClient, errorFromReply, requestJson } from '../../../../src/lib/registry/client.ts';
import { isOracleKitError } from '../../../../src/lib/errors.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
let srv: Awaited<ReturnType<typeof listenLoopback>>;
const domain = {
  id: 'did:ixo:entity:' + 'a'.repeat(32),
  type: 'Project',
  state: 'registered',
  version: 3,
  active: true,
  eligible: false,
  controllers: ['did:example:rep'],
  metadata: { name: 'Kisumu' },
  services: [],
};

beforeAll(async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.url === '/hang') return; // never answers
      if (req.url === '/text-error') {
        res.writeHead(502, { 'content-type': 'text/plain' });
        return res.end('bad gateway');
      }
      if (req.headers.authorization === 'Bearer wrong')
        return json(401, { statusCode: 401, code: 'unauthenticated', message: 'unknown API key' });
      if (req.url?.startsWith('/v1/domains?')) return json(200, { items: [domain], nextCursor: null });
      if (req.url === `/v1/domains/${encodeURIComponent(domain.id)}` && req.method === 'GET') return json(200, domain);
      if (req.url === `/v1/domains/${encodeURIComponent(domain.id)}` && req.method === 'PATCH') {
        if (req.headers['if-match'] !== '"3"')
          return json(412, {
            statusCode: 412,
            code: 'stale_version',
            message: 'version 3 is current',
            field: 'if-match',
            details: { current: 3 },
          });
        return json(200, { ...domain, version: 4, ...JSON.parse(body) });
      }
      if (req.url === '/admin/v1/keys' && req.method === 'GET') return json(200, { items: [] });
      json(404, { statusCode: 404, code: 'not_found', message: `no route ${req.method} ${req.url}` });
    });
  });
  srv = await listenLoopback(server);
});
afterAll(async () => srv.close());

describe('requestJson', () => {
  it('sends JSON with the bearer and returns status, headers and the parsed body whatever the status', async () => {
    const r = await requestJson<{ code: string }>({
      method: 'POST',
      url: `${srv.url}/nowhere`,
      body: { a: 1 },
      bearer: 'k1',
      what: 'the test server',
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
    expect(r.headers.get('content-type')).toMatch(/json/);
    const s = seen.at(-1)!;
    expect(s).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(s.headers).toMatchObject({
      authorization: 'Bearer k1',
      'content-type': 'application/json',
      accept: 'application/json',
    });
  });

  it('an unreachable server is 503 unavailable, reason unreachable, naming who and where', async () => {
    const closed = await listenLoopback(createServer());
    await closed.close(); // a port nobody listens on
    const e = await requestJson({ method: 'GET', url: `${closed.url}/v1/domains`, what: 'the devnet registry' }).catch(
      (x: unknown) => x,
    );
    expect(isOracleKitError(e)).toBe(true);
    expect(e).toMatchObject({
      status: 503,
      code: 'unavailable',
      details: { reason: 'unreachable', cause: 'ECONNREFUSED' },
    });
    expect((e as Error).message).toBe(`cannot reach the devnet registry at ${closed.url}: ECONNREFUSED`);
  });

  it('no answer within the time-out is reason timeout; the caller aborting is reason aborted', async () => {
    const t = await requestJson({ method: 'GET', url: `${srv.url}/hang`, what: 'the registry', timeoutMs: 200 }).catch(
      (x: unknown) => x,
    );
    expect(t).toMatchObject({ code: 'unavailable', details: { reason: 'timeout', timeoutMs: 200 } });
    const ac = new AbortController();
    const p = requestJson({ method: 'GET', url: `${srv.url}/hang`, what: 'the registry', signal: ac.signal }).catch(
      (x: unknown) => x,
    );
    ac.abort();
    expect(await p).toMatchObject({ code: 'unavailable', details: { reason: 'aborted' } });
  });

  it('errorFromReply keeps the server body; a reply without one is http_error with the status and the text', async () => {
    const r = await requestJson({ method: 'GET', url: `${srv.url}/text-error`, what: 'x' });
    expect(errorFromReply(r)).toMatchObject({ status: 502, code: 'http_error', message: 'HTTP 502: bad gateway' });
    const r2 = await requestJson({ method: 'GET', url: `${srv.url}/nope`, what: 'x' });
    expect(errorFromReply(r2, 'reading it')).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'reading it: no route GET /nope',
    });
  });
});

describe('RegistryClient', () => {
  it('typed calls: query filters, DID encoding, If-Match', async () => {
    const c = new RegistryClient({ baseUrl: srv.url + '/', apiKey: 'k2' });
    const page = await c.listDomains({ type: 'Project', status: 'verified', limit: 5, q: undefined });
    expect(page.items[0]!.id).toBe(domain.id);
    expect(seen.at(-1)!.url).toBe('/v1/domains?type=Project&status=verified&limit=5');
    expect((await c.getDomain(domain.id)).metadata).toEqual({ name: 'Kisumu' });
    const u = await c.updateDomain(domain.id, { alsoKnownAs: 'KE-1' }, 3);
    expect(u).toMatchObject({ version: 4, alsoKnownAs: 'KE-1' });
    expect(seen.at(-1)!.headers['if-match']).toBe('"3"');
  });

  it("a non-2xx throws the server's error with its code, field and details", async () => {
    const c = new RegistryClient({ baseUrl: srv.url, apiKey: 'k2' });
    await expect(c.updateDomain(domain.id, {}, 2)).rejects.toMatchObject({
      status: 412,
      code: 'stale_version',
      field: 'if-match',
      details: { current: 3 },
    });
  });

  it('admin routes carry the admin token; a 401 gets the hint', async () => {
    const c = new RegistryClient({
      baseUrl: srv.url,
      apiKey: 'wrong',
      adminToken: 'tok',
      unauthorizedHint: 'pass --api-key',
    });
    await c.listKeys();
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer tok');
    await expect(c.getDomain(domain.id)).rejects.toMatchObject({
      status: 401,
      code: 'unauthenticated',
      message: 'unknown API key — pass --api-key',
    });
  });
});
