/**
 * The burst of concurrent writes the kill -9 tests run against daemon
 * processes (registry-crash.test.ts on SQLite, registry-postgres-kill.test.ts
 * with two daemons on PostgreSQL): registrations, design saves and votes from
 * 24 workers, each reply recorded, every acknowledged write kept for the
 * checks after the kill.
 */
import { adminKey, PKG, type Api } from '../unit/daemon/harness.ts';

export const VOTERS = Array.from({ length: 40 }, (_, i) => ({ did: `did:example:voter${i}`, weight: 1 + (i % 3) }));

interface BurstSetup {
  rep: string;
  voterKeys: string[];
  proto: string;
  /** Open proposals voted on during the burst. */
  proposals: string[];
}

/** The keys, a Protocol and four open proposals, made through `d`. */
export async function prepareBurst(d: Api & { token: string }): Promise<BurstSetup> {
  const rep = await adminKey(d, 'did:example:rep', 'representative', 'member');
  const voterKeys = await Promise.all(VOTERS.map((v) => adminKey(d, v.did, 'voter')));
  const proto = (await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Protocol' } })).body.id as string;
  const proposals: string[] = [];
  for (let i = 0; i < 4; i++) {
    const dom = (await d.call('POST', '/v1/domains', { key: rep, body: { type: 'Project', class: proto } })).body.id;
    proposals.push(
      (await d.call('POST', `/v1/domains/${dom}/verification-proposals`, { key: rep, body: { package: PKG } })).body.id,
    );
  }
  return { rep, voterKeys, proto, proposals };
}

interface Burst {
  acked: { domains: string[]; designs: string[]; votes: { proposal: string; voter: string; option: string }[] };
  /** Acknowledged writes so far. */
  count(): number;
  /** Per target: replies other than an acknowledgement or a vote refused as already cast (e.g. a 5xx). */
  unexpected: unknown[][];
  /** Per target: workers ended by a failed connection (the kill). */
  broken: number[];
  /** Stops the workers and waits for them. */
  stop(): Promise<void>;
}

/** 24 workers spread over `targets` (worker w → targets[w % n]) until stop(); a worker whose connection fails ends. */
export function startBurst(targets: Api[], s: BurstSetup, workers = 24): Burst {
  const acked: Burst['acked'] = { domains: [], designs: [], votes: [] };
  const unexpected: unknown[][] = targets.map(() => []);
  const broken = targets.map(() => 0);
  let stopped = false;
  const worker = async (w: number) => {
    const t = w % targets.length;
    const d = targets[t]!;
    for (let i = 0; !stopped; i++) {
      try {
        if (i % 3 === 0) {
          const r = await d.call('POST', '/v1/domains', {
            key: s.rep,
            body: {
              type: 'Project',
              class: s.proto,
              metadata: { name: `w${w}-${i}`, blob: 'x'.repeat(500) },
              alsoKnownAs: `w${w}-${i}`,
            },
          });
          if (r.status === 201) acked.domains.push(r.body.id);
          else unexpected[t]!.push([r.status, r.body]);
        } else if (i % 3 === 1) {
          const r = await d.call('POST', '/v1/sampling', {
            key: s.rep,
            body: {
              projectId: s.proto,
              population: 1000 + w * 100 + i,
              expectedMean: 2,
              expectedSD: 1,
              dropoutRate: 0.1,
            },
          });
          if (r.status === 201) acked.designs.push(r.body.designId);
          else unexpected[t]!.push([r.status, r.body]);
        } else {
          const v = (w * 7 + i) % VOTERS.length;
          const proposal = s.proposals[(w + i) % s.proposals.length]!;
          const option = ['no', 'abstain'][i % 2]!; // never decides early: keeps proposals open
          const r = await d.call('POST', `/v1/proposals/${proposal}/votes`, { key: s.voterKeys[v]!, body: { option } });
          if (r.status === 200) acked.votes.push({ proposal, voter: VOTERS[v]!.did, option });
          else if (r.status !== 409 || r.body?.code !== 'already_voted') unexpected[t]!.push([r.status, r.body]);
        }
      } catch {
        broken[t]!++;
        return; // connection reset by the kill: not acknowledged
      }
    }
  };
  const all = Array.from({ length: workers }, (_, w) => worker(w));
  return {
    acked,
    unexpected,
    broken,
    count: () => acked.domains.length + acked.designs.length + acked.votes.length,
    stop: async () => {
      stopped = true;
      await Promise.all(all);
    },
  };
}

/** Resolves once `burst` has `n` acknowledged writes. */
export async function acknowledged(burst: Burst, n: number): Promise<void> {
  while (burst.count() < n) await new Promise((r) => setTimeout(r, 5));
}
