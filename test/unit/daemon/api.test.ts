/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON replies of the API under test are checked field by field */
/**
 * The /v1 API over real HTTP and a real database — a SQLite file, and a
 * PostgreSQL database on a real server (test/helpers/postgres.ts; skipped
 * only when the binaries are missing outside CI): every rejection of
 * registry.md, section by section, and the happy paths they guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PKG, startInProcess, type InProcess } from './harness.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../../helpers/postgres.ts';

const ALICE = 'did:example:alice';
const BOB = 'did:example:bob';
const V1 = 'did:example:voter1';
const V2 = 'did:example:voter2';
const V3 = 'did:example:voter3';
const OUTSIDER = 'did:example:outsider';
const DESIGN = { population: 1000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 };

function expectError(r: { status: number; body: any }, status: number, code: string): void {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(r.body.statusCode).toBe(status);
  expect(typeof r.body.message).toBe('string');
  for (const k of Object.keys(r.body)) expect(['statusCode', 'code', 'message', 'field', 'details']).toContain(k);
}

const BACKENDS = ['sqlite', ...(postgresAvailable() ? ['postgres'] : [])];

describe.each(BACKENDS)('the registry API on %s', (backend) => {
  let pg: PostgresServer | undefined;
  let databases = 0;
  /** A registry over a fresh database of this backend. */
  const start = async (config: Record<string, unknown>) =>
    startInProcess(config, { databaseUrl: pg?.createDatabase(`registry_api_${++databases}`) });
  beforeAll(async () => {
    if (backend === 'postgres') pg = await startPostgres();
  }, 120_000);
  afterAll(async () => pg?.stop()); // declared first: after hooks run in reverse order, so this runs after s.close()

  let s: InProcess;
  let alice: string; // admin + representative + member
  let bob: string; // representative, not a controller of alice's domains
  let member: string;
  let verifier: string;
  let v1: string;
  let v2: string;
  let v3: string;
  let outsider: string;
  let protocol: string;

  async function project(body: Record<string, unknown> = {}): Promise<any> {
    const r = await s.call('POST', '/v1/domains', {
      key: alice,
      body: { type: 'Project', class: protocol, metadata: { name: 'P' }, ...body },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  }

  beforeAll(async () => {
    s = await start({
      voters: [
        { did: V1, weight: 2 },
        { did: V2, weight: 1 },
        { did: V3, weight: 1 },
      ],
      proposalDurationSeconds: 3600,
    });
    alice = await s.key(ALICE, 'admin', 'representative', 'member');
    bob = await s.key(BOB, 'representative');
    member = await s.key('did:example:member', 'member');
    verifier = await s.key('did:example:verifier', 'verifier');
    v1 = await s.key(V1, 'voter');
    v2 = await s.key(V2, 'voter');
    v3 = await s.key(V3, 'voter');
    outsider = await s.key(OUTSIDER, 'voter');
    const r = await s.call('POST', '/v1/domains', {
      key: alice,
      body: { type: 'Protocol', metadata: { name: 'Clean cookstoves' } },
    });
    expect(r.status).toBe(201);
    protocol = r.body.id;
  });
  afterAll(async () => s?.close());

  describe('auth', () => {
    it('401 without a key, with a bad key, with a revoked key', async () => {
      expectError(await s.call('GET', '/v1/domains'), 401, 'unauthenticated');
      expectError(
        await s.call('GET', '/v1/domains', { headers: { authorization: 'Basic abc' } }),
        401,
        'unauthenticated',
      );
      expectError(await s.call('GET', '/v1/domains', { key: 'ok_nope' }), 401, 'unauthenticated');
      const k = await s.registry.keys.create('did:example:gone', ['member']);
      expect((await s.call('GET', '/v1/domains', { key: k.key })).status).toBe(200);
      await s.registry.keys.revoke(k.id);
      const r = await s.call('GET', '/v1/domains', { key: k.key });
      expectError(r, 401, 'unauthenticated');
      expect(r.headers.get('www-authenticate')).toContain('Bearer');
    });
    it('admin routes: the token or an admin key; others 401/403', async () => {
      expect((await s.call('GET', '/admin/v1/keys', { key: 'admin-token' })).status).toBe(200);
      expect((await s.call('GET', '/admin/v1/keys', { key: alice })).status).toBe(200);
      expectError(await s.call('GET', '/admin/v1/keys', { key: member }), 403, 'forbidden_role');
      expectError(await s.call('GET', '/admin/v1/keys'), 401, 'unauthenticated');
      expectError(
        await s.call('POST', '/admin/v1/keys', { key: 'admin-token', body: { did: 'did:x', roles: ['member'] } }),
        400,
        'invalid_did',
      );
      expectError(
        await s.call('POST', '/admin/v1/keys', { key: 'admin-token', body: { did: 'did:example:x', roles: ['king'] } }),
        400,
        'invalid_role',
      );
      const list = await s.call('GET', '/admin/v1/keys', { key: 'admin-token' });
      expect(JSON.stringify(list.body)).not.toContain(alice); // never the secrets
    });
    it('keys are stored hashed', async () => {
      const rows = await s.registry.db.all<{ hash: string }>('SELECT hash FROM api_keys');
      expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.hash) && r.hash !== alice)).toBe(true);
    });
  });

  describe('errors everywhere', () => {
    it('unknown route → 404 in the same shape', async () => {
      expectError(await s.call('GET', '/v1/nope', { key: alice }), 404, 'not_found');
      expectError(await s.call('DELETE', '/v1/domains', { key: alice }), 404, 'not_found');
    });
    it('malformed JSON, wrong media type, too large, prototype poisoning', async () => {
      expectError(await s.call('POST', '/v1/domains', { key: alice, raw: '{"type":' }), 400, 'invalid_json');
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          raw: 'type=Project',
          headers: { 'content-type': 'text/plain' },
        }),
        415,
        'unsupported_media_type',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          raw: JSON.stringify({ type: 'Project', metadata: { x: 'a'.repeat(70_000) } }),
        }),
        413,
        'body_too_large',
      );
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, raw: '{"type":"Protocol","__proto__":{"admin":true}}' }),
        400,
        'invalid_json',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          raw: '{"type":"Protocol","constructor":{"prototype":{"x":1}}}',
        }),
        400,
        'invalid_json',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          raw: '{"type":"Protocol","metadata":{"a":{"__proto__":{"x":1}}}}',
        }),
        400,
        'invalid_json',
      );
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', metadata: { constructor: 'x' } } }),
        400,
        'invalid_metadata',
      );
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });
    it('request ids echo back', async () => {
      const r = await s.call('GET', '/v1/domains', { key: alice, headers: { 'x-request-id': 'abc-123' } });
      expect(r.headers.get('x-request-id')).toBe('abc-123');
    });
    it('rate limit per key → 429', async () => {
      const t = await start({ rateLimit: { max: 3, timeWindowMs: 60_000 } });
      try {
        const k = await t.key('did:example:a', 'member');
        const k2 = await t.key('did:example:b', 'member');
        for (let i = 0; i < 3; i++) expect((await t.call('GET', '/v1/domains', { key: k })).status).toBe(200);
        const limited = await t.call('GET', '/v1/domains', { key: k });
        expectError(limited, 429, 'rate_limited');
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
        expect(limited.headers.get('x-request-id')).toBeTruthy();
        expect((await t.call('GET', '/v1/domains', { key: k2 })).status).toBe(200);
        // no rate-limit headers below the limit
        expect(
          (await t.call('GET', '/v1/domains', { key: await t.key('did:example:c', 'member') })).headers.get(
            'x-ratelimit-limit',
          ),
        ).toBeNull();
        expect((await t.call('GET', '/health')).status).toBe(200);
      } finally {
        await t.close();
      }
    });
    it('/docs serves the OpenAPI JSON and the page', async () => {
      const j = await s.call('GET', '/docs/json');
      expect(j.status).toBe(200);
      expect(Object.keys(j.body.paths)).toEqual(
        expect.arrayContaining(['/v1/sampling', '/v1/domains/{did}', '/v1/proposals/{id}/votes']),
      );
      const h = await fetch(s.url + '/docs/');
      expect(h.status).toBe(200);
      expect(await h.text()).toContain('<html');
    });
  });

  describe('DIDs', () => {
    const bad = [
      'did:example:abc:', // trailing colon
      'did:example:abc/path', // path
      'did:example:abc%2', // bad percent escape
      'did:example:abc%zz',
      'did:EXAMPLE:abc', // uppercase method
      'did:example:abc?query',
      'did:example:abc#frag',
      'did:ixo:entity:0123456789abcdef0123456789abcdefXX', // valid prefix + junk
      'did:ixo:entity:0123456789ABCDEF0123456789ABCDEF', // uppercase hex
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', // valid-looking, wrong checksum/point? (decoded below)
      'did:key:abc', // not multibase z
      'did:key:z111', // too short
      'did:example:' + 'a'.repeat(250), // over 256
      'did::abc',
      ' did:example:abc',
      'did:example:abc ',
    ];
    it.each(bad.filter((d) => !d.startsWith('did:key:z6Mkha')))(
      'controllers refuse %s with 400 invalid_did',
      async (did) => {
        expectError(
          await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', controllers: [did] } }),
          400,
          'invalid_did',
        );
      },
    );
    it('class and path DIDs are checked the same way', async () => {
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project', class: 'did:example:abc:' } }),
        400,
        'invalid_did',
      );
      expectError(
        await s.call('GET', `/v1/domains/${encodeURIComponent('did:EXAMPLE:x')}`, { key: alice }),
        400,
        'invalid_did',
      );
      expectError(
        await s.call('GET', `/v1/domains/${encodeURIComponent('did:ixo:entity:' + '0'.repeat(32))}`, { key: alice }),
        404,
        'domain_not_found',
      );
      expectError(
        await s.call('POST', '/v1/sampling', { key: alice, body: { ...DESIGN, projectId: 'did:example:x/y' } }),
        400,
        'invalid_did',
      );
    });
  });

  describe('sample designs', () => {
    it('create → 201 + Location; read; list by project with cursor', async () => {
      const pid = 'did:example:project-a';
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, projectId: pid } });
        expect(r.status).toBe(201);
        expect(r.headers.get('location')).toBe(`/v1/sampling/${r.body.designId}`);
        expect(r.body).toMatchObject({
          projectId: pid,
          version: 1,
          verification: { status: 'draft', verifier: null, timestamp: null },
        });
        expect(r.body.parameters).toMatchObject({
          confidence: 0.95,
          precision: 0.05,
          population: 1000,
          dropoutRate: 0.1,
        });
        ids.push(r.body.designId);
      }
      const g = await s.call('GET', `/v1/sampling/${ids[0]}`, { key: member });
      expect(g.body.designId).toBe(ids[0]);
      const p1 = await s.call('GET', `/v1/sampling?projectId=${encodeURIComponent(pid)}&limit=2`, { key: member });
      expect(p1.body.items.map((d: any) => d.designId)).toEqual(ids.slice(0, 2));
      const p2 = await s.call(
        'GET',
        `/v1/sampling?projectId=${encodeURIComponent(pid)}&limit=2&cursor=${p1.body.nextCursor}`,
        { key: member },
      );
      expect(p2.body.items.map((d: any) => d.designId)).toEqual(ids.slice(2));
      expect(p2.body.nextCursor).toBeNull();
      expectError(await s.call('GET', '/v1/sampling?cursor=garbage', { key: member }), 400, 'invalid_query');
      expectError(await s.call('GET', '/v1/sampling?limit=0', { key: member }), 400, 'invalid_query');
      expectError(await s.call('GET', '/v1/sampling?foo=1', { key: member }), 400, 'unknown_field');
      expectError(await s.call('GET', '/v1/sampling/nope', { key: member }), 404, 'design_not_found');
    });
    it('Idempotency-Key on POST /v1/sampling', async () => {
      const h = { 'idempotency-key': 'design-1' };
      const a = await s.call('POST', '/v1/sampling', {
        key: member,
        headers: h,
        body: { ...DESIGN, projectId: 'did:example:idem' },
      });
      const b = await s.call('POST', '/v1/sampling', {
        key: member,
        headers: h,
        body: { ...DESIGN, projectId: 'did:example:idem' },
      });
      expect(b.status).toBe(201);
      expect(b.body.designId).toBe(a.body.designId);
      expect(b.headers.get('location')).toBe(a.headers.get('location'));
      expectError(
        await s.call('POST', '/v1/sampling', {
          key: member,
          headers: h,
          body: { ...DESIGN, population: 999, projectId: 'did:example:idem' },
        }),
        409,
        'idempotency_conflict',
      );
      // keys are per principal: another caller may use the same key
      expect(
        (
          await s.call('POST', '/v1/sampling', {
            key: alice,
            headers: h,
            body: { ...DESIGN, projectId: 'did:example:idem' },
          })
        ).body.designId,
      ).not.toBe(a.body.designId);
    });
    it('sampling errors pass through with their codes and statuses', async () => {
      const pid = 'did:example:p';
      expectError(
        await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, dropoutRate: 15, projectId: pid } }),
        400,
        'invalid_dropout',
      );
      expectError(
        await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, confidence: 0.9, projectId: pid } }),
        400,
        'confidence_must_be_0.95',
      );
      expectError(
        await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, dropout: 0.1, projectId: pid } }),
        400,
        'unknown_field',
      );
      expectError(
        await s.call('POST', '/v1/sampling', {
          key: member,
          body: {
            ...DESIGN,
            projectId: pid,
            stratification: {
              enabled: true,
              strata: [
                { name: 'a', weight: 0.5 },
                { name: 'b', weight: 0.4 },
              ],
            },
          },
        }),
        409,
        'weights_do_not_sum_to_1',
      );
      expectError(
        await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, population: 10, projectId: pid } }),
        422,
        'insufficient_population',
      );
      expectError(await s.call('POST', '/v1/sampling', { key: member, body: DESIGN }), 400, 'missing_field');
      expectError(await s.call('POST', '/v1/sampling', { key: member, raw: '[1,2]' }), 400, 'invalid_body');
    });
    it('recalculation makes a linked version; the size moves up or down', async () => {
      const a = (await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, projectId: 'did:example:r' } }))
        .body;
      const b = await s.call('POST', `/v1/sampling/${a.designId}/recalculations`, {
        key: member,
        body: { period: '2026-Q1', observedMean: 2, observedSD: 0.5 },
      });
      expect(b.status).toBe(201);
      expect(b.body).toMatchObject({
        version: 2,
        previousDesignId: a.designId,
        change: { direction: 'down', period: '2026-Q1' },
      });
      expect(b.body.parameters.adjustedSize).toBeLessThan(a.parameters.adjustedSize);
      const c = await s.call('POST', `/v1/sampling/${b.body.designId}/recalculations`, {
        key: member,
        body: { observedSD: 1.5 },
      });
      expect(c.body.change.direction).toBe('up');
      expectError(
        await s.call('POST', `/v1/sampling/${a.designId}/recalculations`, { key: member, body: { observedSD: 1 } }),
        409,
        'invalid_state',
      );
      expectError(
        await s.call('POST', `/v1/sampling/${b.body.designId}/recalculations`, {
          key: member,
          body: { observedSD: 1, foo: 1 },
        }),
        400,
        'unknown_field',
      );
      expectError(
        await s.call('POST', `/v1/sampling/${c.body.designId}/recalculations`, {
          key: member,
          body: { observedSD: -1 },
        }),
        400,
        'invalid_sd',
      );
      expect((await s.call('GET', `/v1/sampling/${a.designId}`, { key: member })).body.parameters).toEqual(
        a.parameters,
      );
    });
    it('verification: verifier role; project must be eligible when known; approved is immutable', async () => {
      const dom = await project();
      const d = (await s.call('POST', '/v1/sampling', { key: alice, body: { ...DESIGN, projectId: dom.id } })).body;
      expectError(
        await s.call('POST', `/v1/sampling/${d.designId}/verification`, { key: member, body: { status: 'approved' } }),
        403,
        'forbidden_role',
      );
      expectError(
        await s.call('POST', `/v1/sampling/${d.designId}/verification`, { key: member, body: { status: 'submitted' } }),
        403,
        'not_controller',
      );
      expectError(
        await s.call('POST', `/v1/sampling/${d.designId}/verification`, { key: verifier, body: { status: 'approve' } }),
        400,
        'invalid_body',
      );
      const sub = await s.call('POST', `/v1/sampling/${d.designId}/verification`, {
        key: alice,
        body: { status: 'submitted' },
      });
      expect(sub.body.verification.status).toBe('submitted');
      expectError(
        await s.call('POST', `/v1/sampling/${d.designId}/verification`, {
          key: verifier,
          body: { status: 'approved' },
        }),
        409,
        'not_eligible',
      );
      await verify(dom.id);
      const ok = await s.call('POST', `/v1/sampling/${d.designId}/verification`, {
        key: verifier,
        body: { status: 'approved' },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.verification).toMatchObject({ status: 'approved', verifier: 'did:example:verifier' });
      expect(ok.body.verification.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expectError(
        await s.call('POST', `/v1/sampling/${d.designId}/verification`, {
          key: verifier,
          body: { status: 'rejected' },
        }),
        409,
        'design_immutable',
      );
      const v2d = await s.call('POST', `/v1/sampling/${d.designId}/recalculations`, {
        key: alice,
        body: { observedSD: 0.9 },
      });
      expect(v2d.body.verification.status).toBe('draft');
      // a project the registry does not know: approval needs nothing more
      const e = (
        await s.call('POST', '/v1/sampling', { key: member, body: { ...DESIGN, projectId: 'did:example:unknown' } })
      ).body;
      expect(
        (
          await s.call('POST', `/v1/sampling/${e.designId}/verification`, {
            key: verifier,
            body: { status: 'rejected', reason: 'pilot SD' },
          })
        ).body.verification,
      ).toMatchObject({ status: 'rejected', reason: 'pilot SD' });
    });
  });

  async function verify(did: string): Promise<void> {
    const p = await s.call('POST', `/v1/domains/${did}/verification-proposals`, { key: alice, body: { package: PKG } });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const r1 = await s.call('POST', `/v1/proposals/${p.body.id}/votes`, { key: v1, body: { option: 'yes' } });
    expect(r1.body.status).toBe('open'); // weight 2 of 4: a veto of the other 2 could still win
    const r = await s.call('POST', `/v1/proposals/${p.body.id}/votes`, { key: v2, body: { option: 'yes' } });
    expect(r.body.status).toBe('executed');
  }

  describe('domains: create', () => {
    it('server-assigned did:ixo:entity:, caller added to controllers, derived fields, ETag', async () => {
      const r = await s.call('POST', '/v1/domains', {
        key: alice,
        body: { type: 'Project', protocol, controllers: [BOB], metadata: { name: 'x' } },
      });
      expect(r.status).toBe(201);
      expect(r.body.id).toMatch(/^did:ixo:entity:[0-9a-f]{32}$/);
      expect(r.body).toMatchObject({
        class: protocol,
        controllers: [ALICE, BOB],
        state: 'registered',
        version: 1,
        active: true,
        eligible: false,
      });
      expect(r.headers.get('etag')).toBe('"1"');
      expect(r.headers.get('location')).toBe(`/v1/domains/${r.body.id}`);
    });
    it('type: required, exact case', async () => {
      expectError(await s.call('POST', '/v1/domains', { key: alice, body: { class: protocol } }), 400, 'missing_field');
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'project', class: protocol } }),
        400,
        'invalid_type',
      );
    });
    it('class: required except Protocol, a live Protocol, alias protocol', async () => {
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project' } }),
        400,
        'class_required',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Project', class: 'did:ixo:entity:' + 'f'.repeat(32) },
        }),
        422,
        'unknown_protocol',
      );
      const proj = await project();
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project', class: proj.id } }),
        422,
        'unknown_protocol',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Project', class: protocol, protocol: proj.id },
        }),
        400,
        'class_protocol_mismatch',
      );
      expect(
        (await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project', class: protocol, protocol } }))
          .status,
      ).toBe(201);
      const old = (await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol' } })).body;
      await s.call('POST', `/v1/domains/${old.id}/deactivate`, { key: alice });
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project', class: old.id } }),
        422,
        'unknown_protocol',
      );
      const future = (
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Protocol', validFrom: '2999-01-01T00:00:00Z' },
        })
      ).body;
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Project', class: future.id } }),
        422,
        'unknown_protocol',
      );
    });
    it('controllers: 1–16, unique, DIDs', async () => {
      const many = Array.from({ length: 16 }, (_, i) => `did:example:c${i}`);
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', controllers: many } }),
        400,
        'invalid_controllers',
      );
      expect(
        (
          await s.call('POST', '/v1/domains', {
            key: alice,
            body: { type: 'Protocol', controllers: [ALICE, ...many.slice(0, 15)] },
          })
        ).status,
      ).toBe(201);
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', controllers: [BOB, BOB] } }),
        400,
        'invalid_controllers',
      );
    });
    it('metadata: object, <= 16 KiB, depth <= 8, no __proto__/constructor', async () => {
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', metadata: [] } }),
        400,
        'invalid_body',
      );
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Protocol', metadata: { big: 'x'.repeat(17_000) } },
        }),
        400,
        'invalid_metadata',
      );
      let deep: any = { leaf: 1 };
      for (let i = 0; i < 8; i++) deep = { d: deep };
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', metadata: deep } }),
        400,
        'invalid_metadata',
      );
      expect(
        (await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', metadata: deep.d } })).status,
      ).toBe(201);
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Protocol', metadata: { a: [{ prototype: 1 }] } },
        }),
        400,
        'invalid_metadata',
      );
    });
    it('services: http(s) only, no credentials, oracle #api/#ws type, unique ids', async () => {
      const svc = (x: any) =>
        s.call('POST', '/v1/domains', { key: alice, body: { type: 'Oracle', class: protocol, services: [x] } });
      expect(
        (await svc({ id: '#api', type: 'oracleService', serviceEndpoint: 'https://oracle.example.org/api' })).status,
      ).toBe(201);
      expectError(
        await svc({ id: '#api', type: 'oracleService', serviceEndpoint: 'ftp://oracle.example.org' }),
        400,
        'invalid_service',
      );
      expectError(
        await svc({ id: '#api', type: 'oracleService', serviceEndpoint: 'https://u:p@oracle.example.org' }),
        400,
        'invalid_service',
      );
      expectError(
        await svc({ id: '#api', type: 'oracleService', serviceEndpoint: 'javascript:alert(1)' }),
        400,
        'invalid_service',
      );
      expectError(
        await svc({ id: '#api', type: 'web', serviceEndpoint: 'https://oracle.example.org' }),
        400,
        'invalid_service',
      );
      expectError(
        await svc({ id: '#api', type: 'oracleService', serviceEndpoint: 'https://o.org', extra: 1 }),
        400,
        'unknown_field',
      );
      const dup = { id: '#ws', type: 'oracleService', serviceEndpoint: 'https://o.org' };
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Oracle', class: protocol, services: [dup, dup] },
        }),
        400,
        'invalid_service',
      );
    });
    it('dates: RFC 3339 with a zone, in order, validUntil not past', async () => {
      const d = (b: any) => s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', ...b } });
      expectError(await d({ validFrom: '2026-01-01T00:00:00' }), 400, 'invalid_date');
      expectError(await d({ validFrom: '2026-01-01' }), 400, 'invalid_date');
      expectError(await d({ validUntil: '2031-02-30T00:00:00Z' }), 400, 'invalid_date');
      expectError(
        await d({ validFrom: '2031-01-02T00:00:00Z', validUntil: '2031-01-01T00:00:00Z' }),
        422,
        'dates_out_of_order',
      );
      expectError(
        await d({ validFrom: '2031-01-01T00:00:00Z', validUntil: '2031-01-01T00:00:00Z' }),
        422,
        'dates_out_of_order',
      );
      expectError(await d({ validUntil: '2001-01-01T00:00:00Z' }), 422, 'valid_until_past');
      expect(
        (await d({ validFrom: '2020-01-01T00:00:00+02:00', validUntil: '2099-01-01T00:00:00.5-05:00' })).status,
      ).toBe(201);
    });
    it('unknown fields → 400', async () => {
      expectError(
        await s.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', Type: 'Protocol' } }),
        400,
        'unknown_field',
      );
    });
    it('alsoKnownAs unique per class among live domains', async () => {
      const a = await project({ alsoKnownAs: 'KE-001' });
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          body: { type: 'Project', class: protocol, alsoKnownAs: 'KE-001' },
        }),
        409,
        'duplicate_also_known_as',
      );
      await s.call('POST', `/v1/domains/${a.id}/deactivate`, { key: alice });
      expect(
        (
          await s.call('POST', '/v1/domains', {
            key: alice,
            body: { type: 'Project', class: protocol, alsoKnownAs: 'KE-001' },
          })
        ).status,
      ).toBe(201);
    });
    it('Idempotency-Key: same body → same reply; other body → 409', async () => {
      const h = { 'idempotency-key': 'create-42' };
      const a = await s.call('POST', '/v1/domains', {
        key: alice,
        headers: h,
        body: { type: 'Protocol', metadata: { name: 'i' } },
      });
      const b = await s.call('POST', '/v1/domains', {
        key: alice,
        headers: h,
        body: { metadata: { name: 'i' }, type: 'Protocol' },
      });
      expect(b.status).toBe(201);
      expect(b.body).toEqual(a.body);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expectError(
        await s.call('POST', '/v1/domains', {
          key: alice,
          headers: h,
          body: { type: 'Protocol', metadata: { name: 'j' } },
        }),
        409,
        'idempotency_conflict',
      );
    });
  });

  describe('domains: read, list, patch, deactivate', () => {
    it('list with filters and cursors', async () => {
      const mine = await s.call('GET', `/v1/domains?controller=${encodeURIComponent(BOB)}&limit=200`, { key: alice });
      expect(mine.body.items.every((d: any) => d.controllers.includes(BOB))).toBe(true);
      const all: string[] = [];
      let cursor = '';
      for (let i = 0; i < 50; i++) {
        const r = await s.call('GET', `/v1/domains?type=Protocol&limit=3${cursor ? `&cursor=${cursor}` : ''}`, {
          key: alice,
        });
        expect(r.body.items.every((d: any) => d.type === 'Protocol')).toBe(true);
        all.push(...r.body.items.map((d: any) => d.id));
        if (!r.body.nextCursor) break;
        cursor = r.body.nextCursor;
      }
      expect(new Set(all).size).toBe(all.length);
      expect(all).toContain(protocol);
      const byClass = await s.call('GET', `/v1/domains?class=${encodeURIComponent(protocol)}&status=registered&q=P`, {
        key: alice,
      });
      expect(byClass.body.items.length).toBeGreaterThan(0);
      expectError(await s.call('GET', '/v1/domains?status=alive', { key: alice }), 400, 'invalid_query');
      expectError(await s.call('GET', '/v1/domains?type=project', { key: alice }), 400, 'invalid_query');
      expectError(await s.call('GET', '/v1/domains?controller=did:bad:', { key: alice }), 400, 'invalid_did');
      expectError(await s.call('GET', '/v1/domains?sort=x', { key: alice }), 400, 'unknown_field');
    });
    it('PATCH: controllers only, If-Match, 412 stale, verified → registered on services change', async () => {
      const d = await project();
      const url = `/v1/domains/${d.id}`;
      expectError(
        await s.call('PATCH', url, { key: bob, headers: { 'if-match': '"1"' }, body: { metadata: { name: 'n' } } }),
        403,
        'not_controller',
      );
      expectError(
        await s.call('PATCH', url, { key: alice, body: { metadata: { name: 'n' } } }),
        428,
        'if_match_required',
      );
      expectError(
        await s.call('PATCH', url, { key: alice, headers: { 'if-match': '"7"' }, body: { metadata: { name: 'n' } } }),
        412,
        'stale_version',
      );
      expectError(
        await s.call('PATCH', url, {
          key: alice,
          headers: { 'if-match': 'nonsense' },
          body: { metadata: { name: 'n' } },
        }),
        400,
        'invalid_header',
      );
      expectError(
        await s.call('PATCH', url, { key: alice, headers: { 'if-match': '"1"' }, body: { nick: 'n' } }),
        400,
        'unknown_field',
      );
      expectError(
        await s.call('PATCH', url, {
          key: alice,
          headers: { 'if-match': '"1"' },
          body: { validUntil: '2000-01-01T00:00:00Z' },
        }),
        422,
        'valid_until_past',
      );
      const ok = await s.call('PATCH', url, {
        key: alice,
        headers: { 'if-match': '"1"' },
        body: { metadata: { name: 'n' } },
      });
      expect(ok.body).toMatchObject({ version: 2, metadata: { name: 'n' } });
      expect(ok.headers.get('etag')).toBe('"2"');
      await verify(d.id);
      const v = (await s.call('GET', url, { key: alice })).body;
      expect(v).toMatchObject({ state: 'verified', eligible: true });
      const meta = await s.call('PATCH', url, {
        key: alice,
        headers: { 'if-match': `"${v.version}"` },
        body: { metadata: { name: 'still verified' } },
      });
      expect(meta.body.state).toBe('verified');
      const svc = await s.call('PATCH', url, {
        key: alice,
        headers: { 'if-match': `"${meta.body.version}"` },
        body: { services: [{ id: '#web', type: 'website', serviceEndpoint: 'https://p.example.org' }] },
      });
      expect(svc.body).toMatchObject({ state: 'registered', eligible: false });
    });
    it('deactivate: terminal, controllers (or admin), cancels the open proposal', async () => {
      const d = await project();
      const p = await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, {
        key: alice,
        body: { package: PKG },
      });
      expectError(await s.call('POST', `/v1/domains/${d.id}/deactivate`, { key: bob }), 403, 'not_controller');
      const r = await s.call('POST', `/v1/domains/${d.id}/deactivate`, { key: alice });
      expect(r.body).toMatchObject({ state: 'deactivated', active: false, eligible: false });
      expect((await s.call('GET', `/v1/proposals/${p.body.id}`, { key: v1 })).body.status).toBe('cancelled');
      expectError(await s.call('POST', `/v1/domains/${d.id}/deactivate`, { key: alice }), 409, 'domain_deactivated');
      expectError(
        await s.call('PATCH', `/v1/domains/${d.id}`, {
          key: alice,
          headers: { 'if-match': `"${r.body.version}"` },
          body: { metadata: {} },
        }),
        409,
        'domain_deactivated',
      );
      expectError(
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } }),
        409,
        'domain_deactivated',
      );
      expectError(
        await s.call('POST', `/v1/proposals/${p.body.id}/votes`, { key: v1, body: { option: 'yes' } }),
        409,
        'proposal_closed',
      );
    });
  });

  describe('verification proposals and votes', () => {
    it('who may propose; one open proposal; package checked', async () => {
      const d = await project();
      const url = `/v1/domains/${d.id}/verification-proposals`;
      expectError(await s.call('POST', url, { key: member, body: { package: PKG } }), 403, 'forbidden_role');
      expectError(await s.call('POST', url, { key: bob, body: { package: PKG } }), 403, 'not_controller');
      expectError(await s.call('POST', url, { key: alice, body: {} }), 400, 'invalid_body');
      expectError(
        await s.call('POST', url, {
          key: alice,
          body: { package: { documents: [{ url: 'https://x.org', hash: 'md5:abc' }] } },
        }),
        400,
        'invalid_package',
      );
      expectError(
        await s.call('POST', url, {
          key: alice,
          body: { package: { documents: [{ url: 'file:///etc/passwd', hash: PKG.documents[0]!.hash }] } },
        }),
        400,
        'invalid_package',
      );
      const p = await s.call('POST', url, { key: alice, body: { package: PKG, description: 'entity docs' } });
      expect(p.status).toBe(201);
      expect(p.body).toMatchObject({
        status: 'open',
        snapshot: [
          { did: V1, weight: 2 },
          { did: V2, weight: 1 },
          { did: V3, weight: 1 },
        ],
        rule: { rule: 'threshold_quorum' },
      });
      expect((await s.call('GET', `/v1/domains/${d.id}`, { key: alice })).body.state).toBe('pending_verification');
      expectError(await s.call('POST', url, { key: alice, body: { package: PKG } }), 409, 'proposal_open');
      expectError(
        await s.call('POST', '/v1/domains/' + protocol + '/verification-proposals', {
          key: bob,
          body: { package: PKG },
        }),
        403,
        'not_controller',
      );
    });
    it('votes: role, snapshot, twice, option, unknown proposal', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      const url = `/v1/proposals/${p.id}/votes`;
      expectError(await s.call('POST', url, { key: member, body: { option: 'yes' } }), 403, 'forbidden_role');
      expectError(await s.call('POST', url, { key: outsider, body: { option: 'yes' } }), 403, 'not_in_snapshot');
      expectError(await s.call('POST', url, { key: v2, body: { option: 'maybe' } }), 400, 'invalid_body');
      const r = await s.call('POST', url, { key: v2, body: { option: 'no' } });
      expect(r.body).toMatchObject({ status: 'open', tally: { no: '1', voted: 1 } });
      expectError(await s.call('POST', url, { key: v2, body: { option: 'yes' } }), 409, 'already_voted');
      expectError(
        await s.call('POST', '/v1/proposals/prp_00000000000000000000/votes', { key: v2, body: { option: 'yes' } }),
        404,
        'proposal_not_found',
      );
      expectError(await s.call('GET', '/v1/proposals/nope', { key: v2 }), 404, 'proposal_not_found');
    });
    it('a read domain turns active at validFrom and inactive at validUntil (the cached view follows the clock)', async () => {
      const from = Date.now() + 60_000;
      const until = from + 60_000;
      const d = await project({ validFrom: new Date(from).toISOString(), validUntil: new Date(until).toISOString() });
      const read = async () => (await s.call('GET', `/v1/domains/${d.id}`, { key: alice })).body;
      const real = s.registry.now;
      try {
        expect(await read()).toMatchObject({ id: d.id, active: false, eligible: false });
        expect(await read()).toMatchObject({ active: false }); // from the cache
        s.registry.now = () => from - 1;
        expect((await read()).active).toBe(false);
        s.registry.now = () => from;
        expect((await read()).active).toBe(true);
        s.registry.now = () => until - 1;
        expect((await read()).active).toBe(true);
        s.registry.now = () => until;
        expect((await read()).active).toBe(false);
      } finally {
        s.registry.now = real;
      }
    });
    it('voting after the deadline → 409; the proposal settles as expired on read', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      const real = s.registry.now;
      s.registry.now = () => Date.parse(p.deadline) + 1;
      try {
        expectError(
          await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v1, body: { option: 'yes' } }),
          409,
          'proposal_closed',
        );
        expect((await s.call('GET', `/v1/proposals/${p.id}`, { key: v1 })).body.status).toBe('expired');
        expect((await s.call('GET', `/v1/domains/${d.id}`, { key: v1 })).body.state).toBe('verification_rejected');
      } finally {
        s.registry.now = real;
      }
      // verification_rejected → a new proposal may be made
      expect(
        (await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } }))
          .status,
      ).toBe(201);
    });
    it('veto closes early as vetoed; terminal states never change', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      const r = await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v1, body: { option: 'veto' } });
      expect(r.body.status).toBe('vetoed');
      expect((await s.call('GET', `/v1/domains/${d.id}`, { key: v1 })).body.state).toBe('verification_rejected');
      expectError(
        await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v2, body: { option: 'yes' } }),
        409,
        'proposal_closed',
      );
      const real = s.registry.now;
      s.registry.now = () => Date.parse(p.deadline) + 1000;
      try {
        expect((await s.call('GET', `/v1/proposals/${p.id}`, { key: v1 })).body.status).toBe('vetoed');
      } finally {
        s.registry.now = real;
      }
    });
    it('a tie fails: yes = no + veto at the deadline → rejected', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v2, body: { option: 'yes' } });
      const r = await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v3, body: { option: 'no' } });
      expect(r.body.status).toBe('open'); // v1 (weight 2) could still decide
      const real = s.registry.now;
      s.registry.now = () => Date.parse(p.deadline);
      try {
        expect((await s.call('GET', `/v1/proposals/${p.id}`, { key: v1 })).body.status).toBe('rejected');
      } finally {
        s.registry.now = real;
      }
    });
    it('revoting on: a second vote replaces the first; closes only at the deadline', async () => {
      const t = await start({
        voters: [{ did: V1 }, { did: V2 }],
        revoting: true,
        tally: { rule: 'absolute_count', k: 2 },
      });
      try {
        const a = await t.key(ALICE, 'representative');
        const k1 = await t.key(V1, 'voter');
        const k2 = await t.key(V2, 'voter');
        const proto = (await t.call('POST', '/v1/domains', { key: a, body: { type: 'Protocol' } })).body;
        const p = (
          await t.call('POST', `/v1/domains/${proto.id}/verification-proposals`, { key: a, body: { package: PKG } })
        ).body;
        expect(p.rule).toEqual({ rule: 'absolute_count', k: 2 });
        await t.call('POST', `/v1/proposals/${p.id}/votes`, { key: k1, body: { option: 'no' } });
        const r = await t.call('POST', `/v1/proposals/${p.id}/votes`, { key: k1, body: { option: 'yes' } });
        expect(r.status).toBe(200);
        expect(r.body.tally).toMatchObject({ yes: '1', no: '0', voted: 1 });
        const r2 = await t.call('POST', `/v1/proposals/${p.id}/votes`, { key: k2, body: { option: 'yes' } });
        expect(r2.body.status).toBe('open');
        t.registry.now = () => Date.parse(p.deadline);
        expect((await t.call('GET', `/v1/proposals/${p.id}`, { key: k1 })).body.status).toBe('executed');
        expect((await t.call('GET', `/v1/domains/${proto.id}`, { key: k1 })).body).toMatchObject({
          state: 'verified',
          eligible: true,
        });
      } finally {
        await t.close();
      }
    });
    it('changing type, class, controllers or services while pending cancels the proposal (registered again)', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      const cur = (await s.call('GET', `/v1/domains/${d.id}`, { key: alice })).body;
      const meta = await s.call('PATCH', `/v1/domains/${d.id}`, {
        key: alice,
        headers: { 'if-match': `"${cur.version}"` },
        body: { metadata: { name: 'renamed' } },
      });
      expect(meta.body.state).toBe('pending_verification');
      const ctl = await s.call('PATCH', `/v1/domains/${d.id}`, {
        key: alice,
        headers: { 'if-match': `"${meta.body.version}"` },
        body: { controllers: [ALICE, BOB] },
      });
      expect(ctl.body.state).toBe('registered');
      expect((await s.call('GET', `/v1/proposals/${p.id}`, { key: v1 })).body.status).toBe('cancelled');
    });
    it('a verified domain cannot be proposed again until it changes', async () => {
      const d = await project();
      await verify(d.id);
      expectError(
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } }),
        409,
        'invalid_state',
      );
    });
    it('the snapshot is fixed when the proposal is made: later voter-list changes do not apply', async () => {
      const d = await project();
      const p = (
        await s.call('POST', `/v1/domains/${d.id}/verification-proposals`, { key: alice, body: { package: PKG } })
      ).body;
      const before = s.registry.config.voters;
      s.registry.config.voters = [{ did: OUTSIDER, weight: 10 }];
      try {
        expectError(
          await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: outsider, body: { option: 'yes' } }),
          403,
          'not_in_snapshot',
        );
        const r = await s.call('POST', `/v1/proposals/${p.id}/votes`, { key: v3, body: { option: 'abstain' } });
        expect(r.status).toBe(200);
        expect(r.body.snapshot).toHaveLength(3);
      } finally {
        s.registry.config.voters = before;
      }
    });
    it('no voters configured → 409 no_voters', async () => {
      const t = await start({});
      try {
        const a = await t.key(ALICE, 'representative');
        const proto = (await t.call('POST', '/v1/domains', { key: a, body: { type: 'Protocol' } })).body;
        expectError(
          await t.call('POST', `/v1/domains/${proto.id}/verification-proposals`, { key: a, body: { package: PKG } }),
          409,
          'no_voters',
        );
        expect((await t.call('GET', `/v1/domains/${proto.id}`, { key: a })).body.state).toBe('registered');
      } finally {
        await t.close();
      }
    });
  });
});
