/**
 * `oraclekit sample calc`: flags (one spec for oclif and the fast path) and
 * the run function. Imports nothing heavy: its cold start is benchmarked.
 */
import { CALC_FLAGS, type CalcFlags } from './flags.ts';
import type { Io } from '../io.ts';
import {
  canPrompt,
  parseNumberFlag,
  parsePopulationFlag,
  parseStratumFlag,
  readJsonInput,
  withFlagNames,
} from './input.ts';
import { renderComparison, renderDesign, renderExplain, renderSensitivity, type Format } from './render.ts';
import { computeDesign, designInputOf, provenanceOf } from '../../lib/sampling/design.ts';
import { packageVersion } from '../../lib/version.ts';
import { samplingError } from '../../lib/sampling/errors.ts';

/** The engine's input from --input and the flags (flags override the file). */
function bodyFromFlags(flags: CalcFlags, typed: { text?: string } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = flags.input ? toObject(readJsonInput(flags.input, '--input', typed)) : {};
  // a population written beyond 2^53 − 1 is refused with the digits as written, not the double they read as
  if (flags.population === undefined && typed.text !== undefined) parsePopulationFlag(typed.text, '--input population');
  const set = (k: string, v: unknown) => {
    if (v !== undefined) body[k] = v;
  };
  set('population', parsePopulationFlag(flags.population)?.value);
  set('expectedMean', parseNumberFlag(flags.mean, '--mean', 'invalid_mean', 'a number > 0'));
  set('expectedSD', parseNumberFlag(flags.sd, '--sd', 'invalid_sd', 'a number > 0'));
  set(
    'expectedProportion',
    parseNumberFlag(flags.proportion, '--proportion', 'invalid_proportion', 'a number with 0 < p < 1'),
  );
  set('dropoutRate', parseNumberFlag(flags.dropout, '--dropout', 'invalid_dropout', 'a fraction 0 <= d < 1'));
  set(
    'erCoverage',
    parseNumberFlag(flags['er-coverage'], '--er-coverage', 'invalid_er_coverage', 'a fraction 0 <= c <= 1'),
  );
  set('confidence', parseNumberFlag(flags.confidence, '--confidence', 'confidence_must_be_0.95', '0.95'));
  set('precision', parseNumberFlag(flags.precision, '--precision', 'precision_must_be_0.05', '0.05'));
  if (flags.stratum?.length) body.stratification = { enabled: true, strata: flags.stratum.map(parseStratumFlag) };
  return body;
}

/** Inputs without which there is no design: population, mean and SD (or a proportion), dropout. */
function missingInputs(body: Record<string, unknown>): boolean {
  const value =
    body.expectedProportion !== undefined || (body.expectedMean !== undefined && body.expectedSD !== undefined);
  return body.population === undefined || !value || body.dropoutRate === undefined;
}

/**
 * --save: the design goes to the registry for its project. Under --json the record is the output (true: nothing
 * more to print); otherwise one line says where it was saved and the design is printed as usual.
 */
async function saveDesignFlag(
  flags: CalcFlags,
  body: Record<string, unknown>,
  design: ReturnType<typeof computeDesign>,
  extra: Record<string, unknown>,
  io: Io,
): Promise<boolean> {
  const projectId = flags.project ?? (typeof body.projectId === 'string' ? body.projectId : undefined);
  if (!projectId)
    throw samplingError(
      'missing_parameter',
      '--project',
      undefined,
      'the DID of the project the design is for (with --save)',
    );
  delete body.projectId;
  const { saveDesign } = await import('../registry/client.ts');
  const opts: { registry?: string; apiKey?: string } = {};
  if (flags.registry) opts.registry = flags.registry;
  if (flags['api-key']) opts.apiKey = flags['api-key'];
  const record = await saveDesign<{ designId: string; version: number }>(body, projectId, opts);
  if (flags.json) {
    io.outJson({ ...record, intermediates: design.intermediates, flags: design.flags, ...extra });
    return true;
  }
  io.out(`Saved as ${record.designId} (version ${record.version}) for ${projectId}.`);
  return false;
}

export async function runSampleCalc(given: CalcFlags, io: Io): Promise<void> {
  let flags = given;
  const typedInInput: { text?: string } = {};
  let body = bodyFromFlags(flags, typedInInput);
  // a person at a terminal who left inputs out is asked for them (src/cli/sample/guided.ts, loaded only then)
  const guided = missingInputs(body) && flags.input !== '-' && canPrompt(Boolean(flags.json));
  if (guided) {
    const { guideCalc } = await import('./guided.ts');
    flags = await guideCalc(flags, body);
    body = bodyFromFlags(flags);
  }
  const design = withFlagNames(() => computeDesign(body));
  const stratified = design.stratification.strata.length > 0;
  if (flags.compare && !stratified) {
    throw samplingError(
      'invalid_strata',
      '--compare',
      true,
      'a stratified design (give --stratum name=weight at least once)',
    );
  }
  // CSV is one table per output, so a file loads in one read: the design, or the one extra table asked for
  const extras = (['explain', 'compare', 'sensitivity'] as const).filter((k) => flags[k]);
  if (flags.format === 'csv' && !flags.json && extras.length > 1)
    throw samplingError(
      'conflicting_parameters',
      `--${extras[1]}`,
      true,
      `one of --explain, --compare, --sensitivity at a time with --format csv (one table per output), or --json for all`,
    );
  // the extras load only when asked for: a plain design is the fast path's cold start, where each module counts
  const explain = flags.explain ? (await import('../../lib/sampling/explain.ts')).explainDesign(design) : undefined;
  const comparison = flags.compare
    ? (await import('../../lib/sampling/compare.ts')).compareAllocations(design)
    : undefined;
  const sens = flags.sensitivity ? (await import('../../lib/sampling/sensitivity.ts')).sensitivity(design) : undefined;
  const extra = { ...(explain && { explain }), ...(comparison && { comparison }), ...(sens && { sensitivity: sens }) };
  if (flags.save && (await saveDesignFlag(flags, body, design, extra, io))) return;
  if (flags.json) {
    io.outJson({
      ...design,
      provenance: provenanceOf(packageVersion(), new Date()),
      ...extra,
    });
    return;
  }
  const format = flags.format as Format;
  const typed = flags.population !== undefined ? parsePopulationFlag(flags.population)?.typed : typedInInput.text;
  const parts = format === 'csv' && extras.length === 1 ? [] : [renderDesign(design, format, typed)];
  if (explain) parts.push(renderExplain(explain, format));
  if (comparison) parts.push(renderComparison(comparison, format));
  if (sens) parts.push(renderSensitivity(sens, format));
  io.out(parts.join('\n\n'));
  if (guided) {
    const { commandLine } = await import('./guided.ts');
    io.out(`\nThe same design from the command line:\n  ${commandLine('sample calc', CALC_FLAGS, flags)}`);
  }
}

/** --input: the POST /v1/sampling body, or a design (`sample calc --json` output, a registry record): its input. */
function toObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw samplingError(
      'missing_parameter',
      '--input',
      v,
      'a JSON object (the POST /v1/sampling body, or the JSON of `sample calc --json`)',
    );
  }
  const o = v as Record<string, unknown>;
  if (o.parameters === undefined) return { ...o };
  const input = designInputOf(o.parameters, o.stratification);
  if (typeof o.projectId === 'string') input.projectId = o.projectId;
  return input;
}
