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
import { adminKey, PKG, spawnDaemon, tempHome, waitExit } from '../unit/daemon/harness.ts';

const VOTERS = Array.from({ length: 40 }, (_, i) => ({ did: `did:example:voter${i}`, weight: 1 + (i % 3) }));
const t = tempHome({ voters: VOTERS, rateLimit: { max: 1_000_000, timeWindowMs: 60_000 } });
afterAll(() => t.cleanup());

describe('kill -9 during a burst', () => {
  it('keeps every acknowledged write and no half-written record', async () => {
    let d = await spawnDaemon(t.env, t.home);
    const rep = await adminKey(d, 'did:example:rep', 'representative', 'member');
    const voterKeys = await Promise.all(VOTERS.map((v) => adminKey(d, v.did, 'voter')));
    const proto = (await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Protocol' } })).body.id as string;
    // open proposals to vote on during the burst
    const proposals: string[] = [];
    for (let i = 0; i < 4; i++) {
      const dom = (await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Project', class: proto } })).body.id;
      proposals.push((await d.call('POST', `/v1/domains/${dom}/verification-proposals`, { key: rep, body: { package: PKG } })).body.id);
    }

    const ackedDomains: string[] = [];
    const ackedDesigns: string[] = [];
    const ackedVotes: { proposal: string; voter: string; option: string }[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          if (i % 3 === 0) {
            const r = await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Project', class: proto, metadata: { name: `w${w}-${i}`, blob: 'x'.repeat(500) }, alsoKnownAs: `w${w}-${i}` } });
            if (r.status === 201) ackedDomains.push(r.body.id);
          } else if (i % 3 === 1) {
            const r = await d.call('POST', '/v1/sampling', { key: rep, body: { projectId: proto, population: 1000 + w * 100 + i, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 } });
            if (r.status === 201) ackedDesigns.push(r.body.designId);
          } else {
            const v = (w * 7 + i) % VOTERS.length;
            const proposal = proposals[(w + i) % proposals.length]!;
            const option = ['no', 'abstain'][i % 2]!; // never decides early: keeps proposals open
            const r = await d.call('POST', `/v1/proposals/${proposal}/votes`, { key: voterKeys[v]!, body: { option } });
            if (r.status === 200) ackedVotes.push({ proposal, voter: VOTERS[v]!.did, option });
          }
        } catch {
          return; // connection reset by the kill: not acknowledged
        }
      }
    };
    const workers = Array.from({ length: 24 }, (_, w) => worker(w));
    while (ackedDomains.length + ackedDesigns.length + ackedVotes.length < 150) await new Promise((r) => setTimeout(r, 5));
    d.child.kill('SIGKILL');
    await waitExit(d.child);
    stop = true;
    await Promise.all(workers);
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
      const votes = db.prepare('SELECT proposal_id, voter, option FROM votes').all() as { proposal_id: string; voter: string; option: string }[];
      for (const v of ackedVotes) expect(votes).toContainEqual({ proposal_id: v.proposal, voter: v.voter, option: v.option });
      for (const r of db.prepare('SELECT id, record, state, version FROM domains').all() as { id: string; record: string; state: string; version: number }[]) {
        const rec = JSON.parse(r.record);
        expect(rec).toMatchObject({ id: r.id, state: r.state, version: r.version });
      }
      for (const r of db.prepare('SELECT design_id, record FROM designs').all() as { design_id: string; record: string }[]) expect(JSON.parse(r.record).designId).toBe(r.design_id);
      // a domain is pending_verification exactly when it has an open proposal
      const pending = db.prepare("SELECT count(*) AS n FROM domains WHERE state = 'pending_verification'").get() as { n: number };
      const open = db.prepare("SELECT count(*) AS n FROM proposals WHERE status = 'open'").get() as { n: number };
      expect(pending.n).toBe(open.n);
    } finally {
      db.close();
    }
  });
});
