/**
 * The registry survives kill -9 of one of two daemon processes on one
 * PostgreSQL database in the middle of a burst of writes through both
 * (registry-burst.ts, the burst of registry-crash.test.ts):
 * - every write either daemon acknowledged is in the database;
 * - the other daemon keeps serving: its workers see no error at all (every
 *   reply an acknowledgement, or a vote refused as already cast) and go on
 *   writing after the kill;
 * - the tallies are exact: each proposal's tally is what its vote rows sum
 *   to, holds every acknowledged vote, and no half-written record exists;
 * - the killed daemon, started again, serves the same data.
 * Skipped only when the PostgreSQL binaries are missing and CI is unset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { PostgresStorage } from '../../src/storage/postgres.ts';
import { acknowledged, prepareBurst, startBurst, VOTERS } from './registry-burst.ts';

describe.skipIf(!postgresAvailable())('kill -9 of one of two daemons on PostgreSQL, mid-write', () => {
  let pg: PostgresServer;
  let url: string;
  const homes: ReturnType<typeof tempHome>[] = [];
  const running: Spawned[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    url = pg.createDatabase('kill_one');
    for (let i = 0; i < 2; i++)
      homes.push(
        tempHome({ voters: VOTERS, rateLimit: { max: 1_000_000, timeWindowMs: 60_000 }, oracle: { enabled: false } }),
      );
  }, 120_000);

  afterAll(async () => {
    for (const d of running) {
      d.child.kill('SIGTERM');
      await waitExit(d.child);
    }
    await pg?.stop();
    for (const h of homes) h.cleanup();
  });

  const spawn = async (i: number) => {
    const d = await spawnDaemon({ ...homes[i]!.env, ORACLEKIT_DATABASE_URL: url }, homes[i]!.home);
    running.push(d);
    return d;
  };

  it('keeps every acknowledged write; the survivor serves on with no error; tallies exact', async () => {
    const a = await spawn(0);
    const b = await spawn(1);
    const setup = await prepareBurst(a);
    const { rep, proposals } = setup;
    const burst = startBurst([a, b], setup);
    await acknowledged(burst, 200);
    a.child.kill('SIGKILL');
    await waitExit(a.child);
    running.splice(running.indexOf(a), 1);
    // the survivor's workers go on: 150 more acknowledgements after the kill
    const atKill = burst.count();
    await acknowledged(burst, atKill + 150);
    await burst.stop();
    expect(burst.broken[0]).toBeGreaterThan(0); // a's workers lost their connections
    expect(burst.broken[1]).toBe(0);
    expect(burst.unexpected).toEqual([[], []]);
    expect(b.child.exitCode).toBeNull();
    expect((await b.call('GET', '/health/ready')).status).toBe(200);

    const db = new PostgresStorage({ url, max: 1 });
    try {
      const { acked } = burst;
      const domains = await db.all<{ id: string; record: string; state: string; version: number }>(
        'SELECT id, record, state, version FROM domains',
      );
      const designs = await db.all<{ design_id: string; record: string }>('SELECT design_id, record FROM designs');
      const votes = await db.all<{ proposal_id: string; voter: string; option: string; weight: number }>(
        'SELECT proposal_id, voter, option, weight FROM votes',
      );
      // every acknowledged write is there
      const domainIds = new Set(domains.map((r) => r.id));
      const designIds = new Set(designs.map((r) => r.design_id));
      expect(acked.domains.filter((id) => !domainIds.has(id))).toEqual([]);
      expect(acked.designs.filter((id) => !designIds.has(id))).toEqual([]);
      for (const v of acked.votes)
        expect(votes).toContainEqual(
          expect.objectContaining({ proposal_id: v.proposal, voter: v.voter, option: v.option }),
        );
      // no half-written record
      for (const r of domains)
        expect(JSON.parse(r.record)).toMatchObject({ id: r.id, state: r.state, version: r.version });
      for (const r of designs) expect(JSON.parse(r.record).designId).toBe(r.design_id);
      const pending = await db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM domains WHERE state = 'pending_verification'",
      );
      const open = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM proposals WHERE status = 'open'");
      expect(pending!.n).toBe(open!.n);
      // tallies exact: what the survivor reports is what the rows sum to; one vote per voter and proposal
      for (const p of proposals) {
        const rows = votes.filter((v) => v.proposal_id === p);
        expect(new Set(rows.map((v) => v.voter)).size).toBe(rows.length);
        const sum = (o: string) => String(rows.filter((v) => v.option === o).reduce((s, v) => s + v.weight, 0));
        const got = (await b.call('GET', `/v1/proposals/${p}`, { key: rep })).body;
        expect(got).toMatchObject({
          status: 'open',
          tally: { voted: rows.length, no: sum('no'), abstain: sum('abstain'), yes: '0' },
        });
        expect(rows.length).toBeGreaterThanOrEqual(acked.votes.filter((v) => v.proposal === p).length);
      }
    } finally {
      await db.close();
    }

    // the killed daemon, started again on the same database, serves the same data
    const again = await spawn(0);
    for (const id of burst.acked.domains.slice(0, 20))
      expect((await again.call('GET', `/v1/domains/${id}`, { key: rep })).status).toBe(200);
    for (const id of burst.acked.designs.slice(0, 20))
      expect((await again.call('GET', `/v1/sampling/${id}`, { key: rep })).status).toBe(200);
  });
});
