/**
 * `oraclekit sample select draw`: flags and the run function.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { untrustedChainReason } from '../../lib/beacon/drand.ts';
import { parseCommitment } from '../../lib/selection/records.ts';
import { drawSelection, type RandomnessInput } from '../../lib/selection/workflow.ts';
import type { FlagSpecs } from '../flag-spec.ts';
import type { Io } from '../io.ts';
import { paint, textTable } from '../output.ts';
import { progressLine, progressText } from '../progress.ts';
import { readJsonFile, refuseExisting, writeJsonFile } from './files.ts';

/** One spec for oclif and the fast path (src/cli/fast-path.ts): a 10^6-household draw should not wait for oclif. */
export const DRAW_FLAGS = {
  commitment: {
    type: 'string',
    char: 'c',
    description: 'The commitment JSON written by `sample select commit`.',
    required: true,
  },
  frame: {
    type: 'string',
    char: 'f',
    description: 'The household frame CSV the commitment was made on.',
    required: true,
  },
  beacon: {
    type: 'string',
    char: 'b',
    description: 'The committed drand round as JSON ({round, randomness, signature[, previous_signature]}).',
    exactlyOne: ['beacon', 'seed-hex'],
  },
  'seed-hex': {
    type: 'string',
    description:
      'A verification authority performing the selection itself: its own randomness (hex, 16 to 128 bytes) instead of the beacon. Only that verifier can accept the result (`sample verify --seed-hex` with the same value).',
    exactlyOne: ['beacon', 'seed-hex'],
  },
  'out-dir': {
    type: 'string',
    char: 'o',
    description: 'Directory for selection.csv and proof.json (created if missing).',
    default: '.',
  },
  force: { type: 'boolean', description: 'Overwrite existing selection.csv / proof.json.', default: false },
} as const satisfies FlagSpecs;

export interface DrawFlags {
  commitment: string;
  frame: string;
  beacon?: string;
  'seed-hex'?: string;
  'out-dir': string;
  force: boolean;
  json: boolean;
}

export async function runSelectDraw(flags: DrawFlags, io: Io): Promise<void> {
  const commitment = parseCommitment(
    readJsonFile(flags.commitment, 'commitment', 'the commitment JSON of `sample select commit`'),
    flags.commitment,
  );
  const randomness: RandomnessInput =
    flags['seed-hex'] !== undefined
      ? { seedHex: flags['seed-hex'] }
      : { beacon: readJsonFile(flags.beacon!, 'beacon', 'a drand round JSON {round, randomness, signature}') };
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
