import { BaseCommand, toOclifFlags } from '../../../cli/base.ts';
import { COMMIT_FLAGS, type CommitFlags } from '../../../cli/sample/flags.ts';
import { runSelectCommit } from '../../../cli/sample/select-commit.ts';

export default class SampleSelectCommit extends BaseCommand {
  static override summary =
    'Commit to a selection before any randomness exists: design, frameHash, n per stratum and a future round of a public drand chain.';
  static override description =
    'Reads the design (the JSON of `sample calc --json`, a registry record, or a calc input) — whose sizes must follow from its own ' +
    'parameters — and the household frame CSV (household_id[,stratum][,adopter] plus any other columns), checks the frame against ' +
    'the design, and writes the commitment of algorithm cookstove-sampling/v1 for a future round of drand quicknet (or default). ' +
    'Publish the commitment before the chosen round is produced and keep a record of when. See docs/selection.md.';
  static override examples = [
    '<%= config.bin %> sample calc -N 1200 --mean 2.4 --sd 1.1 --dropout 0.1 --json > design.json',
    '<%= config.bin %> sample select commit --design design.json --frame households.csv --out commitment.json',
    '<%= config.bin %> sample select commit --design design.json --frame households.csv --chain default --delay 86400 --out commitment.json',
    '<%= config.bin %> sample select commit -N 1200 --mean 2.4 --sd 1.1 --dropout 0.1 --frame households.csv --out commitment.json',
  ];
  static override flags = toOclifFlags(COMMIT_FLAGS);

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleSelectCommit);
    await runSelectCommit(flags as unknown as CommitFlags, this);
  }
}
