import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { paint } from '../../cli/output.ts';
import { progressLine, progressText } from '../../cli/progress.ts';
import { EXIT_CODES } from '../../lib/errors.ts';
import { readJsonFile } from '../../lib/selection/io.ts';
import { parseCommitment, parseProof } from '../../lib/selection/records.ts';
import { verifySelection } from '../../lib/selection/workflow.ts';

export default class SampleVerify extends BaseCommand {
  static override summary = 'Recompute a selection from the frame, the commitment and the proof; exit 0 with a verdict or 10 naming the first mismatch.';
  static override description =
    'Checks, in order: the proof refers to this commitment; the committed round was produced after the commitment time; ' +
    'the frame\'s frameHash (and per-stratum hashes, and the file\'s sha256) match the commitment; the beacon round is the ' +
    'committed one and its BLS signature verifies against the chain public key; the seed; every ticket and the sample and ' +
    'replacement order; and, with --selection, every row of selection.csv. See docs/selection.md.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> sample verify --frame households.csv --commitment commitment.json --proof selection/proof.json',
    '<%= config.bin %> sample verify --frame households.csv --commitment commitment.json --proof selection/proof.json --selection selection/selection.csv --json',
  ];
  static override flags = {
    frame: Flags.string({ char: 'f', description: 'The household frame CSV.', required: true }),
    commitment: Flags.string({ char: 'c', description: 'The published commitment JSON.', required: true }),
    proof: Flags.string({ char: 'p', description: 'The proof JSON written by `sample select draw`.', required: true }),
    selection: Flags.string({ char: 's', description: 'Also check every row of this selection.csv.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleVerify);
    const commitment = parseCommitment(readJsonFile(flags.commitment, 'commitment', 'the commitment JSON of `sample select commit`'), flags.commitment);
    const proof = parseProof(readJsonFile(flags.proof, 'proof', 'the proof JSON of `sample select draw`'), flags.proof);
    const progress = progressLine(!flags.json && Boolean(process.stderr.isTTY));
    const r = await verifySelection({
      commitment,
      proof,
      framePath: flags.frame,
      ...(flags.selection !== undefined ? { selectionPath: flags.selection } : {}),
      onProgress: (p) => progress.update(progressText(p)),
    });
    progress.done();
    if (flags.json) this.outJson(r);
    else if (r.ok) {
      this.out(`${paint.green('OK')} ${r.summary}`);
      for (const n of r.notes) this.out(paint.yellow(`note: ${n}`));
    } else {
      process.stderr.write(`${paint.red('MISMATCH')} [${r.mismatch!.check}] ${r.mismatch!.message}\n`);
    }
    if (!r.ok) {
      process.exitCode = EXIT_CODES.verificationFailed;
      this.exit(EXIT_CODES.verificationFailed);
    }
  }
}
