import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { parseNumberFlag, parseStratumFlag, readJsonInput, withFlagNames } from '../../cli/sampling-input.ts';
import { renderComparison, renderDesign, renderExplain, renderSensitivity, type Format } from '../../cli/sampling-render.ts';
import { computeDesign } from '../../lib/sampling/design.ts';
import { explainDesign } from '../../lib/sampling/explain.ts';
import { compareAllocations } from '../../lib/sampling/compare.ts';
import { sensitivity } from '../../lib/sampling/sensitivity.ts';
import { samplingError } from '../../lib/sampling/errors.ts';

export default class SampleCalc extends BaseCommand {
  static override summary = 'Compute a 95/5 sample size: finite-population corrected, dropout-adjusted, optionally stratified.';
  static override description = `Runs the chain of sampling.md (docs/sampling.md): z = 1.959963984540054, CV = SD/mean,
n0 = (z·CV/0.05)², n_fpc = N·n0/(N−1+n0), calculatedSize = ceil(n_fpc), adjustedSize = ceil(calculatedSize/(1−d))
computed exactly. Precision is relative (±5 % of the mean); 95/5 is mandatory. Works offline.

Inputs come from flags or from --input (the POST /v1/sampling body as JSON; - for stdin); flags override the file.`;
  static override enableJsonFlag = false;
  static override examples = [
    { description: 'A single population of 8,000 households', command: '<%= config.bin %> <%= command.id %> --population 8000 --mean 3.1 --sd 1.7 --dropout 0.1' },
    { description: 'Two strata inheriting the overall mean and SD, as JSON', command: '<%= config.bin %> <%= command.id %> -N 6000 --mean 1.2 --sd 0.5 --dropout 0.1 --stratum north=0.55 --stratum south=0.45 --json' },
    { description: 'Strata with their own mean and SD, with the comparison of allocations', command: '<%= config.bin %> <%= command.id %> -N 15000 --mean 2 --sd 1 --dropout 0.08 --stratum lpg=0.5:2.6:0.9 --stratum biomass=0.3:1.8:1.2 --stratum electric=0.2:1.4:1.1 --compare' },
    { description: 'A proportion (share of households using the stove) instead of a mean', command: '<%= config.bin %> <%= command.id %> -N 5000 --proportion 0.7 --dropout 0.1' },
    { description: 'Every step with the numbers substituted, for an auditor', command: '<%= config.bin %> <%= command.id %> -N 200000 --mean 1 --sd 0.453 --dropout 0.3 --explain' },
    { description: 'From a JSON body on stdin, as Markdown', command: 'cat design.json | <%= config.bin %> <%= command.id %> --input - --format markdown' },
  ];
  static override flags = {
    population: Flags.string({ char: 'N', description: 'Households in the frame (N), an integer >= 1.' }),
    mean: Flags.string({ description: 'Expected mean of the indicator (e.g. hours of stove use per day), > 0.' }),
    sd: Flags.string({ description: 'Expected standard deviation, > 0.' }),
    proportion: Flags.string({ description: 'Expected proportion p (0 < p < 1) instead of --mean/--sd: mean = p, SD = sqrt(p(1−p)).' }),
    dropout: Flags.string({ description: 'Expected dropout rate, a fraction 0 <= d < 1 (0.15, not 15).' }),
    stratum: Flags.string({ description: 'A stratum as name=weight[:mean:sd]; repeat for each. Weights sum to 1.', multiple: true }),
    'er-coverage': Flags.string({ description: 'ER coverage to record (0..1); default 1 − dropout.' }),
    confidence: Flags.string({ description: 'Accepted only as 0.95.' }),
    precision: Flags.string({ description: 'Accepted only as 0.05 (relative).' }),
    input: Flags.string({ char: 'i', description: 'A JSON design body (the POST /v1/sampling body); - for stdin.' }),
    format: Flags.string({ char: 'f', description: 'Output format.', options: ['table', 'csv', 'markdown'], default: 'table' }),
    explain: Flags.boolean({ description: 'Show each step of the chain with the numbers substituted, its source and rounding.' }),
    compare: Flags.boolean({ description: 'Stratified designs: compare with one overall size allocated proportionally and by Neyman.' }),
    sensitivity: Flags.boolean({ description: 'A grid of adjustedSize over CVs and dropout rates around the inputs.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleCalc);
    const body: Record<string, unknown> = flags.input ? toObject(readJsonInput(flags.input, '--input')) : {};
    const set = (k: string, v: unknown) => {
      if (v !== undefined) body[k] = v;
    };
    set('population', parseNumberFlag(flags.population, '--population', 'invalid_population', 'an integer >= 1'));
    set('expectedMean', parseNumberFlag(flags.mean, '--mean', 'invalid_mean', 'a number > 0'));
    set('expectedSD', parseNumberFlag(flags.sd, '--sd', 'invalid_sd', 'a number > 0'));
    set('expectedProportion', parseNumberFlag(flags.proportion, '--proportion', 'invalid_proportion', 'a number with 0 < p < 1'));
    set('dropoutRate', parseNumberFlag(flags.dropout, '--dropout', 'invalid_dropout', 'a fraction 0 <= d < 1'));
    set('erCoverage', parseNumberFlag(flags['er-coverage'], '--er-coverage', 'invalid_er_coverage', 'a fraction 0 <= c <= 1'));
    set('confidence', parseNumberFlag(flags.confidence, '--confidence', 'confidence_must_be_0.95', '0.95'));
    set('precision', parseNumberFlag(flags.precision, '--precision', 'precision_must_be_0.05', '0.05'));
    if (flags.stratum?.length) body.stratification = { enabled: true, strata: flags.stratum.map(parseStratumFlag) };
    const design = withFlagNames(() => computeDesign(body));
    const stratified = design.stratification.strata.length > 0;
    if (flags.compare && !stratified) {
      throw samplingError('invalid_strata', '--compare', true, 'a stratified design (give --stratum name=weight at least once)');
    }
    const explain = flags.explain ? explainDesign(design) : undefined;
    const comparison = flags.compare ? compareAllocations(design) : undefined;
    const sens = flags.sensitivity ? sensitivity(design) : undefined;
    if (flags.json) {
      this.outJson({ ...design, ...(explain && { explain }), ...(comparison && { comparison }), ...(sens && { sensitivity: sens }) });
      return;
    }
    const format = flags.format as Format;
    const parts = [renderDesign(design, format)];
    if (explain) parts.push(renderExplain(explain, format));
    if (comparison) parts.push(renderComparison(comparison, format));
    if (sens) parts.push(renderSensitivity(sens, format));
    this.out(parts.join('\n\n'));
  }
}

function toObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw samplingError('missing_parameter', '--input', v, 'a JSON object (the POST /v1/sampling body)');
  }
  return { ...(v as Record<string, unknown>) };
}
