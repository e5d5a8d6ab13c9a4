import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { computeDesign } from '../../lib/sampling/design.ts';

export default class SampleCalc extends BaseCommand {
  static override summary = 'Compute a 95/5 sample size (finite-population corrected, dropout-adjusted, optionally stratified).';
  static override enableJsonFlag = false;
  static override flags = {
    population: Flags.integer({ char: 'N', description: 'Households in the frame (N).' }),
    mean: Flags.string({ description: 'Expected mean of the indicator.' }),
    sd: Flags.string({ description: 'Expected standard deviation.' }),
    dropout: Flags.string({ description: 'Expected dropout rate, a fraction 0 <= d < 1.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleCalc);
    const design = computeDesign({ population: flags.population, expectedMean: Number(flags.mean), expectedSD: Number(flags.sd), dropoutRate: Number(flags.dropout) });
    if (flags.json) this.outJson(design);
    else this.out(`adjustedSize ${design.parameters.adjustedSize}`);
  }
}
