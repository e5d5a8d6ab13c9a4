/**
 * Real signed rounds of drand's public chains (test/fixtures/drand-rounds.json,
 * with provenance) and commitments made for them. A commitment has to exist
 * before its round; for a round that is already public the commitment is
 * made here, in process, with the library's own commitSelection and a clock
 * set before the round (`now`) — the same code `sample select commit` runs.
 * publishedAt is the time a verifier would have recorded receiving it.
 */
import { writeFileSync } from 'node:fs';
import rounds from '../fixtures/drand-rounds.json' with { type: 'json' };
import { knownChain, roundTime, type BeaconRound } from '../../src/lib/beacon/drand.ts';
import type { SelectionDesign } from '../../src/lib/selection/design.ts';
import type { Commitment } from '../../src/lib/selection/records.ts';
import { commitSelection } from '../../src/lib/selection/workflow.ts';

type RealRound = BeaconRound & { source: string };
export const QUICKNET_ROUNDS = rounds.quicknet as RealRound[];
export const DEFAULT_ROUNDS = rounds.default as RealRound[];
/** quicknet round 32254977, produced 2026-09-16T14:18:15Z. */
export const QUICKNET = QUICKNET_ROUNDS.find((r) => r.round === 32254977)!;

interface RealCommitment {
  commitment: Commitment;
  /** When the round was produced. */
  roundTime: Date;
  /** committedAt: 10 minutes before the round. */
  committedAt: Date;
  /** When a verifier received it: 5 minutes before the round. */
  publishedAt: Date;
}

export async function commitForRealRound(o: {
  design: SelectionDesign;
  framePath: string;
  chain?: 'quicknet' | 'default';
  round?: RealRound;
  out?: string;
  acceptPopulationMismatch?: boolean;
}): Promise<RealCommitment> {
  const chain = knownChain(o.chain ?? 'quicknet')!;
  const round = o.round ?? QUICKNET;
  const rt = roundTime(chain, round.round) * 1000;
  const committedAt = new Date(rt - 10 * 60_000);
  const { commitment } = await commitSelection({
    design: o.design,
    framePath: o.framePath,
    chain,
    round: round.round,
    delaySeconds: 0,
    now: committedAt,
    ...(o.acceptPopulationMismatch ? { acceptPopulationMismatch: true } : {}),
  });
  if (o.out) writeFileSync(o.out, JSON.stringify(commitment, null, 2) + '\n');
  return { commitment, roundTime: new Date(rt), committedAt, publishedAt: new Date(rt - 5 * 60_000) };
}

/** The round as a drand relay serves it ({round, randomness, signature[, previous_signature]}). */
export function roundJson(r: RealRound): string {
  const { source: _s, ...beacon } = r;
  return JSON.stringify(beacon);
}
