/**
 * `oraclekit sample select commit`: flags and the run function (the oclif
 * command in src/commands is a thin wrapper).
 */
import { knownChain, parseChainInfo, untrustedChainReason } from '../../lib/beacon/drand.ts';
import { loadDesign } from '../../lib/selection/design.ts';
import { selectionError } from '../../lib/selection/errors.ts';
import { commitSelection } from '../../lib/selection/workflow.ts';
import type { Io } from '../io.ts';
import { paint, textTable } from '../output.ts';
import { progressLine, progressText } from '../progress.ts';
import { readJsonFile, refuseExisting, writeJsonFile } from './files.ts';
import type { CommitFlags } from './flags.ts';

export async function runSelectCommit(flags: CommitFlags, io: Io): Promise<void> {
  const design =
    flags.design !== undefined
      ? loadDesign(
          readJsonFile(flags.design, '--design', 'the JSON of `oraclekit sample calc --json` or a registry record'),
          flags.design,
        )
      : loadDesign(
          {
            population: flags.population,
            expectedMean: Number(flags.mean),
            expectedSD: Number(flags.sd),
            dropoutRate: Number(flags.dropout),
            ...(flags['er-coverage'] !== undefined ? { erCoverage: Number(flags['er-coverage']) } : {}),
          },
          'flags',
        );
  const chain =
    flags['untrusted-chain-info'] !== undefined
      ? parseChainInfo(
          readJsonFile(flags['untrusted-chain-info'], '--untrusted-chain-info', 'a drand chain info JSON file (/info)'),
          flags['untrusted-chain-info'],
        )
      : knownChain(flags.chain ?? 'quicknet')!;
  if (flags.round !== undefined && flags.round < 1)
    throw selectionError('invalid_round', '--round', flags.round, 'an integer >= 1');
  refuseExisting([flags.out], flags.force, '--out', 'a commitment is published once');
  const progress = progressLine(!flags.json && Boolean(process.stderr.isTTY));
  const { commitment, notes } = await commitSelection({
    design,
    framePath: flags.frame,
    chain,
    ...(flags.round !== undefined ? { round: flags.round } : {}),
    delaySeconds: flags.delay,
    now: new Date(),
    acceptPopulationMismatch: flags['accept-population-mismatch'],
    onProgress: (p) => progress.update(progressText(p)),
  });
  progress.done();
  const untrusted = untrustedChainReason(chain);
  if (untrusted)
    notes.unshift(
      `UNTRUSTED CHAIN: ${untrusted}. \`sample verify\` will refuse this selection (exit 11); use it for tests only`,
    );
  writeJsonFile(flags.out, commitment);
  if (flags.json) {
    io.outJson({ file: flags.out, commitment, notes });
    return;
  }
  const c = commitment;
  io.out(`${paint.bold('Commitment')} ${flags.out} (${c.algorithm})`);
  io.out(`  designId   ${c.designId}`);
  io.out(`  frame      ${c.frame.file}: ${c.frame.households} households, frameHash ${c.frame.frameHash}`);
  io.out(
    `  beacon     drand ${chain.metadata?.beaconID ?? ''} round ${c.beacon.round} at ${c.beacon.roundTime} (chain ${chain.hash.slice(0, 16)}…)`,
  );
  io.out(
    textTable(
      ['stratum', 'households', 'n'],
      c.strata.map((s) => [s.name, s.households, s.sampleSize]),
    ),
  );
  for (const n of notes)
    io.out(/^(UNTRUSTED|ACCEPTED)/.test(n) ? paint.red(`warning: ${n}`) : paint.yellow(`note: ${n}`));
  io.out(
    `Publish ${flags.out} before ${c.beacon.roundTime} and keep a record of when (the verifier checks it with --published-at); after that time fetch and verify the round with \`oraclekit sample select beacon --commitment ${flags.out}\` (it writes round-${c.beacon.round}.json), then run \`oraclekit sample select draw --commitment ${flags.out} --frame ${flags.frame} --beacon round-${c.beacon.round}.json\`.`,
  );
}
