/* eslint-disable @typescript-eslint/no-explicit-any -- the JSON replies of the API under test are checked field by field */
/**
 * Two real daemon processes (dist/daemon/main.js)
 * on ONE PostgreSQL database (ORACLEKIT_DATABASE_URL), hammered concurrently
 * through both. Checked by exact counts — in the replies and in the database:
 * - votes: every voter votes through both daemons at once; each vote counts
 *   exactly once (one 200 per voter, the other copy 409), never lost, never
 *   twice, and the proposal executes once;
 * - Idempotency-Key: the same key sent to both daemons at once creates ONE
 *   design, and both replies carry it;
 * - If-Match: concurrent PATCHes of one version succeed exactly once, and
 *   retried read-modify-write loops through both daemons end at exactly
 *   1 + (the number of 200s).
 * Skipped only when the PostgreSQL binaries are missing and CI is unset.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, PKG, spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { PostgresStorage } from '../../src/storage/postgres.ts';

const VOTERS = Array.from({ length: 24 }, (_, i) => `did:example:voter${i}`);
const ALICE = 'did:example:alice';
const DESIGN = { population: 1000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 };

describe.skipIf(!postgresAvailable())('two daemons on one PostgreSQL database', () => {
  let pg: PostgresServer;
  let url: string;
  let db: PostgresStorage;
  const daemons: Spawned[] = [];
  const cleanups: (() => void)[] = [];
  let a: Spawned;
  let b: Spawned;
  let alice: string;

  beforeAll(async () => {
    pg = await startPostgres();
    url = pg.createDatabase('two_daemons');
    // the tally never closes early: every voter must vote (absolute_count k = all)
    const config = {
      voters: VOTERS.map((did) => ({ did })),
      tally: { rule: 'absolute_count', k: VOTERS.length },
      proposalDurationSeconds: 3600,
      oracle: { enabled: false },
      rateLimit: { max: 1_000_000 },
    };
    for (let i = 0; i < 2; i++) {
      const t = tempHome(config);
      cleanups.push(t.cleanup);
      daemons.push(await spawnDaemon({ ...t.env, ORACLEKIT_DATABASE_URL: url }, t.home));
    }
    [a, b] = daemons as [Spawned, Spawned];
    alice = await adminKey(a, ALICE, 'admin', 'representative', 'member');
    db = new PostgresStorage({ url, max: 2 });
  }, 180_000);

  afterAll(async () => {
    for (const d of daemons) {
      d.child.kill('SIGTERM');
      await waitExit(d.child);
    }
    await db?.close();
    await pg?.stop();
    for (const c of cleanups) c();
  });

  it('a key made through one daemon authenticates at the other at once (no cache of keys)', async () => {
    const k = await adminKey(b, 'did:example:late', 'member');
    expect((await a.call('GET', '/v1/domains?limit=1', { key: k })).status).toBe(200);
  });

  it('votes through both daemons at once: each voter counted exactly once', async () => {
    const proto = await a.call('POST', '/v1/domains', {
      key: alice,
      body: { type: 'Protocol', metadata: { name: 'concurrency' } },
    });
    expect(proto.status, JSON.stringify(proto.body)).toBe(201);
    const p = await b.call('POST', `/v1/domains/${proto.body.id}/verification-proposals`, {
      key: alice,
      body: { package: PKG },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const keys = await Promise.all(VOTERS.map((did, i) => adminKey(i % 2 ? a : b, did, 'voter')));
    // every voter sends 'yes' to both daemons at the same time
    const replies = await Promise.all(
      keys.flatMap((k) =>
        [a, b].map((d) => d.call('POST', `/v1/proposals/${p.body.id}/votes`, { key: k, body: { option: 'yes' } })),
      ),
    );
    const ok = replies.filter((r) => r.status === 200).length;
    // the second copy of a vote is refused: already_voted, or proposal_closed when it arrives after the last first copy
    // executed it
    const refused = (r: { status: number; body: any }) =>
      r.status === 409 && ['already_voted', 'proposal_closed'].includes(r.body.code);
    const dup = replies.filter(refused).length;
    const other = replies.filter((r) => r.status !== 200 && !refused(r)).map((r) => [r.status, r.body.code]);
    expect(other).toEqual([]);
    expect({ ok, dup }).toEqual({ ok: VOTERS.length, dup: VOTERS.length });
    expect(
      await db.get('SELECT COUNT(*) AS n, SUM(weight) AS w FROM votes WHERE proposal_id = ?', [p.body.id]),
    ).toEqual({ n: VOTERS.length, w: VOTERS.length });
    // the last vote decided it: executed once, the domain verified (version 1 → 2 at proposal → 3 at execution)
    const final = await a.call('GET', `/v1/proposals/${p.body.id}`, { key: alice });
    expect(final.body).toMatchObject({
      status: 'executed',
      tally: { yes: String(VOTERS.length), voted: VOTERS.length },
    });
    expect((await b.call('GET', `/v1/domains/${proto.body.id}`, { key: alice })).body).toMatchObject({
      state: 'verified',
      version: 3,
    });
  });

  it('one Idempotency-Key sent to both daemons at once: one design, the same reply twice', async () => {
    const projectId = 'did:example:idem-race';
    const rounds = 16;
    const pairs = await Promise.all(
      Array.from({ length: rounds }, async (_, i) => {
        const h = { 'idempotency-key': `race-${i}` };
        const body = { ...DESIGN, population: 1000 + i, projectId };
        return Promise.all([a, b].map((d) => d.call('POST', '/v1/sampling', { key: alice, headers: h, body })));
      }),
    );
    for (const [x, y] of pairs) {
      expect([x!.status, y!.status], JSON.stringify([x!.body, y!.body])).toEqual([201, 201]);
      expect(y!.body.designId).toBe(x!.body.designId);
    }
    expect(await db.get('SELECT COUNT(*) AS n FROM designs WHERE project_id = ?', [projectId])).toEqual({ n: rounds });
    expect(await db.get("SELECT COUNT(*) AS n FROM idempotency WHERE key LIKE 'race-%'")).toEqual({ n: rounds });
  });

  it('If-Match under concurrent PATCHes through both daemons: exactly one per version, the version exact', async () => {
    const d = await a.call('POST', '/v1/domains', { key: alice, body: { type: 'Protocol', metadata: { name: 'v' } } });
    expect(d.status).toBe(201);
    const path = `/v1/domains/${d.body.id}`;
    // 20 PATCHes of version 1 at once: one wins, the others are stale
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).call('PATCH', path, {
          key: alice,
          headers: { 'if-match': '"1"' },
          body: { metadata: { name: `first-${i}` } },
        }),
      ),
    );
    expect(first.filter((r) => r.status === 200).length).toBe(1);
    expect(first.filter((r) => r.status === 412 && r.body.code === 'stale_version').length).toBe(19);
    // 8 workers (4 per daemon), each making 5 changes by GET → PATCH(If-Match), retrying when stale
    let wins = 0;
    let stale = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const via = w % 2 ? a : b;
        for (let n = 0; n < 5;) {
          const cur = await via.call('GET', path, { key: alice });
          const r = await via.call('PATCH', path, {
            key: alice,
            headers: { 'if-match': `"${cur.body.version}"` },
            body: { metadata: { name: `w${w}-${n}` } },
          });
          if (r.status === 200) {
            expect(r.body.version).toBe(cur.body.version + 1);
            wins++;
            n++;
          } else {
            expect([r.status, r.body.code]).toEqual([412, 'stale_version']);
            stale++;
          }
        }
      }),
    );
    expect(wins).toBe(40);
    const end = await b.call('GET', path, { key: alice });
    expect(end.body.version).toBe(2 + wins);
    expect(await db.get('SELECT version FROM domains WHERE id = ?', [d.body.id])).toEqual({ version: 2 + wins });
    expect(stale).toBeGreaterThanOrEqual(0); // how often a worker lost the race: measured, reported by the assertion above being exact
  });
});

describe('the database setting at start', () => {
  it('a bad ORACLEKIT_DATABASE_URL stops the daemon with an error naming the setting, the value (password hidden) and what is valid', () => {
    const t = tempHome();
    try {
      const r = spawnSync(process.execPath, [join(import.meta.dirname, '../../dist/daemon/main.js')], {
        env: { ...process.env, ...t.env, ORACLEKIT_DATABASE_URL: 'postgres://u:hunter2@db.example' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        'oraclekit daemon: ORACLEKIT_DATABASE_URL = "postgres://u:***@db.example" is not a PostgreSQL URL: it names no database',
      );
      expect(r.stderr).not.toContain('hunter2');
    } finally {
      t.cleanup();
    }
  });
});
