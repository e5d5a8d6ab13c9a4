import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base.ts';
import { parseNumberFlag, readJsonInput, readTextInput, withFlagNames } from '../../cli/sampling-input.ts';
import { renderRecalc, type Format } from '../../cli/sampling-render.ts';
import { samplingError } from '../../lib/sampling/errors.ts';
import { parseObservationsCsv, recalculate, type ObservedStratum, type PreviousDesign, type RecalcInput } from '../../lib/sampling/recalc.ts';

export default class SampleRecalc extends BaseCommand {
  static override summary = 'Recalculate the sample size after a monitoring period, from observed values or raw observations.';
  static override description = `Runs the same 95/5 chain as \`sample calc\` with the observed mean, SD and dropout
(per stratum where observed) against the previous design's population and strata, and says whether the
size went up or down and by how much. From raw observations (CSV household,value[,stratum]) it computes
the mean, the SD (n − 1) and the achieved relative precision r = z·s/(x̄·√n)·√(1 − n/N) of the completed
observations, and whether r <= 0.05.`;
  static override enableJsonFlag = false;
  static override examples = [
    { description: 'Observed values against the previous design', command: '<%= config.bin %> <%= command.id %> --previous design.json --mean 2.8 --sd 1.9 --dropout 0.12' },
    { description: 'Per-stratum observed values', command: '<%= config.bin %> <%= command.id %> --previous design.json --observed lpg=2.4:1.0 --observed biomass=1.9:1.3' },
    { description: 'Raw observations from the monitoring period', command: '<%= config.bin %> <%= command.id %> --previous design.json --observations period1.csv' },
    { description: 'Without a previous design', command: '<%= config.bin %> <%= command.id %> --population 8000 --observations period1.csv --dropout 0.1 --json' },
  ];
  static override flags = {
    previous: Flags.string({ char: 'p', description: 'The previous design (JSON of `sample calc --json`, or a registry design record).' }),
    population: Flags.string({ char: 'N', description: 'Households in the frame, when there is no previous design.' }),
    mean: Flags.string({ description: 'Observed mean (overall).' }),
    sd: Flags.string({ description: 'Observed standard deviation (overall).' }),
    dropout: Flags.string({ description: 'Observed dropout rate, 0 <= d < 1 (default: the previous design’s).' }),
    'er-coverage': Flags.string({ description: 'ER coverage to record (0..1).' }),
    observed: Flags.string({ description: 'Observed values of a stratum as name=mean:sd; repeat per stratum.', multiple: true }),
    observations: Flags.string({ char: 'o', description: 'Raw observations CSV with a header household,value[,stratum]; - for stdin.' }),
    input: Flags.string({ char: 'i', description: 'Observed values as JSON {mean?, sd?, dropoutRate?, erCoverage?, strata?: [{name, mean?, sd?}]}; - for stdin.' }),
    format: Flags.string({ char: 'f', description: 'Output format.', options: ['table', 'csv', 'markdown'], default: 'table' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(SampleRecalc);
    if (flags.input === '-' && (flags.observations === '-' || flags.previous === '-')) {
      throw samplingError('invalid_observation', '--input', '-', 'only one input may read standard input');
    }
    const input: RecalcInput = {};
    if (flags.input) Object.assign(input, observedFromJson(readJsonInput(flags.input, '--input')));
    if (flags.previous) input.previous = readJsonInput(flags.previous, '--previous') as PreviousDesign;
    const num = (v: string | undefined, flag: string, code: Parameters<typeof parseNumberFlag>[2], valid: string) => parseNumberFlag(v, flag, code, valid);
    const population = num(flags.population, '--population', 'invalid_population', 'an integer >= 1');
    if (population !== undefined) input.population = population;
    const mean = num(flags.mean, '--mean', 'invalid_mean', 'a number > 0');
    if (mean !== undefined) input.mean = mean;
    const sd = num(flags.sd, '--sd', 'invalid_sd', 'a number > 0');
    if (sd !== undefined) input.sd = sd;
    const dropout = num(flags.dropout, '--dropout', 'invalid_dropout', 'a fraction 0 <= d < 1');
    if (dropout !== undefined) input.dropoutRate = dropout;
    const er = num(flags['er-coverage'], '--er-coverage', 'invalid_er_coverage', 'a fraction 0 <= c <= 1');
    if (er !== undefined) input.erCoverage = er;
    if (flags.observed?.length) input.strata = [...(input.strata ?? []), ...flags.observed.map(parseObserved)];
    if (flags.observations) input.observations = parseObservationsCsv(readTextInput(flags.observations, '--observations'), flags.observations === '-' ? 'stdin' : flags.observations);
    if (!input.previous && input.population === undefined) {
      throw samplingError('missing_parameter', '--previous', undefined, 'a previous design (--previous design.json), or --population with the observed values');
    }
    const result = withFlagNames(() => recalculate(input));
    if (flags.json) this.outJson(result);
    else this.out(renderRecalc(result, flags.format as Format));
  }
}

function parseObserved(spec: string, i: number): ObservedStratum {
  const f = `--observed #${i + 1}`;
  const eq = spec.lastIndexOf('=');
  const parts = eq > 0 ? spec.slice(eq + 1).split(':') : [];
  if (eq <= 0 || parts.length !== 2) throw samplingError('invalid_strata', f, spec, 'name=mean:sd, e.g. lpg=2.4:1.0');
  return {
    name: spec.slice(0, eq),
    mean: parseNumberFlag(parts[0], `${f} mean`, 'invalid_mean', 'a number > 0')!,
    sd: parseNumberFlag(parts[1], `${f} sd`, 'invalid_sd', 'a number > 0')!,
  };
}

function observedFromJson(v: unknown): Partial<RecalcInput> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw samplingError('missing_parameter', '--input', v, 'a JSON object {mean?, sd?, dropoutRate?, strata?}');
  const o = v as Record<string, unknown>;
  const allowed = new Set(['mean', 'sd', 'dropoutRate', 'erCoverage', 'population', 'strata']);
  for (const k of Object.keys(o)) if (!allowed.has(k)) throw samplingError('unknown_field', `--input ${k}`, o[k], [...allowed].join(', '));
  const out: Partial<RecalcInput> = {};
  for (const k of ['mean', 'sd', 'dropoutRate', 'erCoverage', 'population'] as const) {
    if (o[k] !== undefined) {
      if (typeof o[k] !== 'number') throw samplingError(k === 'population' ? 'invalid_population' : k === 'sd' ? 'invalid_sd' : k === 'dropoutRate' ? 'invalid_dropout' : k === 'erCoverage' ? 'invalid_er_coverage' : 'invalid_mean', `--input ${k}`, o[k], 'a number');
      out[k] = o[k] as number;
    }
  }
  if (o.strata !== undefined) {
    if (!Array.isArray(o.strata)) throw samplingError('invalid_strata', '--input strata', o.strata, 'an array of {name, mean?, sd?}');
    out.strata = o.strata as ObservedStratum[];
  }
  return out;
}
