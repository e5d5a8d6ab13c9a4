/**
 * Fuzz: thousands of random and mutated bodies against POST /v1/sampling and
 * POST /v1/domains (and PATCH, proposals, votes) of the real daemon process.
 * Never a 5xx, every reply in the error shape, the daemon healthy after.
 * Seeded (fast-check), so a failure replays. Then a magnitude sweep: every
 * numeric field of POST /v1/sampling and of its strata at the ends of the
 * doubles (±1e308, 1e-300, 5e-324, ±0, 1e309 = Infinity …), each answered with
 * its documented status and code (docs/sampling.md, "Extreme numbers").
 * Then a depth sweep: every field of every body route
 * nested 20,000 deep (arrays) and 9,000 deep (objects), with and without an
 * Idempotency-Key, answered 400 body_too_deep naming the field — never a 5xx.
 * Every reply of every part, and the hostile corners of the URL (bad
 * percent-encoding, a path parameter over 8,192 characters, unknown routes,
 * a body over the limit), carries the one error body and X-Request-Id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { request } from 'undici';
import { adminKey, PKG, spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';

const t = tempHome({
  voters: [{ did: 'did:example:v', weight: 1 }],
  rateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
});
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

const VALID_DESIGN = {
  projectId: 'did:example:p',
  population: 1000,
  expectedMean: 2,
  expectedSD: 1,
  dropoutRate: 0.1,
  stratification: {
    enabled: true,
    strata: [
      { name: 'a', weight: 0.5 },
      { name: 'b', weight: 0.5, mean: 3, sd: 2 },
    ],
  },
};
const VALID_DOMAIN = () => ({
  type: 'Project',
  class: proto,
  controllers: ['did:example:c'],
  metadata: { name: 'n', tags: ['x'] },
  services: [{ id: '#api', type: 'oracleService', serviceEndpoint: 'https://o.example.org' }],
  validFrom: '2020-01-01T00:00:00Z',
  validUntil: '2099-01-01T00:00:00Z',
  alsoKnownAs: 'k',
});

const nasty = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -0,
    0.1,
    15,
    '',
    ' ',
    '__proto__',
    'constructor',
    'did:',
    'did:example:a:',
    'did:ixo:entity:' + 'a'.repeat(32),
    '\u0000',
    'NaN',
    'Infinity',
    [],
    {},
    [[[[]]]],
  ),
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
    fc
      .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', 'Type', 'dropout'), nasty)
      .map(([k, v]) => ({ ...base, [k]: v })),
    fc
      .tuple(fc.constantFrom(...keys), fc.constantFrom(...keys), nasty)
      .map(([a, b, v]) => ({ ...base, [a]: { [b]: v } })),
  );
}

interface Reply {
  status: number;
  body: unknown;
  requestId: unknown;
}

async function send(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const r = await request(d.url + path, {
    method: method as 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await r.body.text();
  return { status: r.statusCode, body: text ? JSON.parse(text) : undefined, requestId: r.headers['x-request-id'] };
}

/**
 * Never a 5xx; every reply has a request id; every error is the one body {statusCode, code, message, field?, details?}.
 */
function checkReply(r: Reply): void {
  expect(r.status).toBeLessThan(500);
  expect(r.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  if (r.status >= 400) {
    const b = r.body as Record<string, unknown>;
    expect(b.statusCode).toBe(r.status);
    expect(typeof b.code).toBe('string');
    expect(typeof b.message).toBe('string');
    expect(Object.keys(b).filter((k) => !['statusCode', 'code', 'message', 'field', 'details'].includes(k))).toEqual(
      [],
    );
  }
}

describe('fuzz', () => {
  it('POST /v1/sampling and /v1/domains: never a 5xx, always the error shape', async () => {
    const bodies = fc.sample(
      fc.oneof(
        mutated(VALID_DESIGN).map((b) => ['POST', '/v1/sampling', JSON.stringify(b)] as const),
        mutated(VALID_DOMAIN()).map((b) => ['POST', '/v1/domains', JSON.stringify(b)] as const),
        mutated(VALID_DOMAIN()).map((b) => ['PATCH', `/v1/domains/${project}`, JSON.stringify(b)] as const),
        mutated(PKG).map(
          (b) => ['POST', `/v1/domains/${project}/verification-proposals`, JSON.stringify({ package: b })] as const,
        ),
        nasty.map((b) => ['POST', '/v1/sampling', JSON.stringify(b) ?? 'null'] as const),
        nasty.map((b) => ['POST', '/v1/domains', JSON.stringify(b) ?? 'null'] as const),
        fc.string({ maxLength: 200 }).map((s) => ['POST', '/v1/domains', s] as const), // not JSON at all
        fc.string({ maxLength: 80 }).map((s) => ['GET', `/v1/domains/${encodeURIComponent(s)}`, ''] as const),
        fc.string({ maxLength: 80 }).map((s) => ['GET', `/v1/domains?${s}`, ''] as const),
        // the URL's hostile corners: stray or truncated percent-escapes, overlong parameters, unknown routes
        fc
          .tuple(
            fc.constantFrom('/v1/domains/', '/v1/sampling/', '/v1/proposals/', '/v1/nothing/', '/nothing/'),
            fc.constantFrom('%E0%A4%A', '%', '%zz', '%C0%80', '%FF', 'a%2', 'x'.repeat(8193), 'y'.repeat(12_000), ''),
            fc.string({ maxLength: 10 }).map(encodeURIComponent),
          )
          .map(([p, bad, s]) => ['GET', p + bad + s, ''] as const),
      ),
      { numRuns: 3000, seed: 20261121 },
    );
    const results: Reply[] = [];
    for (let i = 0; i < bodies.length; i += 50) {
      const batch = bodies
        .slice(i, i + 50)
        .map(([m, p, b]) =>
          m === 'GET'
            ? send('GET', p, undefined as unknown as string, { 'content-type': '' })
            : send(m, p, b, m === 'PATCH' ? { 'if-match': '"1"' } : {}),
        );
      results.push(...(await Promise.all(batch)));
    }
    for (const r of results) checkReply(r);
    expect(results.some((r) => r.status === 201)).toBe(true);
    expect(results.some((r) => r.status === 400)).toBe(true);
    const codes = new Set(results.map((r) => (r.body as { code?: string } | undefined)?.code));
    for (const c of ['invalid_url', 'url_too_long', 'not_found']) expect(codes, c).toContain(c);
    const h = await d.call('GET', '/health');
    expect(h.body).toMatchObject({ status: 'ok', pid: d.pid });
    expect(d.child.exitCode).toBeNull();
  });
});

/** The raw JSON texts of the sweep (1e309 parses to Infinity, 9007199254740993 to 2^53). */
const MAGNITUDES = [
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e-300',
  '-1e-300',
  '5e-324',
  '-5e-324',
  '0',
  '-0',
  '1e153',
  '-1e153',
  '1e160',
  '1e-153',
  '1e-160',
  '1e309',
  '-1e309',
  '9007199254740991',
  '9007199254740993',
];

type Expect = [status: number, code: string];
const inRange = (v: number, lo: number, hi: number, loOpen: boolean, hiOpen: boolean) =>
  Number.isFinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
/** A design whose CV is this large is a census before dropout (n0 far above (N_h − 1)²): 422 with dropout, else 201. */
const byCv = (cv: number, d: number): Expect => (cv > 1e6 && d > 0 ? [422, 'insufficient_population'] : [201, '']);

/** Where the value goes, the sd and mean it meets there, and the documented answer. */
const FIELDS: { path: (string | number)[]; field: string; expect: (v: number, d: number) => Expect }[] = [
  {
    path: ['population'],
    field: 'population',
    expect: (v) =>
      Number.isInteger(v) && v >= 1 && v <= Number.MAX_SAFE_INTEGER
        ? v === 1
          ? [422, 'empty_stratum']
          : [201, '']
        : [400, 'invalid_population'],
  },
  {
    path: ['expectedMean'],
    field: 'expectedMean',
    expect: (v, d) => (inRange(v, 0, Infinity, true, true) ? byCv(1 / v, d) : [400, 'invalid_mean']),
  },
  {
    path: ['expectedSD'],
    field: 'expectedSD',
    expect: (v, d) => (inRange(v, 0, Infinity, true, true) ? byCv(v / 2, d) : [400, 'invalid_sd']),
  },
  {
    path: ['expectedProportion'],
    field: 'expectedProportion',
    expect: (v, d) => (inRange(v, 0, 1, true, true) ? byCv(Math.sqrt((1 - v) / v), d) : [400, 'invalid_proportion']),
  },
  {
    path: ['dropoutRate'],
    field: 'dropoutRate',
    expect: (v) => (inRange(v, 0, 1, false, true) ? [201, ''] : [400, 'invalid_dropout']),
  },
  { path: ['confidence'], field: 'confidence', expect: () => [400, 'confidence_must_be_0.95'] },
  { path: ['precision'], field: 'precision', expect: () => [400, 'precision_must_be_0.05'] },
  {
    path: ['erCoverage'],
    field: 'erCoverage',
    expect: (v) => (inRange(v, 0, 1, false, false) ? [201, ''] : [400, 'invalid_er_coverage']),
  },
  ...[0, 1].flatMap((i) => [
    {
      path: ['stratification', 'strata', i, 'weight'],
      field: `stratification.strata[${i}].weight`,
      expect: (v: number): Expect =>
        inRange(v, 0, 1, true, false)
          ? v === 0.5
            ? [201, '']
            : [409, 'weights_do_not_sum_to_1']
          : [400, 'invalid_weight'],
    },
    // stratum a inherits mean 2 and SD 1; stratum b has mean 3 and SD 2
    {
      path: ['stratification', 'strata', i, 'mean'],
      field: `stratification.strata[${i}].mean`,
      expect: (v: number, d: number): Expect =>
        inRange(v, 0, Infinity, true, true) ? byCv((i === 0 ? 1 : 2) / v, d) : [400, 'invalid_mean'],
    },
    {
      path: ['stratification', 'strata', i, 'sd'],
      field: `stratification.strata[${i}].sd`,
      expect: (v: number, d: number): Expect =>
        inRange(v, 0, Infinity, true, true) ? byCv(v / (i === 0 ? 2 : 3), d) : [400, 'invalid_sd'],
    },
  ]),
];

/** VALID_DESIGN with the value's raw JSON text at the path (and without mean/SD for a proportion). */
function sweepBody(path: (string | number)[], raw: string, dropoutRate: number): string {
  const body = JSON.parse(JSON.stringify({ ...VALID_DESIGN, dropoutRate })) as Record<string, unknown>;
  if (path[0] === 'expectedProportion') {
    delete body.expectedMean;
    delete body.expectedSD;
  }
  let at = body as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path.at(-1)!] = '@@SWEEP@@';
  return JSON.stringify(body).replace('"@@SWEEP@@"', raw);
}

describe('magnitude sweep', () => {
  it('every numeric field of POST /v1/sampling and its strata at the ends of the doubles: the documented code, never a 5xx', async () => {
    const cases = FIELDS.flatMap((f) =>
      MAGNITUDES.flatMap((raw) => [0.1, 0].map((d) => ({ f, raw, d, body: sweepBody(f.path, raw, d) }))),
    );
    const replies: Reply[] = [];
    for (let i = 0; i < cases.length; i += 50)
      replies.push(...(await Promise.all(cases.slice(i, i + 50).map((c) => send('POST', '/v1/sampling', c.body)))));
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const r = replies[i]!;
      checkReply(r);
      const [status, code] = c.f.expect(JSON.parse(c.raw) as number, c.d);
      const b = r.body as { code?: string; field?: string };
      const got = `${r.status} ${b.code ?? ''}`.trim();
      if (got !== `${status} ${code}`.trim() || (status === 400 && b.field !== c.f.field))
        wrong.push(
          `${c.f.field} = ${c.raw} (dropout ${c.d}): got ${got} field ${b.field}, want ${status} ${code} field ${c.f.field}`,
        );
    });
    expect(wrong).toEqual([]);
    expect(replies.filter((r) => r.status === 201).length).toBeGreaterThan(50);
    expect(replies.some((r) => (r.body as { flags?: string[] }).flags?.includes('census'))).toBe(true);
    expect((await d.call('GET', '/health')).body).toMatchObject({ status: 'ok', pid: d.pid });
  }, 120_000);
});

/** 20,000 arrays deep (40 KB) and 9,000 objects deep (54 KB): under the 64 KiB body limit, far over any stack. */
const DEEP = ['['.repeat(20_000) + ']'.repeat(20_000), '{"a":'.repeat(9_000) + '1' + '}'.repeat(9_000)];

describe('depth sweep', () => {
  it('every field of every body route nested 20,000 deep, with and without Idempotency-Key: 400 body_too_deep naming the field, 0 × 5xx', async () => {
    const design = (await send('POST', '/v1/sampling', JSON.stringify({ ...VALID_DESIGN, projectId: project })))
      .body as { designId: string };
    const domain = (await send('POST', '/v1/domains', JSON.stringify({ type: 'Project', class: proto }))).body as {
      id: string;
    };
    const proposed = (
      await send('POST', `/v1/domains/${domain.id}/verification-proposals`, JSON.stringify({ package: PKG }))
    ).body as { id: string };
    expect([design.designId, domain.id, proposed.id].every(Boolean)).toBe(true);
    const routes: [method: string, path: string, base: Record<string, unknown>, headers?: Record<string, string>][] = [
      ['POST', '/v1/sampling', { ...VALID_DESIGN, x: 1 }],
      ['POST', '/v1/domains', VALID_DOMAIN()],
      ['PATCH', `/v1/domains/${domain.id}`, VALID_DOMAIN(), { 'if-match': '"1"' }],
      ['POST', `/v1/domains/${project}/verification-proposals`, { package: PKG, description: 'd' }],
      ['POST', `/v1/proposals/${proposed.id}/votes`, { option: 'yes' }],
      [
        'POST',
        `/v1/sampling/${design.designId}/recalculations`,
        {
          period: 'p',
          observedMean: 1,
          observedSD: 1,
          observedProportion: 0.5,
          dropoutRate: 0.1,
          population: 10,
          erCoverage: 0.9,
          strata: [],
        },
      ],
      ['POST', `/v1/sampling/${design.designId}/verification`, { status: 'submitted', reason: 'r' }],
      [
        'POST',
        '/admin/v1/keys',
        { did: 'did:example:x', roles: ['member'], label: 'l' },
        { authorization: `Bearer ${d.token}` },
      ],
    ];
    const cases = routes.flatMap(([method, path, base, headers]) =>
      [...Object.keys(base), 'extra'].flatMap((field) =>
        DEEP.flatMap((deep, shape) =>
          [false, true].map((idem) => {
            const body = JSON.stringify({ ...base, [field]: '@@DEEP@@' }).replace('"@@DEEP@@"', deep);
            const h = {
              ...(headers ?? {}),
              ...(idem ? { 'idempotency-key': `deep-${field}-${shape}-${path.length}` } : {}),
            };
            return {
              label: `${method} ${path} ${field} (${shape ? 'objects' : 'arrays'}${idem ? ', Idempotency-Key' : ''})`,
              field,
              method,
              path,
              body,
              h,
            };
          }),
        ),
      ),
    );
    // the deep value as the whole body, too
    for (const deep of DEEP)
      cases.push({
        label: 'POST /v1/domains (the body itself)',
        field: deep.startsWith('[') ? 'body' : 'a',
        method: 'POST',
        path: '/v1/domains',
        body: deep,
        h: { 'idempotency-key': 'deep-body' },
      });
    const replies: Reply[] = [];
    for (let i = 0; i < cases.length; i += 20)
      replies.push(...(await Promise.all(cases.slice(i, i + 20).map((c) => send(c.method, c.path, c.body, c.h)))));
    const wrong: string[] = [];
    cases.forEach((c, i) => {
      const r = replies[i]!;
      checkReply(r);
      const b = r.body as { code?: string; field?: string };
      if (r.status !== 400 || b.code !== 'body_too_deep' || b.field !== c.field)
        wrong.push(`${c.label}: ${r.status} ${b.code} field ${b.field}`);
    });
    expect(wrong).toEqual([]);
    expect(replies.length).toBe(190);
    expect((await d.call('GET', '/health')).body).toMatchObject({ status: 'ok', pid: d.pid });
  }, 120_000);
});
