/**
 * `oraclekit sample recalc`: flags (one spec for oclif and the fast path) and
 * the run function.
 */
import { RECALC_FLAGS, type RecalcFlags } from './flags.ts';
import type { Io } from '../io.ts';
import {
  canPrompt,
  parseNumberFlag,
  parsePopulationFlag,
  readJsonInput,
  readTextInput,
  withFlagNames,
} from './input.ts';
import { renderRecalc, type Format } from './render.ts';
import { samplingError } from '../../lib/sampling/errors.ts';
import { provenanceOf } from '../../lib/sampling/design.ts';
import { packageVersion } from '../../lib/version.ts';
import {
  parseObservationsCsv,
  recalculate,
  type ObservedStratum,
  type PreviousDesign,
  type RecalcInput,
} from '../../lib/sampling/recalc.ts';

/**
 * Without a previous design or --input, the population, the observed values (or observations) and the dropout are
 * needed.
 */
function missingInputs(f: RecalcFlags): boolean {
  if (f.previous !== undefined || f.input !== undefined) return false;
  const values = f.observations !== undefined || (f.mean !== undefined && f.sd !== undefined);
  return f.population === undefined || !values || f.dropout === undefined;
}

export async function runSampleRecalc(given: RecalcFlags, io: Io): Promise<void> {
  let flags = given;
  // a person at a terminal who left inputs out is asked for them (src/cli/sample/guided.ts, loaded only then)
  const guided = missingInputs(flags) && flags.observations !== '-' && canPrompt(Boolean(flags.json));
  if (guided) {
    const { guideRecalc } = await import('./guided.ts');
    flags = await guideRecalc(flags);
  }
  if (flags.input === '-' && (flags.observations === '-' || flags.previous === '-')) {
    throw samplingError('invalid_observation', '--input', '-', 'only one input may read standard input');
  }
  const input: RecalcInput = {};
  if (flags.input) Object.assign(input, observedFromJson(readJsonInput(flags.input, '--input')));
  if (flags.previous) input.previous = readJsonInput(flags.previous, '--previous') as PreviousDesign;
  const num = (v: string | undefined, flag: string, code: Parameters<typeof parseNumberFlag>[2], valid: string) =>
    parseNumberFlag(v, flag, code, valid);
  const population = parsePopulationFlag(flags.population);
  if (population !== undefined) input.population = population.value;
  const mean = num(flags.mean, '--mean', 'invalid_mean', 'a number > 0');
  if (mean !== undefined) input.mean = mean;
  const sd = num(flags.sd, '--sd', 'invalid_sd', 'a number > 0');
  if (sd !== undefined) input.sd = sd;
  const dropout = num(flags.dropout, '--dropout', 'invalid_dropout', 'a fraction 0 <= d < 1');
  if (dropout !== undefined) input.dropoutRate = dropout;
  const er = num(flags['er-coverage'], '--er-coverage', 'invalid_er_coverage', 'a fraction 0 <= c <= 1');
  if (er !== undefined) input.erCoverage = er;
  if (flags.observed?.length) input.strata = [...(input.strata ?? []), ...flags.observed.map(parseObserved)];
  if (flags.observations)
    input.observations = parseObservationsCsv(
      readTextInput(flags.observations, '--observations'),
      flags.observations === '-' ? 'stdin' : flags.observations,
      { signed: flags.signed },
    );
  if (!input.previous && input.population === undefined) {
    throw samplingError(
      'missing_parameter',
      '--previous',
      undefined,
      'a previous design (--previous design.json), or --population with the observed values',
    );
  }
  const result = withFlagNames(() => recalculate(input));
  if (flags.json)
    io.outJson({ ...result, design: { ...result.design, provenance: provenanceOf(packageVersion(), new Date()) } });
  else io.out(renderRecalc(result, flags.format as Format, population?.typed));
  if (guided) {
    const { commandLine } = await import('./guided.ts');
    io.out(`\nThe same recalculation from the command line:\n  ${commandLine('sample recalc', RECALC_FLAGS, flags)}`);
  }
  const missing = result.achieved?.notObserved ?? [];
  if (missing.length > 0)
    throw samplingError(
      'strata_not_observed',
      '--observations',
      missing,
      `observations of every stratum of the design (${result.design.stratification.strata.map((s) => s.name).join(', ')})`,
      {
        message: `${missing.join(', ')}: no completed observation in ${flags.observations}, so their precision was not checked (allMet is false; the result above keeps the previous design's values for them); valid: observations of every stratum`,
      },
    );
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
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw samplingError('missing_parameter', '--input', v, 'a JSON object {mean?, sd?, dropoutRate?, strata?}');
  const o = v as Record<string, unknown>;
  const allowed = new Set(['mean', 'sd', 'dropoutRate', 'erCoverage', 'population', 'strata']);
  for (const k of Object.keys(o))
    if (!allowed.has(k)) throw samplingError('unknown_field', `--input ${k}`, o[k], [...allowed].join(', '));
  const out: Partial<RecalcInput> = {};
  for (const k of ['mean', 'sd', 'dropoutRate', 'erCoverage', 'population'] as const) {
    if (o[k] !== undefined) {
      if (typeof o[k] !== 'number')
        throw samplingError(
          k === 'population'
            ? 'invalid_population'
            : k === 'sd'
              ? 'invalid_sd'
              : k === 'dropoutRate'
                ? 'invalid_dropout'
                : k === 'erCoverage'
                  ? 'invalid_er_coverage'
                  : 'invalid_mean',
          `--input ${k}`,
          o[k],
          'a number',
        );
      out[k] = o[k] as number;
    }
  }
  if (o.strata !== undefined) {
    if (!Array.isArray(o.strata))
      throw samplingError('invalid_strata', '--input strata', o.strata, 'an array of {name, mean?, sd?}');
    out.strata = o.strata as ObservedStratum[];
  }
  return out;
}
