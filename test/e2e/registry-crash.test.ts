/**
 * Crash test: a burst of concurrent registrations, design saves and votes
 * against the real daemon process, kill -9 in the middle, restart on the
 * same database: every acknowledged write is there, and no half-written
 * record exists (integrity check, every row parses, every domain/proposal
 * pair consistent).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { spawnDaemon, tempHome, waitExit } from '../unit/daemon/harness.ts';
import { acknowledged, prepareBurst, startBurst, VOTERS } from './registry-burst.ts';

const t = tempHome({ voters: VOTERS, rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } });
afterAll(() => t.cleanup());

describe('kill -9 during a burst', () => {
  it('keeps every acknowledged write and no half-written record', async () => {
    let d = await spawnDaemon(t.env, t.home);
    const setup = await prepareBurst(d);
    const { rep, proposals } = setup;
    const burst = startBurst([d], setup);
    const { domains: ackedDomains, designs: ackedDesigns, votes: ackedVotes } = burst.acked;
    await acknowledged(burst, 150);
    d.child.kill('SIGKILL');
    await waitExit(d.child);
    await burst.stop();
    expect(ackedDomains.length).toBeGreaterThan(10);

    // restart on the same database: the stale discovery file is replaced
    d = await spawnDaemon(t.env, t.home);
    for (const id of ackedDomains) expect((await d.call('GET', `/v1/domains/${id}`, { key: rep })).status).toBe(200);
    for (const id of ackedDesigns) expect((await d.call('GET', `/v1/sampling/${id}`, { key: rep })).status).toBe(200);
    for (const p of proposals) {
      const got = (await d.call('GET', `/v1/proposals/${p}`, { key: rep })).body;
      const mine = ackedVotes.filter((v) => v.proposal === p);
      expect(got.tally.voted).toBeGreaterThanOrEqual(mine.length);
    }
    d.child.kill('SIGTERM');
    await waitExit(d.child);

    const db = new DatabaseSync(join(t.home, 'data/registry.db'));
    try {
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
      const votes = db.prepare('SELECT proposal_id, voter, option FROM votes').all() as {
        proposal_id: string;
        voter: string;
        option: string;
      }[];
      for (const v of ackedVotes)
        expect(votes).toContainEqual({ proposal_id: v.proposal, voter: v.voter, option: v.option });
      for (const r of db.prepare('SELECT id, record, state, version FROM domains').all() as {
        id: string;
        record: string;
        state: string;
        version: number;
      }[]) {
        const rec = JSON.parse(r.record);
        expect(rec).toMatchObject({ id: r.id, state: r.state, version: r.version });
      }
      for (const r of db.prepare('SELECT design_id, record FROM designs').all() as {
        design_id: string;
        record: string;
      }[])
        expect(JSON.parse(r.record).designId).toBe(r.design_id);
      // a domain is pending_verification exactly when it has an open proposal
      const pending = db.prepare("SELECT count(*) AS n FROM domains WHERE state = 'pending_verification'").get() as {
        n: number;
      };
      const open = db.prepare("SELECT count(*) AS n FROM proposals WHERE status = 'open'").get() as { n: number };
      expect(pending.n).toBe(open.n);
    } finally {
      db.close();
    }
  });
});
