/**
 * Fuzz: thousands of random and mutated bodies against POST /v1/sampling and
 * POST /v1/domains (and PATCH, proposals, votes) of the real daemon process.
 * Never a 5xx, every reply in the error shape, the daemon healthy after.
 * Seeded (fast-check), so a failure replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'undici';
import { adminKey, PKG, spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';

const t = tempHome({ voters: [{ did: 'did:example:v', weight: 1 }], rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } });
let d: Spawned;
let key: string;
let proto: string;
let project: string;

beforeAll(async () => {
  d = await spawnDaemon(t.env, t.home);
  key = await adminKey(d, 'did:example:fuzzer', 'admin', 'representative', 'voter', 'verifier');
  proto = (await d.call('POST', '/v1/domains', { key, body: { type: 'Protocol' } })).body.id;
  project = (await d.call('POST', '/v1/domains', { key, body: { type: 'Project', class: proto } })).body.id;
});
afterAll(async () => {
  d?.child.kill('SIGTERM');
  if (d) await waitExit(d.child);
  t.cleanup();
});

const VALID_DESIGN = { projectId: 'did:example:p', population: 1000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1, stratification: { enabled: true, strata: [{ name: 'a', weight: 0.5 }, { name: 'b', weight: 0.5, mean: 3, sd: 2 }] } };
const VALID_DOMAIN = () => ({ type: 'Project', class: proto, controllers: ['did:example:c'], metadata: { name: 'n', tags: ['x'] }, services: [{ id: '#api', type: 'oracleService', serviceEndpoint: 'https://o.example.org' }], validFrom: '2020-01-01T00:00:00Z', validUntil: '2099-01-01T00:00:00Z', alsoKnownAs: 'k' });

const nasty = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, -0, 0.1, 15, '', ' ', '__proto__', 'constructor', 'did:', 'did:example:a:', 'did:ixo:entity:' + 'a'.repeat(32), '\u0000', 'NaN', 'Infinity', [], {}, [[[[]]]]),
  fc.string({ maxLength: 40 }),
  fc.double(),
  fc.integer(),
  fc.jsonValue({ maxDepth: 4 }),
);

/** A valid body with one field replaced, removed or added. */
function mutated(base: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(base);
  return fc.oneof(
    fc.tuple(fc.constantFrom(...keys), nasty).map(([k, v]) => ({ ...base, [k]: v })),
    fc.constantFrom(...keys).map((k) => {
      const c = { ...base };
      delete c[k];
      return c;
    }),
    fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', 'Type', 'dropout'), nasty).map(([k, v]) => ({ ...base, [k]: v })),
    fc.tuple(fc.constantFrom(...keys), fc.constantFrom(...keys), nasty).map(([a, b, v]) => ({ ...base, [a]: { [b]: v } })),
  );
}

async function send(method: string, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const r = await request(d.url + path, { method: method as 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });
  const text = await r.body.text();
  return { status: r.statusCode, body: text ? JSON.parse(text) : undefined };
}

function checkReply(r: { status: number; body: unknown }): void {
  expect(r.status).toBeLessThan(500);
  if (r.status >= 400) {
    const b = r.body as Record<string, unknown>;
    expect(b.statusCode).toBe(r.status);
    expect(typeof b.code).toBe('string');
    expect(typeof b.message).toBe('string');
  }
}

describe('fuzz', () => {
  it('POST /v1/sampling and /v1/domains: never a 5xx, always the error shape', async () => {
    const bodies = fc.sample(
      fc.oneof(
        mutated(VALID_DESIGN).map((b) => ['POST', '/v1/sampling', JSON.stringify(b)] as const),
        mutated(VALID_DOMAIN()).map((b) => ['POST', '/v1/domains', JSON.stringify(b)] as const),
        mutated(VALID_DOMAIN()).map((b) => ['PATCH', `/v1/domains/${project}`, JSON.stringify(b)] as const),
        mutated(PKG).map((b) => ['POST', `/v1/domains/${project}/verification-proposals`, JSON.stringify({ package: b })] as const),
        nasty.map((b) => ['POST', '/v1/sampling', JSON.stringify(b) ?? 'null'] as const),
        nasty.map((b) => ['POST', '/v1/domains', JSON.stringify(b) ?? 'null'] as const),
        fc.string({ maxLength: 200 }).map((s) => ['POST', '/v1/domains', s] as const), // not JSON at all
        fc.string({ maxLength: 80 }).map((s) => ['GET', `/v1/domains/${encodeURIComponent(s)}`, ''] as const),
        fc.string({ maxLength: 80 }).map((s) => ['GET', `/v1/domains?${s}`, ''] as const),
      ),
      { numRuns: 3000, seed: 20261121 },
    );
    const results: { status: number; body: unknown }[] = [];
    for (let i = 0; i < bodies.length; i += 50) {
      const batch = bodies.slice(i, i + 50).map(([m, p, b]) => (m === 'GET' ? send('GET', p, undefined as unknown as string, { 'content-type': '' }) : send(m, p, b, m === 'PATCH' ? { 'if-match': '"1"' } : {})));
      results.push(...(await Promise.all(batch)));
    }
    for (const r of results) checkReply(r);
    expect(results.some((r) => r.status === 201)).toBe(true);
    expect(results.some((r) => r.status === 400)).toBe(true);
    const h = await d.call('GET', '/health');
    expect(h.body).toMatchObject({ status: 'ok', pid: d.pid });
    expect(d.child.exitCode).toBeNull();
  });
});
