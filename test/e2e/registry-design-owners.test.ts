/**
 * Through the real daemon process: the designs of a
 * project that is a registered domain are created, recalculated and
 * submitted by its controllers and admins only (403 not_controller for any
 * other key); a design whose projectId is not a registered domain keeps the
 * open rules (any key creates and recalculates, the creator submits).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, spawnDaemon, tempHome, type Spawned } from '../unit/daemon/harness.ts';

const DESIGN = { population: 1000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 };
const t = tempHome({ rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } });
let d: Spawned;
let owner: string; // controller of the project domain
let other: string; // a member key, not a controller
let admin: string;
let verifier: string;
let project: string;

const expectError = (
  r: { status: number; body: { code?: string; statusCode?: number } },
  status: number,
  code: string,
) => {
  expect({ status: r.status, code: r.body.code, statusCode: r.body.statusCode }).toEqual({
    status,
    code,
    statusCode: status,
  });
};

beforeAll(async () => {
  d = await spawnDaemon(t.env, t.home);
  owner = await adminKey(d, 'did:example:owner', 'member', 'representative');
  other = await adminKey(d, 'did:example:other', 'member');
  admin = await adminKey(d, 'did:example:admin', 'admin');
  verifier = await adminKey(d, 'did:example:verifier', 'verifier');
  const proto = (await d.call('POST', '/v1/domains', { key: owner, body: { type: 'Protocol' } })).body.id as string;
  const r = await d.call('POST', '/v1/domains', { key: owner, body: { type: 'Project', class: proto } });
  expect(r.status).toBe(201);
  project = r.body.id;
});
afterAll(async () => {
  d?.child.kill('SIGTERM');
  await new Promise((r) => d?.child.once('exit', r));
  t.cleanup();
});

describe('designs of a registered project', () => {
  it('a key that is not a controller gets 403 not_controller on create, recalculate and submit', async () => {
    const mine = await d.call('POST', '/v1/sampling', { key: owner, body: { ...DESIGN, projectId: project } });
    expect(mine.status).toBe(201);
    const create = await d.call('POST', '/v1/sampling', { key: other, body: { ...DESIGN, projectId: project } });
    expectError(create, 403, 'not_controller');
    expect(create.body).toMatchObject({
      details: { projectId: project, action: 'create', controllers: ['did:example:owner'] },
    });
    expectError(
      await d.call('POST', `/v1/sampling/${mine.body.designId}/recalculations`, {
        key: other,
        body: { observedSD: 0.5 },
      }),
      403,
      'not_controller',
    );
    expectError(
      await d.call('POST', `/v1/sampling/${mine.body.designId}/verification`, {
        key: other,
        body: { status: 'submitted' },
      }),
      403,
      'not_controller',
    );
    // nothing was written by the refused calls: the owner's design is still the latest, and still a draft
    const list = await d.call('GET', `/v1/sampling?projectId=${encodeURIComponent(project)}`, { key: other });
    expect(
      list.body.items.map((x: { designId: string; verification: { status: string } }) => [
        x.designId,
        x.verification.status,
      ]),
    ).toEqual([[mine.body.designId, 'draft']]);
  });

  it('the issue scenario: another key cannot take over the chain, so the owner can still recalculate its own version', async () => {
    const a = (await d.call('POST', '/v1/sampling', { key: owner, body: { ...DESIGN, projectId: project } })).body;
    expectError(
      await d.call('POST', `/v1/sampling/${a.designId}/recalculations`, { key: other, body: { observedSD: 0.4 } }),
      403,
      'not_controller',
    );
    const v2 = await d.call('POST', `/v1/sampling/${a.designId}/recalculations`, {
      key: owner,
      body: { observedSD: 0.8 },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ version: 2, previousDesignId: a.designId, createdBy: 'did:example:owner' });
    const sub = await d.call('POST', `/v1/sampling/${v2.body.designId}/verification`, {
      key: owner,
      body: { status: 'submitted' },
    });
    expect(sub.status).toBe(200);
    expect(sub.body.verification.status).toBe('submitted');
  });

  it('an admin creates, recalculates and submits', async () => {
    const c = await d.call('POST', '/v1/sampling', { key: admin, body: { ...DESIGN, projectId: project } });
    expect(c.status).toBe(201);
    const r = await d.call('POST', `/v1/sampling/${c.body.designId}/recalculations`, {
      key: admin,
      body: { observedSD: 0.7 },
    });
    expect(r.status).toBe(201);
    const s = await d.call('POST', `/v1/sampling/${r.body.designId}/verification`, {
      key: admin,
      body: { status: 'submitted' },
    });
    expect(s.status).toBe(200);
  });

  it('a controller added later may change the designs; one removed may not', async () => {
    const dom = (await d.call('GET', `/v1/domains/${project}`, { key: owner })).body;
    const p = await d.call('PATCH', `/v1/domains/${project}`, {
      key: owner,
      headers: { 'if-match': `"${dom.version}"` },
      body: { controllers: ['did:example:owner', 'did:example:other'] },
    });
    expect(p.status).toBe(200);
    const c = await d.call('POST', '/v1/sampling', { key: other, body: { ...DESIGN, projectId: project } });
    expect(c.status).toBe(201);
    const back = await d.call('PATCH', `/v1/domains/${project}`, {
      key: owner,
      headers: { 'if-match': `"${p.body.version}"` },
      body: { controllers: ['did:example:owner'] },
    });
    expect(back.status).toBe(200);
    expectError(
      await d.call('POST', `/v1/sampling/${c.body.designId}/recalculations`, { key: other, body: { observedSD: 0.6 } }),
      403,
      'not_controller',
    );
    expectError(
      await d.call('POST', `/v1/sampling/${c.body.designId}/verification`, {
        key: other,
        body: { status: 'submitted' },
      }),
      403,
      'not_controller',
    );
  });

  it("approving stays the verifier's (who need not be a controller)", async () => {
    const c = (await d.call('POST', '/v1/sampling', { key: owner, body: { ...DESIGN, projectId: project } })).body;
    const r = await d.call('POST', `/v1/sampling/${c.designId}/verification`, {
      key: verifier,
      body: { status: 'rejected', reason: 'pilot SD' },
    });
    expect(r.status).toBe(200);
    expect(r.body.verification).toMatchObject({ status: 'rejected', verifier: 'did:example:verifier' });
  });
});

describe("designs whose projectId is not a registered domain (today's rules)", () => {
  const projectId = 'did:example:unregistered-project';
  it('any key creates and recalculates; the creator or an admin submits, another key gets 403', async () => {
    const a = await d.call('POST', '/v1/sampling', { key: other, body: { ...DESIGN, projectId } });
    expect(a.status).toBe(201);
    const b = await d.call('POST', `/v1/sampling/${a.body.designId}/recalculations`, {
      key: owner,
      body: { observedSD: 0.5 },
    });
    expect(b.status).toBe(201);
    expect(b.body.createdBy).toBe('did:example:owner');
    expectError(
      await d.call('POST', `/v1/sampling/${b.body.designId}/verification`, {
        key: other,
        body: { status: 'submitted' },
      }),
      403,
      'not_controller',
    );
    expect(
      (
        await d.call('POST', `/v1/sampling/${b.body.designId}/verification`, {
          key: owner,
          body: { status: 'submitted' },
        })
      ).status,
    ).toBe(200);
    const c = (await d.call('POST', '/v1/sampling', { key: other, body: { ...DESIGN, projectId } })).body;
    expect(
      (await d.call('POST', `/v1/sampling/${c.designId}/verification`, { key: admin, body: { status: 'submitted' } }))
        .status,
    ).toBe(200);
  });
});
