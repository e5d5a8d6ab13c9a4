import { BaseCommand } from '../../cli/base.ts';
import { refuseRepeatedFlag } from '../../cli/flag-spec.ts';
import { toOclifFlags } from '../../cli/oclif-flags.ts';
import { runSampleCalc } from '../../cli/sample/calc.ts';
import { CALC_FLAGS, type CalcFlags } from '../../cli/sample/flags.ts';

export default class SampleCalc extends BaseCommand {
  static override summary =
    'Compute a 95/5 sample size: finite-population corrected, dropout-adjusted, optionally stratified.';
  static override description = `Runs the sample-size chain of docs/sampling.md: z = 1.959963984540054, CV = SD/mean,
n0 = (z·CV/0.05)², n_fpc = N·n0/(N−1+n0), calculatedSize = ceil(n_fpc), adjustedSize = ceil(calculatedSize/(1−d))
computed exactly. Precision is relative (±5 % of the mean); 95/5 is mandatory. Works offline.

Inputs come from flags or from --input (the POST /v1/sampling body as JSON; - for stdin); flags override the file.`;
  static override examples = [
    {
      description: 'A single population of 8,000 households',
      command: '<%= config.bin %> <%= command.id %> --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1',
    },
    {
      description: 'Two strata inheriting the overall mean and SD, as JSON',
      command:
        '<%= config.bin %> <%= command.id %> -N 6000 --mean 1.2 --sd 0.5 --dropout 0.1 --stratum north=0.55 --stratum south=0.45 --json',
    },
    {
      description: 'Strata with their own mean and SD, with the comparison of allocations',
      command:
        '<%= config.bin %> <%= command.id %> -N 15000 --mean 2 --sd 1 --dropout 0.08 --stratum lpg=0.5:2.6:0.9 --stratum biomass=0.3:1.8:1.2 --stratum electric=0.2:1.4:1.1 --compare',
    },
    {
      description: 'A proportion (share of households using the stove) instead of a mean',
      command: '<%= config.bin %> <%= command.id %> -N 5000 --proportion 0.7 --dropout 0.1',
    },
    {
      description: 'Every step with the numbers substituted, for an auditor',
      command: '<%= config.bin %> <%= command.id %> -N 200000 --mean 1 --sd 0.453 --dropout 0.3 --explain',
    },
    {
      description: 'From a JSON body on stdin, as Markdown',
      command: 'cat design.json | <%= config.bin %> <%= command.id %> --input - --format markdown',
    },
    {
      description: 'Store the design in the registry for a project',
      command:
        '<%= config.bin %> <%= command.id %> -N 8000 --mean 3.1 --sd 1.7 --dropout 0.1 --save --project did:ixo:entity:0123456789abcdef0123456789abcdef',
    },
  ];
  static override flags = toOclifFlags(CALC_FLAGS);

  async run(): Promise<void> {
    const refused = refuseRepeatedFlag(this.argv, CALC_FLAGS);
    if (refused !== undefined) this.exit(refused);
    const { flags } = await this.parse(SampleCalc);
    await runSampleCalc(flags as unknown as CalcFlags, this);
  }
}
