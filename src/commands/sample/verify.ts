import { BaseCommand, toOclifFlags } from '../../cli/base.ts';
import { VERIFY_FLAGS, type VerifyFlags } from '../../cli/sample/flags.ts';
import { runVerify } from '../../cli/sample/verify.ts';

export default class SampleVerify extends BaseCommand {
  static override summary =
    'Recompute a selection from the frame, the commitment and the proof: exit 0 verified, 10 a mismatch, 11 randomness that cannot be trusted.';
  static override description =
    "Checks, in order: the proof refers to this commitment; the committed design's sizes follow from its parameters; the frame's " +
    "frameHash (and per-stratum hashes, and the file's sha256) match the commitment; the beacon round is the committed one and its " +
    'BLS signature verifies; the seed; every ticket, the sample and the replacement order; and, with --selection, every row of ' +
    'selection.csv. The randomness is trusted only if it is a round of a pinned public drand chain (quicknet, default) produced after ' +
    'committedAt and after the commitment was published (--published-at), or your own (--seed-hex). See docs/selection.md.';
  static override examples = [
    '<%= config.bin %> sample verify --frame households.csv --commitment commitment.json --proof selection/proof.json --published-at 2026-09-16T14:05:00Z',
    '<%= config.bin %> sample verify --frame households.csv --commitment commitment.json --proof selection/proof.json --selection selection/selection.csv --published-at 2026-09-16T14:05:00Z --json',
    '<%= config.bin %> sample verify --frame households.csv --commitment commitment.json --proof mine/proof.json --seed-hex 9f2c4e0d1b7a66e3a1c0de5f00112233',
  ];
  static override flags = toOclifFlags(VERIFY_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleVerify);
    const code = await runVerify(flags as unknown as VerifyFlags, this);
    if (code !== 0) {
      process.exitCode = code;
      this.exit(code);
    }
  }
}
