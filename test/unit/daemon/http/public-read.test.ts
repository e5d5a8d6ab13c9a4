/**
 * The registry's public read (registry.md "Public reads"): the public part of
 * a domain — services, type, class, state — for anyone, without a key, with
 * CORS open to every origin; the full record keeps its key. Real HTTP on
 * 127.0.0.1 against an in-process daemon with a SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcess, type InProcess } from '../harness.ts';
import { resolveOracleDid } from '../../../../src/client/resolve.ts';
import { OracleClientError, OracleUnreachableError } from '../../../../src/client/errors.ts';

let s: InProcess;
let did: string;
const ORIGIN = { origin: 'http://app.example' };

beforeAll(async () => {
  s = await startInProcess();
  const key = await s.key('did:example:rep', 'representative', 'member');
  const proto = await s.call('POST', '/v1/domains', { key, body: { type: 'Protocol', metadata: { name: 'Oracles' } } });
  expect(proto.status, JSON.stringify(proto.body)).toBe(201);
  const r = await s.call('POST', '/v1/domains', {
    key,
    body: {
      type: 'Oracle',
      class: proto.body.id,
      metadata: { name: 'Dice', secretNote: 'for members only' },
      services: [{ id: '#api', type: 'oracleService', serviceEndpoint: 'http://127.0.0.1:4000' }],
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  did = r.body.id;
});
afterAll(() => s.close());

describe('GET /public/v1/domains/:did', () => {
  it('answers without a key, from any origin, with the public part only', async () => {
    const r = await s.call('GET', `/public/v1/domains/${encodeURIComponent(did)}`, { headers: ORIGIN });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.body).sort()).toEqual(['active', 'class', 'eligible', 'id', 'services', 'state', 'type']);
    expect(r.body).toMatchObject({ id: did, type: 'Oracle', state: 'registered' });
    expect(JSON.stringify(r.body)).not.toContain('secretNote');
    // the whole record still needs a key
    expect((await s.call('GET', `/v1/domains/${encodeURIComponent(did)}`)).status).toBe(401);
  });

  it('answers a CORS preflight, and an unknown DID is a 404 the page can read', async () => {
    const pre = await s.call('OPTIONS', `/public/v1/domains/${encodeURIComponent(did)}`, {
      headers: { ...ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    const missing = await s.call(
      'GET',
      `/public/v1/domains/${encodeURIComponent('did:ixo:entity:' + '0'.repeat(32))}`,
      {
        headers: ORIGIN,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('domain_not_found');
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('resolveOracleDid (the client’s one DID → URL resolver)', () => {
  it('resolves through the public read, without a key', async () => {
    const r = await resolveOracleDid(did, { registryUrl: s.url });
    expect(r).toMatchObject({
      did,
      apiUrl: 'http://127.0.0.1:4000',
      wsUrl: 'http://127.0.0.1:4000',
      state: 'registered',
    });
  });

  it('names the registry when it fails: not found, unreachable', async () => {
    const unknown = 'did:ixo:entity:' + '1'.repeat(32);
    const e = await resolveOracleDid(unknown, { registryUrl: s.url }).catch((x: unknown) => x);
    expect(OracleClientError.isInstance(e)).toBe(true);
    expect(e).toMatchObject({ status: 404, code: 'domain_not_found' });
    expect((e as Error).message).toContain(`the registry at ${s.url} could not resolve ${unknown}: it answered 404`);
    const down = await resolveOracleDid(did, { registryUrl: 'http://127.0.0.1:9' }).catch((x: unknown) => x);
    expect(OracleUnreachableError.isInstance(down)).toBe(true);
    expect(down).toMatchObject({ server: 'registry', code: 'registry_unreachable' });
    expect((down as Error).message).toMatch(/^the registry at http:\/\/127\.0\.0\.1:9 is unreachable/);
  });
});
