import { BaseCommand } from '../../cli/base.ts';
import { refuseRepeatedFlag } from '../../cli/flag-spec.ts';
import { toOclifFlags } from '../../cli/oclif-flags.ts';
import { RECALC_FLAGS, type RecalcFlags } from '../../cli/sample/flags.ts';
import { runSampleRecalc } from '../../cli/sample/recalc.ts';
export default class SampleRecalc extends BaseCommand {
  static override summary =
    'Recalculate the sample size after a monitoring period, from observed values or raw observations.';
  static override description = `Runs the same 95/5 chain as \`sample calc\` with the observed mean, SD and dropout
(per stratum where observed) against the previous design's population and strata, and says whether the
size went up or down and by how much. From raw observations (CSV household,value[,stratum]) it computes
the mean, the SD (n − 1) and the achieved relative precision r = z·s/(x̄·√n)·√(1 − n/N) of the completed
observations, and whether r <= 0.05.`;
  static override examples = [
    {
      description: 'Observed values against the previous design',
      command: '<%= config.bin %> <%= command.id %> --previous design.json --mean 2.8 --sd 1.9 --dropout 0.12',
    },
    {
      description: 'Per-stratum observed values',
      command:
        '<%= config.bin %> <%= command.id %> --previous design.json --observed lpg=2.4:1.0 --observed biomass=1.9:1.3',
    },
    {
      description: 'Raw observations from the monitoring period',
      command: '<%= config.bin %> <%= command.id %> --previous design.json --observations period1.csv',
    },
    {
      description: 'Without a previous design',
      command: '<%= config.bin %> <%= command.id %> --population 8000 --observations period1.csv --dropout 0.1 --json',
    },
  ];
  static override flags = toOclifFlags(RECALC_FLAGS);

  async run(): Promise<void> {
    const refused = refuseRepeatedFlag(this.argv, RECALC_FLAGS);
    if (refused !== undefined) this.exit(refused);
    const { flags } = await this.parse(SampleRecalc);
    await runSampleRecalc(flags as unknown as RecalcFlags, this);
  }
}
