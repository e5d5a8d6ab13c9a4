/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document and the JSON replies are walked field by field */
/**
 * The reply side of /docs/json: every /v1 and /admin/v1 route documents its
 * success reply (200 or 201, as it really replies) and the one error body for
 * 4xx; the live replies of the routes parse with the zod schemas the document
 * is made from; and those schemas are documentation only — the registry's
 * replies leave as plain JSON.stringify, while the daemon's root scope (and so
 * a plugin mounted beside /v1) keeps zod's serializer.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as S from '../../../src/daemon/http/schemas.ts';
import { buildServer } from '../../../src/daemon/server.ts';
import { Registry } from '../../../src/daemon/registry/index.ts';
import type { DesignRecord } from '../../../src/lib/registry/types.ts';
import { openStorage } from '../../../src/storage/open.ts';
import { REGISTRY_MIGRATIONS } from '../../../src/daemon/registry/migrations.ts';
import { parseConfig } from '../../../src/daemon/config.ts';
import { PKG, startInProcess, tempHome, type InProcess } from './harness.ts';

const V1 = 'did:example:voter1';
const V2 = 'did:example:voter2';

/**
 * Every registry route: its success status, the schema of that reply, and the fields /docs/json must show as required.
 */
const ROUTES: Record<string, { status: 200 | 201; schema: z.ZodType; fields: string[] }> = {
  'POST /v1/sampling': {
    status: 201,
    schema: S.designRecord,
    fields: [
      'designId',
      'projectId',
      'version',
      'parameters.calculatedSize',
      'parameters.adjustedSize',
      'stratification.strata[].sampleSize',
      'verification.status',
      'createdAt',
    ],
  },
  'GET /v1/sampling': {
    status: 200,
    schema: S.designPage,
    fields: ['items[].designId', 'items[].parameters', 'nextCursor'],
  },
  'GET /v1/sampling/{designId}': {
    status: 200,
    schema: S.designRecord,
    fields: ['designId', 'parameters', 'verification'],
  },
  'POST /v1/sampling/{designId}/recalculations': {
    status: 201,
    schema: S.designRecord,
    fields: ['designId', 'previousDesignId', 'version', 'parameters'],
  },
  'POST /v1/sampling/{designId}/verification': {
    status: 200,
    schema: S.designRecord,
    fields: ['designId', 'verification.status', 'verification.verifier', 'verification.timestamp'],
  },
  'POST /v1/domains': {
    status: 201,
    schema: S.domainView,
    fields: ['id', 'type', 'state', 'version', 'active', 'eligible'],
  },
  'GET /v1/domains': {
    status: 200,
    schema: S.domainPage,
    fields: ['items[].id', 'items[].state', 'items[].eligible', 'nextCursor'],
  },
  'GET /v1/domains/{did}': {
    status: 200,
    schema: S.domainView,
    fields: [
      'id',
      'type',
      'class',
      'controllers',
      'services[].serviceEndpoint',
      'state',
      'version',
      'active',
      'eligible',
    ],
  },
  'PATCH /v1/domains/{did}': { status: 200, schema: S.domainView, fields: ['id', 'state', 'version'] },
  'POST /v1/domains/{did}/deactivate': {
    status: 200,
    schema: S.domainView,
    fields: ['id', 'state', 'deactivatedAt', 'active'],
  },
  'POST /v1/domains/{did}/verification-proposals': {
    status: 201,
    schema: S.proposalView,
    fields: ['id', 'domainId', 'status', 'rule', 'snapshot[].weight', 'tally.totalWeight', 'deadline'],
  },
  'GET /v1/domains/{did}/verification-proposals': {
    status: 200,
    schema: S.domainProposal,
    fields: ['domain.id', 'domain.state', 'proposal.id', 'proposal.status'],
  },
  'GET /v1/proposals/{id}': {
    status: 200,
    schema: S.proposalView,
    fields: ['id', 'status', 'outcome', 'rule', 'tally.yes', 'tally.voted', 'deadline', 'closedAt'],
  },
  'POST /v1/proposals/{id}/votes': { status: 200, schema: S.proposalView, fields: ['id', 'status', 'tally.voted'] },
  'POST /admin/v1/keys': { status: 201, schema: S.keyCreated, fields: ['id', 'key', 'did', 'roles'] },
  'GET /admin/v1/keys': {
    status: 200,
    schema: S.keyList,
    fields: ['items[].id', 'items[].prefix', 'items[].roles', 'items[].revokedAt'],
  },
  'POST /admin/v1/keys/{id}/revoke': { status: 200, schema: S.keyRevoked, fields: ['id', 'revokedAt'] },
};

/** Whether a JSON schema shows `path` (a.b, a[].b) as a required property; a nullable object is looked into. */
function documented(schema: any, path: string): boolean {
  let cur = schema;
  for (const part of path.split('.')) {
    const arr = part.endsWith('[]');
    const name = arr ? part.slice(0, -2) : part;
    if (cur?.anyOf) cur = cur.anyOf.find((b: any) => b.type === 'object') ?? cur;
    if (!cur?.properties?.[name] || !cur.required?.includes(name)) return false;
    cur = cur.properties[name];
    if (arr) {
      if (cur.type !== 'array') return false;
      cur = cur.items;
    }
  }
  return true;
}

let s: InProcess;
let admin: string;
let verifier: string;
let v1: string;
let v2: string;

beforeAll(async () => {
  s = await startInProcess({
    voters: [
      { did: V1, weight: 2 },
      { did: V2, weight: 1 },
      { did: 'did:example:voter3', weight: 1 },
    ],
    proposalDurationSeconds: 3600,
  });
  admin = await s.key('did:example:alice', 'admin', 'representative');
  verifier = await s.key('did:example:verifier', 'verifier');
  v1 = await s.key(V1, 'voter');
  v2 = await s.key(V2, 'voter');
});
afterAll(async () => s?.close());

describe('/docs/json documents the replies', () => {
  it('every /v1 and /admin/v1 route: its success reply with the main fields, and the error body for 4xx', async () => {
    const doc = (await s.call('GET', '/docs/json')).body;
    const ops: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/v1/') && !path.startsWith('/admin/v1/')) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        const route = `${method.toUpperCase()} ${path}`;
        ops.push(route);
        const want = ROUTES[route];
        expect(want, `${route} is not in ROUTES`).toBeDefined();
        expect(Object.keys(op.responses).sort(), route).toEqual([String(want!.status), '4XX']);
        const ok = op.responses[String(want!.status)];
        expect(ok.description, route).not.toBe('Default Response');
        const schema = ok.content['application/json'].schema;
        for (const f of want!.fields)
          expect(documented(schema, f), `${route} ${want!.status} documents ${f}`).toBe(true);
        const err = op.responses['4XX'].content['application/json'].schema;
        expect(err.required, route).toEqual(['statusCode', 'code', 'message']);
        expect(Object.keys(err.properties), route).toEqual(['statusCode', 'code', 'message', 'field', 'details']);
      }
    }
    expect(ops.sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it('the schemas say what the values are', async () => {
    const doc = (await s.call('GET', '/docs/json')).body;
    const domain = doc.paths['/v1/domains/{did}'].get.responses['200'].content['application/json'].schema;
    expect(domain.properties.state.enum).toEqual([
      'registered',
      'pending_verification',
      'verified',
      'verification_rejected',
      'deactivated',
    ]);
    expect(domain.properties.eligible.description).toMatch(/verified and active/);
    const design = doc.paths['/v1/sampling'].post.responses['201'].content['application/json'].schema;
    expect(design.properties.verification.properties.status.enum).toEqual([
      'draft',
      'submitted',
      'approved',
      'rejected',
    ]);
    const proposal = doc.paths['/v1/proposals/{id}'].get.responses['200'].content['application/json'].schema;
    expect(proposal.properties.rule.oneOf.map((r: any) => r.properties.rule.enum[0])).toEqual([
      'threshold_quorum',
      'absolute_count',
      'absolute_percentage',
    ]);
  });
});

describe('live replies match their documented schema', () => {
  /** The reply has the route's documented status and parses with its schema, nothing added, nothing left out. */
  function conforms(route: string, r: { status: number; body: any }): any {
    const want = ROUTES[route]!;
    expect(r.status, `${route}: ${JSON.stringify(r.body)}`).toBe(want.status);
    expect(want.schema.parse(r.body), route).toEqual(r.body);
    return r.body;
  }
  const error = (r: { status: number; body: any }, status: number) => {
    expect(r.status).toBe(status);
    expect(S.errorBody.parse(r.body)).toEqual(r.body);
  };

  it('domains, proposals and votes, sample designs, keys — and errors', async () => {
    const call = (method: string, path: string, body?: unknown, key = admin, headers?: Record<string, string>) =>
      s.call(method, path, { key, body, headers });
    const protocol = conforms(
      'POST /v1/domains',
      await call('POST', '/v1/domains', { type: 'Protocol', metadata: { name: 'Cookstoves' } }),
    );
    const project = conforms(
      'POST /v1/domains',
      await call('POST', '/v1/domains', {
        type: 'Project',
        class: protocol.id,
        metadata: { name: 'P', region: { country: 'KE' } },
        services: [{ id: '#api', type: 'web', serviceEndpoint: 'https://p.example.org' }],
        validFrom: '2020-01-01T00:00:00Z',
        alsoKnownAs: 'KE-7',
      }),
    );
    conforms('GET /v1/domains/{did}', await call('GET', `/v1/domains/${project.id}`));
    conforms('GET /v1/domains', await call('GET', '/v1/domains?limit=1'));
    const patched = conforms(
      'PATCH /v1/domains/{did}',
      await call('PATCH', `/v1/domains/${project.id}`, { metadata: { name: 'P2' } }, admin, {
        'if-match': `"${project.version}"`,
      }),
    );
    expect(patched.version).toBe(project.version + 1);

    conforms(
      'GET /v1/domains/{did}/verification-proposals',
      await call('GET', `/v1/domains/${project.id}/verification-proposals`),
    ); // proposal: null
    const p = conforms(
      'POST /v1/domains/{did}/verification-proposals',
      await call('POST', `/v1/domains/${project.id}/verification-proposals`, {
        package: PKG,
        description: 'entity docs',
      }),
    );
    expect(
      conforms(
        'POST /v1/proposals/{id}/votes',
        await call('POST', `/v1/proposals/${p.id}/votes`, { option: 'yes' }, v1),
      ).status,
    ).toBe('open');
    expect(
      conforms(
        'POST /v1/proposals/{id}/votes',
        await call('POST', `/v1/proposals/${p.id}/votes`, { option: 'yes' }, v2),
      ).status,
    ).toBe('executed');
    expect(conforms('GET /v1/proposals/{id}', await call('GET', `/v1/proposals/${p.id}`)).closedAt).toEqual(
      expect.any(String),
    );
    expect(
      conforms(
        'GET /v1/domains/{did}/verification-proposals',
        await call('GET', `/v1/domains/${project.id}/verification-proposals`),
      ).domain.eligible,
    ).toBe(true);

    const plain = conforms(
      'POST /v1/sampling',
      await call('POST', '/v1/sampling', {
        projectId: project.id,
        population: 1000,
        expectedMean: 2,
        expectedSD: 1,
        dropoutRate: 0.1,
      }),
    );
    const strata = {
      enabled: true,
      strata: [
        { name: 'urban', weight: 0.6 },
        { name: 'rural', weight: 0.4 },
      ],
    };
    const designBody = {
      projectId: project.id,
      population: 5000,
      expectedProportion: 0.3,
      dropoutRate: 0.1,
      erCoverage: 0.8,
      stratification: strata,
    };
    const stratified = conforms(
      'POST /v1/sampling',
      await call('POST', '/v1/sampling', designBody, admin, { 'idempotency-key': 'design-1' }),
    );
    expect(stratified.stratification.strata).toHaveLength(2);
    const replay = await call('POST', '/v1/sampling', designBody, admin, { 'idempotency-key': 'design-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    conforms('POST /v1/sampling', replay);
    conforms('GET /v1/sampling/{designId}', await call('GET', `/v1/sampling/${plain.designId}`));
    const v2rec = conforms(
      'POST /v1/sampling/{designId}/recalculations',
      await call('POST', `/v1/sampling/${stratified.designId}/recalculations`, {
        period: '2026-Q1',
        observedProportion: 0.4,
        strata: [{ name: 'urban', mean: 0.5 }],
      }),
    );
    expect(v2rec.change.direction).toEqual(expect.stringMatching(/^(up|down|same)$/));
    conforms(
      'POST /v1/sampling/{designId}/verification',
      await call('POST', `/v1/sampling/${plain.designId}/verification`, { status: 'submitted' }),
    );
    conforms(
      'POST /v1/sampling/{designId}/verification',
      await call('POST', `/v1/sampling/${plain.designId}/verification`, { status: 'approved', reason: 'ok' }, verifier),
    );
    const list = conforms(
      'GET /v1/sampling',
      await call('GET', `/v1/sampling?projectId=${encodeURIComponent(project.id)}&limit=2`),
    );
    expect(list.nextCursor).toEqual(expect.any(String));

    const key = conforms(
      'POST /admin/v1/keys',
      await call('POST', '/admin/v1/keys', { did: 'did:example:new', roles: ['member'], label: 'n' }, 'admin-token'),
    );
    conforms(
      'POST /admin/v1/keys/{id}/revoke',
      await call('POST', `/admin/v1/keys/${key.id}/revoke`, undefined, 'admin-token'),
    );
    conforms('GET /admin/v1/keys', await call('GET', '/admin/v1/keys', undefined, 'admin-token'));
    conforms('POST /v1/domains/{did}/deactivate', await call('POST', `/v1/domains/${project.id}/deactivate`));

    error(await call('GET', `/v1/sampling/${plain.designId}`, undefined, 'ok_nope'), 401);
    error(await call('POST', '/v1/domains', { type: 'Project', nope: 1 }), 400);
    error(await call('GET', '/v1/proposals/prp_00000000000000000000'), 404);
    error(await call('POST', `/v1/domains/${project.id}/deactivate`), 409);
  });

  it('the other tally rules', async () => {
    for (const tally of [
      { rule: 'absolute_count', k: 1 },
      { rule: 'absolute_percentage', p: '50%' },
    ]) {
      const t = await startInProcess({ voters: [{ did: V1, weight: 1 }], tally });
      try {
        const k = await t.key('did:example:rep', 'representative');
        const d = await t.call('POST', '/v1/domains', { key: k, body: { type: 'Protocol' } });
        const p = conforms(
          'POST /v1/domains/{did}/verification-proposals',
          await t.call('POST', `/v1/domains/${d.body.id}/verification-proposals`, { key: k, body: { package: PKG } }),
        );
        expect(p.rule.rule).toBe(tally.rule);
        conforms('GET /v1/proposals/{id}', await t.call('GET', `/v1/proposals/${p.id}`, { key: k }));
      } finally {
        await t.close();
      }
    }
  });
});

describe('serialization', () => {
  it('registry replies are plain JSON.stringify: the reply schemas are not run on them', async () => {
    const rec = (await s.registry.designs.list({})).items[0]!;
    const odd = { ...rec, parameters: 'not an object', extra: [1, 2] } as unknown as DesignRecord;
    const spy = vi.spyOn(s.registry.designs, 'get').mockResolvedValueOnce(odd);
    try {
      const r = await s.call('GET', `/v1/sampling/${rec.designId}`, { key: admin });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(odd); // zod's serializer would have refused it (500)
    } finally {
      spy.mockRestore();
    }
  });

  it("the daemon's root scope keeps zod's serializer for plugins mounted beside /v1", async () => {
    const t = tempHome();
    const config = parseConfig({});
    const db = await openStorage({
      location: join(t.home, 'data/registry.db'),
      migrations: { registry: REGISTRY_MIGRATIONS },
    });
    const mounted = async (f: FastifyInstance) => {
      f.withTypeProvider<ZodTypeProvider>().get(
        '/x',
        { schema: { response: { 200: z.object({ a: z.string() }) } } },
        async () => ({ a: 'kept', b: 'stripped' }),
      );
    };
    const app = await buildServer({
      registry: new Registry(db, config),
      config,
      version: 'test',
      docs: false,
      plugins: [{ plugin: mounted, prefix: '/m' }],
    });
    try {
      const r = await app.inject({ method: 'GET', url: '/m/x' });
      expect(r.json()).toEqual({ a: 'kept' });
    } finally {
      await app.close();
      await db.close();
      t.cleanup();
    }
  });
});
