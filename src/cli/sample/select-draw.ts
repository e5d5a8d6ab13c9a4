/**
 * `oraclekit sample select draw`: flags and the run function.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { untrustedChainReason } from '../../lib/beacon/drand.ts';
import { parseCommitment } from '../../lib/selection/records.ts';
import { drawSelection, type RandomnessInput } from '../../lib/selection/workflow.ts';
import type { DrawFlags } from './flags.ts';
import type { Io } from '../io.ts';
import { paint, textTable } from '../output.ts';
import { progressLine, progressText } from '../progress.ts';
import { readJsonFile, refuseExisting, writeJsonFile } from './files.ts';

export async function runSelectDraw(flags: DrawFlags, io: Io): Promise<void> {
  const commitment = parseCommitment(
    readJsonFile(flags.commitment, '--commitment', 'the commitment JSON of `sample select commit`'),
    flags.commitment,
  );
  const randomness: RandomnessInput =
    flags['seed-hex'] !== undefined
      ? { seedHex: flags['seed-hex'] }
      : { beacon: readJsonFile(flags.beacon!, '--beacon', 'a drand round JSON {round, randomness, signature}') };
  const proofPath = join(flags['out-dir'], 'proof.json');
  refuseExisting(
    [proofPath, join(flags['out-dir'], 'selection.csv')],
    flags.force,
    '--out-dir',
    'a draw is written once',
  );
  mkdirSync(flags['out-dir'], { recursive: true });
  const progress = progressLine(!flags.json && Boolean(process.stderr.isTTY));
  const r = await drawSelection({
    commitment,
    framePath: flags.frame,
    randomness,
    beaconSource: flags.beacon ?? '--seed-hex',
    outDir: flags['out-dir'],
    now: new Date(),
    onProgress: (p) => progress.update(progressText(p)),
  });
  progress.done();
  writeJsonFile(proofPath, r.proof);
  const warnings: string[] = [];
  if (r.proof.randomness.source === 'verifier')
    warnings.push(
      'the randomness was supplied here (--seed-hex), not by the committed drand round: only the verifier who chose it can accept this draw (`sample verify --seed-hex <the same>`); for anyone else it is untrusted (exit 11)',
    );
  const why = untrustedChainReason(commitment.beacon.chain as Parameters<typeof untrustedChainReason>[0]);
  if (r.proof.randomness.source === 'drand' && why) warnings.push(`UNTRUSTED CHAIN: ${why}`);
  if (flags.json) {
    io.outJson({ selection: r.selectionPath, proof: proofPath, proofContent: r.proof, warnings });
    return;
  }
  const p = r.proof;
  const src =
    p.randomness.source === 'drand'
      ? `drand round ${p.randomness.round} (BLS signature verified)`
      : paint.yellow('randomness supplied with --seed-hex');
  io.out(`${paint.bold('Selection')} ${commitment.algorithm}: ${src}`);
  io.out(`  seed  ${p.seed}`);
  io.out(
    textTable(
      ['stratum', 'households', 'n', 'first sampled', 'first replacement'],
      p.strata.map((s, i) => {
        const st = r.selection.strata[i]!;
        const next = st.order.length > s.sampleSize ? r.frame.ids[st.order[s.sampleSize]!] : '';
        return [
          s.name,
          s.households,
          s.sampleSize,
          s.sample
            .slice(0, 3)
            .map((x) => x.household_id)
            .join(' ') + (s.sample.length > 3 ? ' …' : ''),
          next,
        ];
      }),
    ),
  );
  for (const w of warnings) io.out(paint.red(`warning: ${w}`));
  io.out(`Wrote ${r.selectionPath} (${p.selection.rows} rows: sample, then replacements in order) and ${proofPath}.`);
  io.out(
    `Verify: oraclekit sample verify --frame ${flags.frame} --commitment ${flags.commitment} --proof ${proofPath} --selection ${r.selectionPath} --published-at <when the commitment was published>`,
  );
}
