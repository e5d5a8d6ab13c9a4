import { Flags } from '@oclif/core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BaseCommand } from '../../../cli/base.ts';
import { paint, textTable } from '../../../cli/output.ts';
import { progressLine, progressText } from '../../../cli/progress.ts';
import { selectionError } from '../../../lib/selection/errors.ts';
import { readJsonFile, writeJsonFile } from '../../../lib/selection/io.ts';
import { parseCommitment } from '../../../lib/selection/records.ts';
import { drawSelection, type RandomnessInput } from '../../../lib/selection/workflow.ts';

export default class SampleSelectDraw extends BaseCommand {
  static override summary = 'Draw the committed selection with the beacon round (or a verifier\'s randomness): sample, replacement order and proof.';
  static override description =
    'Verifies the drand round JSON ({round, randomness, signature}) against the committed chain public key, checks the frame ' +
    'against the commitment, and writes selection.csv (every household in rank order: the sample, then the replacement ' +
    'list, with the frame\'s other columns) and proof.json (everything needed to recompute). With --seed-hex a verifier ' +
    'supplies the randomness instead of the beacon; the proof records it as such. See docs/selection.md.';
  static override enableJsonFlag = false;
  static override examples = [
    'curl -s https://api.drand.sh/52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971/public/12345678 > round.json',
    '<%= config.bin %> sample select draw --commitment commitment.json --frame households.csv --beacon round.json --out-dir selection/',
    '<%= config.bin %> sample select draw --commitment commitment.json --frame households.csv --seed-hex 9f2c4e0d1b7a66e3a1c0de5f00112233 --out-dir selection/',
  ];
  static override flags = {
    commitment: Flags.string({ char: 'c', description: 'The commitment JSON written by `sample select commit`.', required: true }),
    frame: Flags.string({ char: 'f', description: 'The household frame CSV the commitment was made on.', required: true }),
    beacon: Flags.string({ char: 'b', description: 'The committed drand round as JSON ({round, randomness, signature[, previous_signature]}).', exactlyOne: ['beacon', 'seed-hex'] }),
    'seed-hex': Flags.string({ description: 'Randomness supplied by a verifier instead of the beacon (hex, 16 to 128 bytes).', exactlyOne: ['beacon', 'seed-hex'] }),
    'out-dir': Flags.string({ char: 'o', description: 'Directory for selection.csv and proof.json (created if missing).', default: '.' }),
    force: Flags.boolean({ description: 'Overwrite existing selection.csv / proof.json.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleSelectDraw);
    const commitment = parseCommitment(readJsonFile(flags.commitment, 'commitment', 'the commitment JSON of `sample select commit`'), flags.commitment);
    const randomness: RandomnessInput = flags['seed-hex'] !== undefined
      ? { seedHex: flags['seed-hex'] }
      : { beacon: readJsonFile(flags.beacon!, 'beacon', 'a drand round JSON {round, randomness, signature}') };
    mkdirSync(flags['out-dir'], { recursive: true });
    const proofPath = join(flags['out-dir'], 'proof.json');
    for (const p of [proofPath, join(flags['out-dir'], 'selection.csv')]) {
      if (existsSync(p) && !flags.force) {
        throw selectionError('invalid_proof', '--out-dir', p, 'a directory without selection.csv / proof.json (or --force)', {
          message: `${p} exists; choose another --out-dir or pass --force`,
        });
      }
    }
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
    if (flags.json) {
      this.outJson({ selection: r.selectionPath, proof: proofPath, proofContent: r.proof });
      return;
    }
    const p = r.proof;
    const src = p.randomness.source === 'drand' ? `drand round ${p.randomness.round} (verified)` : paint.yellow('randomness supplied by the verifier (--seed-hex)');
    this.out(`${paint.bold('Selection')} ${commitment.algorithm}: ${src}`);
    this.out(`  seed  ${p.seed}`);
    this.out(textTable(['stratum', 'households', 'n', 'first sampled', 'first replacement'], p.strata.map((s, i) => {
      const st = r.selection.strata[i]!;
      const next = st.order.length > s.sampleSize ? r.frame.ids[st.order[s.sampleSize]!] : '';
      return [s.name, s.households, s.sampleSize, s.sample.slice(0, 3).map((x) => x.household_id).join(' ') + (s.sample.length > 3 ? ' …' : ''), next];
    })));
    this.out(`Wrote ${r.selectionPath} (${p.selection.rows} rows: sample, then replacements in order) and ${proofPath}.`);
    this.out(`Verify: oraclekit sample verify --frame ${flags.frame} --commitment ${flags.commitment} --proof ${proofPath} --selection ${r.selectionPath}`);
  }
}
