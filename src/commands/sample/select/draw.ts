import { BaseCommand } from '../../../cli/base.ts';
import { toOclifFlags } from '../../../cli/oclif-flags.ts';
import { DRAW_FLAGS, type DrawFlags } from '../../../cli/sample/flags.ts';
import { runSelectDraw } from '../../../cli/sample/select-draw.ts';

export default class SampleSelectDraw extends BaseCommand {
  static override summary =
    "Draw the committed selection with the beacon round (or a verifier's own randomness): sample, replacement order and proof.";
  static override description =
    'Verifies the drand round JSON ({round, randomness, signature}) against the committed chain public key, checks the frame ' +
    'against the commitment, and writes selection.csv (every household in rank order: the sample, then the replacement ' +
    "list, with the frame's other columns) and proof.json (everything needed to recompute). With --seed-hex a verification " +
    'authority performing the selection itself supplies the randomness; only that verifier can accept the result. See docs/selection.md.';
  static override examples = [
    '<%= config.bin %> sample select beacon --commitment commitment.json --out round.json',
    '<%= config.bin %> sample select draw --commitment commitment.json --frame households.csv --beacon round.json --out-dir selection/',
    '<%= config.bin %> sample select draw --commitment commitment.json --frame households.csv --seed-hex 9f2c4e0d1b7a66e3a1c0de5f00112233 --out-dir selection/',
  ];
  static override flags = toOclifFlags(DRAW_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleSelectDraw);
    await runSelectDraw(flags as unknown as DrawFlags, this);
  }
}
