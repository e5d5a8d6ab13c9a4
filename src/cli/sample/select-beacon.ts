/**
 * `oraclekit sample select beacon`: fetches the committed (or a given) round
 * of a pinned drand chain from a relay, verifies its BLS signature, and saves
 * the round JSON that `sample select draw --beacon` takes.
 */
import { knownChain, parseChainInfo } from '../../lib/beacon/drand.ts';
import { beaconError } from '../../lib/beacon/errors.ts';
import { fetchRound } from '../../lib/beacon/fetch.ts';
import { parseCommitment } from '../../lib/selection/records.ts';
import type { Io } from '../io.ts';
import { paint } from '../output.ts';
import { readJsonFile, refuseExisting, writeJsonFile } from './files.ts';
import type { BeaconFlags } from './flags.ts';

export async function runSelectBeacon(flags: BeaconFlags, io: Io): Promise<void> {
  let chain = knownChain(flags.chain ?? 'quicknet')!;
  let round = flags.round;
  if (flags.commitment !== undefined) {
    const c = parseCommitment(
      readJsonFile(flags.commitment, '--commitment', 'the commitment JSON of `sample select commit`'),
      flags.commitment,
    );
    chain = parseChainInfo(c.beacon.chain, `${flags.commitment}: beacon.chain`);
    if (round !== undefined && round !== c.beacon.round)
      throw beaconError(
        'beacon_round_mismatch',
        '--round',
        round,
        `the committed round ${c.beacon.round} (or no --round)`,
      );
    round = c.beacon.round;
  }
  if (round === undefined || round < 1)
    throw beaconError(
      'invalid_beacon',
      '--round',
      round,
      'an integer >= 1, or --commitment to take the committed round',
    );
  const out = flags.out ?? `round-${round}.json`;
  refuseExisting([out], flags.force, '--out', 'a saved round is kept as fetched');
  const { beacon, url } = await fetchRound(chain, round, flags.relay?.length ? { relays: flags.relay } : {});
  writeJsonFile(out, beacon);
  if (flags.json) {
    io.outJson({ file: out, url, chainHash: chain.hash, round: beacon });
    return;
  }
  io.out(
    `${paint.green('OK')} round ${round} of drand ${chain.metadata?.beaconID ?? chain.hash.slice(0, 16)}: BLS signature verified (from ${url})`,
  );
  io.out(
    `Wrote ${out}; next: oraclekit sample select draw --commitment <commitment.json> --frame <frame.csv> --beacon ${out}`,
  );
}
