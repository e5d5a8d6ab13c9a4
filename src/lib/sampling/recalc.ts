/**
 * Recalculation after a monitoring period (sampling.md): the same chain with
 * the observed mean, SD and dropout (per stratum where observed), against the
 * previous design's population and strata; the size may go down as well as
 * up. From raw observations (one value per household, optionally a stratum)
 * it computes mean, SD (n − 1) and the achieved relative precision
 * r = z·s/(x̄·√n)·√(1 − n/N), and whether r <= 0.05 — for every stratum of the
 * design: a stratum without observations is "not observed", never "met".
 * Households marked sampled but not completed (an empty or NA value) give the
 * realised dropout, per stratum and overall.
 */
import { parseCsv } from '../csv.ts';
import { OracleKitError } from '../errors.ts';
import { computeDesign, PRECISION, Z_95, type Design } from './design.ts';
import { samplingError } from './errors.ts';
import { stratumKey } from './names.ts';

export interface PreviousDesign {
  designId?: string;
  version?: number;
  parameters: Design['parameters'];
  stratification: {
    method: string;
    strata: {
      name: string;
      population: number;
      sampleSize: number;
      mean: number;
      sd: number;
      weight?: number;
      dropoutRate?: number;
    }[];
  };
}

export interface ObservedStratum {
  name: string;
  mean?: number;
  sd?: number;
}

export interface RecalcInput {
  previous?: PreviousDesign;
  /** Required when there is no previous design. */
  population?: number;
  mean?: number;
  sd?: number;
  dropoutRate?: number;
  erCoverage?: number;
  strata?: ObservedStratum[];
  observations?: Observation[];
}

export interface Observation {
  line: number;
  household: string;
  /** null: the household was sampled but not completed (an empty or NA value in the CSV). */
  value: number | null;
  stratum?: string;
  /** The file (or "stdin") the observation was read from, for messages. */
  file?: string;
}

export interface GroupSummary {
  stratum: string;
  /** false: no completed observation of this stratum; its values are the previous design's, nothing was checked. */
  observed: boolean;
  /** Completed observations. */
  n: number;
  population: number;
  /** null when not observed. */
  mean: number | null;
  sd: number | null;
  /** r = z·s/(x̄·√n)·√(1 − n/N); null when not observed or when the mean is 0 (no relative precision). */
  precision: number | null;
  /** r <= 0.05; false when not observed; for a mean of 0, whether every observation is equal (SD 0). */
  met: boolean;
  /** Why precision is null, said in words. */
  statement?: string;
}

export interface RealisedDropout {
  /**
   * "marked": sampled = rows of the CSV, incomplete ones marked (empty or NA); "design": sampled = the previous
   * design's n_h.
   */
  basis: 'marked' | 'design';
  overall: { sampled: number; completed: number; rate: number };
  /** The strata whose dropout was counted, in the design's order. */
  strata: { stratum: string; sampled: number; completed: number; rate: number }[];
  /**
   * Strata whose dropout cannot be counted: with marks, fewer rows than the design's n_h (some sampled households
   * have no row, and nothing says whether they were completed); or more completed observations than n_h. Their rate
   * is never taken as 0 % nor capped.
   */
  notCounted: { stratum: string; rows: number; completed: number; sampleSize: number; statement: string }[];
  /** The design's dropout rate, for comparison. */
  designed?: number;
}

/** Where each value the new design uses came from. */
type ValueSource = 'input' | 'observations' | 'observed' | 'previous design';

export interface DesignInputs {
  mean: ValueSource;
  sd: ValueSource;
  dropoutRate: ValueSource | 'realised dropout';
  strata: {
    stratum: string;
    mean: ValueSource;
    sd: ValueSource;
    /** Where the stratum's dropout rate came from; absent when it has none of its own (the design's applies). */
    dropoutRate?: 'realised dropout' | 'previous design';
    note?: string;
  }[];
}

interface SizeChange {
  name: string;
  from: number;
  to: number;
  delta: number;
  direction: 'up' | 'down' | 'unchanged';
}

export interface StratifiedOverall {
  /** "stratified": Σ W_h x̄_h and its variance; "srs": one population (the group's own mean and r). */
  method: 'stratified';
  n: number;
  population: number;
  /** x̄_st = Σ W_h x̄_h, W_h = N_h / N. */
  mean: number;
  /** V(x̄_st) = Σ W_h² (1 − n_h/N_h) s_h² / n_h. */
  variance: number;
  /** The population SD the strata imply: sqrt([Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄_st)²] / (N − 1)). */
  sd: number;
  /** r = z √V / x̄_st. */
  precision: number;
  met: boolean;
}

export interface RecalcResult {
  design: Design;
  previous?: { designId?: string; version?: number; adjustedSize: number };
  change?: { total: SizeChange; strata: SizeChange[] };
  /**
   * groups: every stratum of the design in its order (observed or not); allMet: every stratum observed and
   * met; notObserved: the strata without a completed observation; overall: the stratified estimator when
   * every stratum was observed.
   */
  achieved?: {
    groups: GroupSummary[];
    allMet: boolean;
    notObserved: string[];
    target: number;
    overall?: StratifiedOverall;
  };
  dropout?: RealisedDropout;
  /**
   * Information, not a failure: observed means far from the previous design's assumed mean, or whose ratio to it
   * looks like another unit (minutes for hours, hours for days). Absent when every observed mean is plausible.
   */
  plausibility?: PlausibilityNote[];
  /** Where each value of the new design came from (observed, carried over from the previous design, typed). */
  inputs: DesignInputs;
}

/** One observed mean compared with the mean the design assumed for the same group. */
export interface PlausibilityNote {
  /** A stratum's name, "all" for one population, or "overall" for the stratified estimate. */
  scope: string;
  observed: number;
  assumed: number;
  /** observed / assumed. */
  ratio: number;
  /** "other unit": the ratio is within 10 % of 60, 24, 1/60 or 1/24; "far": at least 10 times apart. */
  kind: 'other unit' | 'far';
  statement: string;
}

/** Unit ratios an observed mean is tested against: minutes per hour and hours per day. */
const UNIT_RATIOS = [
  { factor: 60, up: 'minutes instead of hours (or seconds instead of minutes)', down: 'hours instead of minutes' },
  { factor: 24, up: 'hours instead of days', down: 'days instead of hours' },
] as const;
/** An observed mean this many times above or below the assumed one is far from it. */
const FAR_FACTOR = 10;

/**
 * Compares an observed mean with the design's assumed mean: a ratio within 10 % of 60 or 24 (or their inverses)
 * looks like another unit; one at least 10 times apart is far. null when plausible, or when either mean is not > 0.
 */
export function plausibilityNote(scope: string, observed: number, assumed: number): PlausibilityNote | null {
  if (!(observed > 0) || !(assumed > 0) || !Number.isFinite(observed) || !Number.isFinite(assumed)) return null;
  const ratio = observed / assumed;
  const where =
    scope === 'all'
      ? 'the observed mean'
      : scope === 'overall'
        ? 'the overall observed mean'
        : `stratum ${scope}: the observed mean`;
  const compared = `${where} ${Number(observed.toPrecision(6))} against the design's assumed mean ${Number(assumed.toPrecision(6))} (${ratio >= 1 ? `${Number(ratio.toPrecision(3))} times` : `1/${Number((1 / ratio).toPrecision(3))} of`} it)`;
  for (const u of UNIT_RATIOS) {
    const up = Math.abs(ratio / u.factor - 1) <= 0.1;
    const down = Math.abs(ratio * u.factor - 1) <= 0.1;
    if (up || down)
      return {
        scope,
        observed,
        assumed,
        ratio,
        kind: 'other unit',
        statement: `${compared}: close to ${up ? '' : '1/'}${u.factor}, as if the values were ${up ? u.up : u.down}; check the unit of the observations (information, not a failure)`,
      };
  }
  if (ratio >= FAR_FACTOR || ratio <= 1 / FAR_FACTOR)
    return {
      scope,
      observed,
      assumed,
      ratio,
      kind: 'far',
      statement: `${compared}: at least ${FAR_FACTOR} times apart; check that the observations measure what the design assumed, in the same unit (information, not a failure)`,
    };
  return null;
}

interface ObservationsOptions {
  /** Accept negative values (a signed quantity); usage is never negative, so by default they are refused. */
  signed?: boolean;
}

/** Swaps "," and ";" (a bijection, so a semicolon file parses with the comma parser and swaps back exactly). */
const swapDelimiters = (t: string): string => t.replace(/[,;]/g, (c) => (c === ',' ? ';' : ','));

/**
 * Reads `household,value[,stratum]` CSV: header required, any column order, extra columns ignored.
 * A file whose header has semicolons and no comma is semicolon-separated (spreadsheets in many locales
 * write it), and its values may use a decimal comma (2,5). An empty value or NA marks a household that
 * was sampled but not completed (it counts for the realised dropout, not for the mean).
 */
export function parseObservationsCsv(
  text: string,
  source = 'observations',
  opts: ObservationsOptions = {},
): Observation[] {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const semicolons = firstLine.includes(';') && !firstLine.includes(',');
  const rows = parseCsv(semicolons ? swapDelimiters(text) : text, source, (where, value, valid, message) =>
    samplingError('invalid_observation', where, value, valid, { message }),
  ).map((r) => (semicolons ? { line: r.line, fields: r.fields.map(swapDelimiters) } : r));
  if (rows.length === 0)
    throw samplingError('missing_column', `${source}:1`, '', 'a header row household,value[,stratum]');
  const header = rows[0]!.fields.map((h) => h.trim().toLowerCase());
  const col = (names: string[]) => header.findIndex((h) => names.includes(h));
  const hi = col(['household', 'household_id', 'id']);
  const vi = col(['value']);
  const si = col(['stratum']);
  const sep = semicolons ? ';' : ',';
  if (hi < 0)
    throw samplingError(
      'missing_column',
      `${source}:1`,
      rows[0]!.fields.join(sep),
      'a header with a "household" column (household,value[,stratum])',
    );
  if (vi < 0)
    throw samplingError(
      'missing_column',
      `${source}:1`,
      rows[0]!.fields.join(sep),
      'a header with a "value" column (household,value[,stratum])',
    );
  const seen = new Map<string, number>();
  const out: Observation[] = [];
  const number = semicolons
    ? 'a finite number (decimal comma or point, no units), or empty / NA for a household not completed'
    : 'a finite number (decimal point, no units), or empty / NA for a household not completed';
  for (const r of rows.slice(1)) {
    const household = (r.fields[hi] ?? '').trim();
    const at = (c: number, name: string) => `${source}:${r.line} column ${c + 1} (${name})`;
    if (household === '')
      throw samplingError('invalid_observation', at(hi, 'household'), r.fields[hi] ?? '', 'a non-empty household id');
    const raw = (r.fields[vi] ?? '').trim();
    let value: number | null = null;
    if (raw !== '' && raw.toUpperCase() !== 'NA') {
      const text = semicolons && /^[+-]?\d+,\d+$/.test(raw) ? raw.replace(',', '.') : raw;
      value = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : NaN;
      if (!Number.isFinite(value)) throw samplingError('invalid_observation', at(vi, 'value'), raw, number);
      if (value < 0 && !opts.signed)
        throw samplingError(
          'invalid_observation',
          at(vi, 'value'),
          raw,
          'a value >= 0 (a usage cannot be negative; for a signed quantity pass --signed)',
        );
    }
    const prev = seen.get(household);
    if (prev !== undefined) {
      throw samplingError('duplicate_household', at(hi, 'household'), household, 'one observation per household', {
        message: `${at(hi, 'household')}: household ${JSON.stringify(household)} already observed on line ${prev}; valid: one observation per household`,
      });
    }
    seen.set(household, r.line);
    const o: Observation = { line: r.line, household, value, file: source };
    if (si >= 0) {
      const st = (r.fields[si] ?? '').trim();
      if (st === '')
        throw samplingError('unknown_stratum', at(si, 'stratum'), '', 'the name of a stratum of the design');
      o.stratum = st;
    }
    out.push(o);
  }
  return out;
}

function plainMeanSd(values: number[]): { n: number; mean: number; sd: number } {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const ss = values.reduce((a, b) => a + (b - mean) ** 2, 0);
  return { n, mean, sd: n > 1 ? Math.sqrt(ss / (n - 1)) : NaN };
}

/**
 * Mean and SD (n − 1 divisor), two-pass for accuracy. When a sum leaves the
 * doubles (values near 1e308, or spreads near 1e154), the same computation on
 * the values divided by the largest |value|, scaled back.
 */
export function meanSd(values: number[]): { n: number; mean: number; sd: number } {
  const plain = plainMeanSd(values);
  if (Number.isFinite(plain.mean) && (plain.n < 2 || Number.isFinite(plain.sd))) return plain;
  const top = values.reduce((a, b) => Math.max(a, Math.abs(b)), 0);
  if (!Number.isFinite(top) || top === 0) return plain;
  const scaled = plainMeanSd(values.map((v) => v / top));
  return { n: plain.n, mean: scaled.mean * top, sd: scaled.sd * top };
}

/** r = z·s/(x̄·√n)·√(1 − n/N); 0 for a census; the same ratio as z·(s/x̄)/√n when z·s or x̄·√n leaves the doubles. */
export function achievedPrecision(n: number, N: number, mean: number, sd: number, z = Z_95): number {
  if (n >= N) return 0;
  const fpc = Math.sqrt(1 - n / N);
  const top = z * sd;
  const bottom = mean * Math.sqrt(n);
  return Number.isFinite(top) && Number.isFinite(bottom)
    ? (top / bottom) * fpc
    : ((z * (sd / mean)) / Math.sqrt(n)) * fpc;
}

/**
 * The stratified estimator of the mean and its variance (Cochran 1977, 5.3
 * and 5.7): x̄_st = Σ W_h x̄_h with W_h = N_h/N, V(x̄_st) = Σ W_h² (1 − n_h/N_h)
 * s_h²/n_h (each stratum with its own finite-population correction), and the
 * relative precision r = z·√V/x̄_st. Every stratum of the design must be
 * given (N = Σ N_h). Also the population SD the strata imply,
 * S² = [Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄_st)²] / (N − 1).
 */
export function stratifiedEstimate(
  strata: { population: number; n: number; mean: number; sd: number }[],
  z = Z_95,
): StratifiedOverall {
  const N = strata.reduce((a, s) => a + s.population, 0);
  const n = strata.reduce((a, s) => a + s.n, 0);
  let mean = 0;
  let variance = 0;
  for (const s of strata) {
    const W = s.population / N;
    mean += W * s.mean;
    variance += (W * W * Math.max(0, 1 - s.n / s.population) * (s.sd * s.sd)) / s.n;
  }
  let ss = 0;
  for (const s of strata) ss += (s.population - 1) * s.sd * s.sd + s.population * (s.mean - mean) ** 2;
  const sd = N > 1 ? Math.sqrt(ss / (N - 1)) : 0;
  const precision = (z * Math.sqrt(variance)) / mean;
  return { method: 'stratified', n, population: N, mean, variance, sd, precision, met: precision <= PRECISION };
}

function checkPrevious(p: PreviousDesign): void {
  const ok =
    p &&
    typeof p === 'object' &&
    p.parameters &&
    typeof p.parameters.population === 'number' &&
    p.stratification &&
    Array.isArray(p.stratification.strata);
  if (!ok)
    throw samplingError(
      'invalid_previous',
      'previous',
      undefined,
      'the JSON of `sample calc --json` or a registry design record',
    );
}

function change(name: string, from: number, to: number): SizeChange {
  return { name, from, to, delta: to - from, direction: to > from ? 'up' : to < from ? 'down' : 'unchanged' };
}

/** The precision statement of one group of completed observations. */
function summarise(stratum: string, values: number[], N: number): GroupSummary {
  const st = meanSd(values);
  if (st.mean === 0) {
    const equal = st.sd === 0;
    return {
      stratum,
      observed: true,
      n: st.n,
      population: N,
      mean: 0,
      sd: st.sd,
      precision: null,
      met: equal,
      statement: equal
        ? `all ${st.n} observations are 0 (e.g. non-adopters): the mean is 0 exactly for them, ±0 in absolute terms; a precision relative to a mean of 0 does not exist`
        : `the mean is 0: a precision relative to it does not exist (absolute half-width ${(Z_95 * st.sd) / Math.sqrt(st.n)})`,
    };
  }
  const r = achievedPrecision(st.n, N, st.mean, st.sd);
  return {
    stratum,
    observed: true,
    n: st.n,
    population: N,
    mean: st.mean,
    sd: st.sd,
    precision: r,
    met: r <= PRECISION,
  };
}

/** 1 − completed/sampled, as (sampled − completed)/sampled: one rounding, so 40 of 200 is 0.2 exactly. */
export const dropoutRate = (sampled: number, completed: number): number => (sampled - completed) / sampled;

/**
 * The realised dropout: per stratum 1 − completed/sampled, and overall 1 − Σ completed / Σ sampled, in the
 * design's order (`keys`). "Sampled" is the rows of the observations when the file marks households not completed
 * (an empty or NA value); otherwise the previous design's n_h (its sampleSize), when there is one. A stratum
 * without any row is left out (not observed, not a 100 % dropout); one whose rows are all marked not completed is
 * not counted and said so (it had no completed row); with marks, a stratum with fewer rows than its n_h is not
 * counted (the sampled households without a row could be either), never 0 %; nor is a stratum with more completed
 * observations than n_h (never capped at n_h). Undefined when neither basis exists.
 */
function realisedDropout(
  keys: string[],
  rows: Map<string, { sampled: number; completed: number }>,
  marked: boolean,
  designSizes: Map<string, number> | undefined,
  designed: number | undefined,
): RealisedDropout | undefined {
  if (!marked && !designSizes) return undefined;
  const strata: RealisedDropout['strata'] = [];
  const notCounted: RealisedDropout['notCounted'] = [];
  for (const stratum of keys) {
    const c = rows.get(stratum);
    if (!c) continue;
    const nh = designSizes?.get(stratum);
    if (marked && c.completed === 0) {
      notCounted.push({
        stratum,
        rows: c.sampled,
        completed: 0,
        sampleSize: nh ?? c.sampled,
        statement: `stratum ${stratum}: none of its ${c.sampled} rows is completed (every value empty or NA): it had no completed row, so its dropout is not counted and its precision was not checked`,
      });
      continue;
    }
    if (nh !== undefined && c.completed > nh) {
      notCounted.push({
        stratum,
        rows: c.sampled,
        completed: c.completed,
        sampleSize: nh,
        statement: `stratum ${stratum}: ${c.completed} completed observations, more than the design's n_h = ${nh} sampled households (a replacement replaces a dropout, it adds no household), so these are not only the designed sample and its dropout is not counted`,
      });
      continue;
    }
    if (marked && nh !== undefined && c.sampled < nh) {
      notCounted.push({
        stratum,
        rows: c.sampled,
        completed: c.completed,
        sampleSize: nh,
        statement: `stratum ${stratum}: ${c.sampled} rows for n_h = ${nh} sampled households — ${nh - c.sampled} sampled households have no row, so its dropout is not counted (not 0 %)`,
      });
      continue;
    }
    const sampled = marked ? c.sampled : (nh ?? 0);
    if (sampled === 0) continue;
    strata.push({ stratum, sampled, completed: c.completed, rate: dropoutRate(sampled, c.completed) });
  }
  if (strata.length === 0 && notCounted.length === 0) return undefined;
  const sampled = strata.reduce((a, x) => a + x.sampled, 0);
  const completed = strata.reduce((a, x) => a + x.completed, 0);
  return {
    basis: marked ? 'marked' : 'design',
    overall: { sampled, completed, rate: sampled > 0 ? dropoutRate(sampled, completed) : Number.NaN },
    strata,
    notCounted,
    ...(designed !== undefined ? { designed } : {}),
  };
}

/** A rate as the design takes it: rounded up to 4 decimals (never below the realised rate). */
const ceil4 = (x: number): number => Math.ceil(x * 1e4 - 1e-9) / 1e4;

/** The previous design's strata as the steps of recalculate see them (none without a stratified previous design). */
interface Strata {
  population: number;
  list: PreviousDesign['stratification']['strata'];
  byKey: Map<string, PreviousDesign['stratification']['strata'][number]>;
  stratified: boolean;
}

/** What the observations and --observed give: values per stratum and overall, and where each came from. */
interface Observed {
  byStratum: Map<string, { mean: number; sd: number }>;
  sources: Map<string, { mean: ValueSource; sd: ValueSource; note?: string }>;
  overall?: { mean: number; sd: number };
  achieved?: RecalcResult['achieved'];
  dropout?: RealisedDropout;
}

export function recalculate(input: RecalcInput): RecalcResult {
  const prev = input.previous;
  if (prev) checkPrevious(prev);
  const population = prev ? prev.parameters.population : input.population;
  if (population === undefined)
    throw samplingError('missing_parameter', 'population', undefined, 'an integer >= 1, or a previous design');
  const list = prev?.stratification.strata ?? [];
  const st: Strata = {
    population,
    list,
    byKey: new Map(list.map((s) => [stratumKey(s.name), s])),
    stratified: list.length > 0,
  };
  const observed: Observed = { byStratum: new Map(), sources: new Map() };
  if (input.observations) summariseObservations(input.observations, prev, st, observed);
  applyObservedStrata(input.strata ?? [], st, observed);
  const { raw, inputs } = designParameters(input, st, observed);
  const design = namedStrata(() => computeDesign(raw), list, input);
  const result: RecalcResult = { design, inputs };
  if (observed.achieved) result.achieved = observed.achieved;
  if (observed.dropout) result.dropout = observed.dropout;
  if (prev && observed.achieved) {
    const notes = plausibilityNotes(prev, observed.achieved);
    if (notes.length > 0) result.plausibility = notes;
  }
  if (prev) {
    result.previous = { adjustedSize: prev.parameters.adjustedSize };
    if (prev.designId) result.previous.designId = prev.designId;
    if (prev.version !== undefined) result.previous.version = prev.version;
    result.change = {
      total: change('total', prev.parameters.adjustedSize, design.parameters.adjustedSize),
      strata: design.stratification.strata.map((s) =>
        change(s.name, list.find((p) => p.name === s.name)?.sampleSize ?? 0, s.sampleSize),
      ),
    };
  }
  return result;
}

/** Each observed group's mean (and the stratified overall) against the previous design's assumed mean for it. */
function plausibilityNotes(prev: PreviousDesign, achieved: NonNullable<RecalcResult['achieved']>): PlausibilityNote[] {
  const assumed = new Map(prev.stratification.strata.map((s) => [s.name, s.mean] as const));
  const notes: (PlausibilityNote | null)[] = achieved.groups.map((g) =>
    g.mean === null
      ? null
      : plausibilityNote(g.stratum, g.mean, assumed.get(g.stratum) ?? prev.parameters.expectedMean),
  );
  if (achieved.overall) notes.push(plausibilityNote('overall', achieved.overall.mean, prev.parameters.expectedMean));
  return notes.filter((n): n is PlausibilityNote => n !== null);
}

/**
 * Summarises raw observations per group — every stratum of the design, observed or not — into the achieved
 * precision, the observed mean and SD per stratum and overall, and the realised dropout.
 */
function summariseObservations(
  observations: Observation[],
  prev: PreviousDesign | undefined,
  st: Strata,
  observed: Observed,
): void {
  const file = observations[0]?.file ?? 'observations';
  const keys = st.stratified ? st.list.map((s) => s.name) : ['all'];
  const { groups, counts, marked } = groupObservations(observations, file, keys, st);
  for (const key of keys) {
    const rows = counts.get(key)?.sampled ?? 0;
    const N = key === 'all' ? st.population : st.byKey.get(stratumKey(key))!.population;
    if (rows > N) throw moreThanHouseholds(file, key, rows, N);
  }
  const completed = observations.flatMap((o) => (o.value === null ? [] : [o.value]));
  if (completed.length < 2)
    throw samplingError('too_few_observations', file, completed.length, 'at least 2 completed observations');
  const summaries = keys.map((key) => groupSummary(key, groups.get(key)!, file, st, observed));
  const notObserved = summaries.filter((g) => !g.observed).map((g) => g.stratum);
  const achieved: NonNullable<RecalcResult['achieved']> = {
    groups: summaries,
    allMet: notObserved.length === 0 && summaries.every((g) => g.met),
    notObserved,
    target: PRECISION,
  };
  if (!st.stratified) {
    const g = summaries[0]!;
    if (g.mean! > 0) observed.overall = { mean: g.mean!, sd: g.sd! };
  } else if (notObserved.length === 0 && summaries.every((g) => g.mean! > 0)) {
    // every stratum observed: the overall is the stratified estimator, not the pooled values
    const overall = stratifiedEstimate(
      summaries.map((g) => ({ population: g.population, n: g.n, mean: g.mean!, sd: g.sd! })),
    );
    achieved.overall = overall;
    observed.overall = { mean: overall.mean, sd: overall.sd };
  }
  observed.achieved = achieved;
  // some strata not observed: the pooled values are no estimate of the population; the previous overall ones stay
  const designSizes = prev
    ? new Map(
        st.stratified
          ? st.list.map((s) => [s.name, s.sampleSize] as const)
          : [['all', prev.parameters.adjustedSize] as const],
      )
    : undefined;
  observed.dropout = realisedDropout(keys, counts, marked, designSizes, prev?.parameters.dropoutRate);
}

/** More observation rows than households: R's survey refuses the same data ("FPC implies >100% sampling"). */
function moreThanHouseholds(file: string, key: string, rows: number, N: number) {
  const where = key === 'all' ? 'the population' : `stratum ${key}`;
  return samplingError('more_observations_than_households', `${file} (${where})`, rows, `at most N = ${N} rows`, {
    message: `${file}: ${where} has ${rows} observation rows, but only ${N} households (the design's population); valid: at most ${N} — the observations are not of this population, or the design is for a smaller one (recompute it for the real population)`,
  });
}

/**
 * The completed values of each group (a stratum of the design, or "all"), the sampled and completed households
 * per group, and whether any household is marked not completed. A stratified design needs every row's stratum.
 */
function groupObservations(
  observations: Observation[],
  file: string,
  keys: string[],
  st: Strata,
): { groups: Map<string, number[]>; counts: Map<string, { sampled: number; completed: number }>; marked: boolean } {
  const groups = new Map<string, number[]>(keys.map((k) => [k, []]));
  const counts = new Map<string, { sampled: number; completed: number }>();
  let marked = false;
  for (const o of observations) {
    let key = 'all';
    if (st.stratified) {
      if (o.stratum === undefined)
        throw samplingError(
          'missing_column',
          `${o.file ?? file}:1`,
          undefined,
          `a "stratum" column naming each household's stratum (${st.list.map((x) => x.name).join(', ')}): the design is stratified, and observations without their stratum cannot be checked against it`,
        );
      const s = st.byKey.get(stratumKey(o.stratum));
      if (!s) {
        throw samplingError(
          'unknown_stratum',
          `${o.file ?? file}:${o.line} (stratum)`,
          o.stratum,
          `one of ${st.list.map((x) => x.name).join(', ')}`,
        );
      }
      key = s.name;
    } else if (o.stratum !== undefined) {
      throw samplingError(
        'unknown_stratum',
        `${o.file ?? file}:${o.line} (stratum)`,
        o.stratum,
        'no stratum column: the design is not stratified',
      );
    }
    const c = counts.get(key) ?? counts.set(key, { sampled: 0, completed: 0 }).get(key)!;
    c.sampled++;
    if (o.value === null) {
      marked = true;
      continue;
    }
    c.completed++;
    groups.get(key)!.push(o.value);
  }
  return { groups, counts, marked };
}

/**
 * One group's precision statement ("not observed" without a completed value); an observed stratum's mean and SD
 * are recorded for the new design, unless its mean is 0 (a CV needs a mean > 0: the previous values stay).
 */
function groupSummary(key: string, values: number[], file: string, st: Strata, observed: Observed): GroupSummary {
  const N = key === 'all' ? st.population : st.byKey.get(stratumKey(key))!.population;
  if (values.length === 0) {
    return {
      stratum: key,
      observed: false,
      n: 0,
      population: N,
      mean: null,
      sd: null,
      precision: null,
      met: false,
      statement: `not observed: ${file} has no completed observation of stratum ${key}; its precision was not checked and the new design keeps the previous design's values for it`,
    };
  }
  if (values.length < 2)
    throw samplingError(
      'too_few_observations',
      `${file} (stratum ${key})`,
      values.length,
      'at least 2 completed observations per stratum (an SD needs n − 1 >= 1)',
    );
  const g = summarise(key, values, N);
  if (key !== 'all' && g.mean! > 0) observed.byStratum.set(key, { mean: g.mean!, sd: g.sd! });
  if (key !== 'all' && g.mean === 0)
    observed.sources.set(key, {
      mean: 'previous design',
      sd: 'previous design',
      note: 'observed mean 0: a CV needs a mean > 0, so the previous values are kept',
    });
  return g;
}

/** Typed --observed values (name=mean:sd) replace the observed or previous mean and SD of their stratum. */
function applyObservedStrata(strata: ObservedStratum[], st: Strata, observed: Observed): void {
  for (const [i, s] of strata.entries()) {
    if (typeof s !== 'object' || s === null || typeof s.name !== 'string')
      throw samplingError(
        'invalid_stratum_name',
        `--observed #${i + 1}`,
        s,
        'name=mean:sd naming a stratum of the design (or {name, mean?, sd?})',
      );
    const p = st.byKey.get(stratumKey(s.name));
    if (!p)
      throw samplingError(
        'unknown_stratum',
        `--observed #${i + 1}`,
        s.name,
        st.list.length ? `one of ${st.list.map((x) => x.name).join(', ')}` : 'a stratified previous design',
      );
    const o = observed.byStratum.get(p.name) ?? { mean: p.mean, sd: p.sd };
    observed.byStratum.set(p.name, { mean: s.mean ?? o.mean, sd: s.sd ?? o.sd });
    const was = observed.sources.get(p.name);
    observed.sources.set(p.name, {
      mean: s.mean !== undefined ? 'observed' : (was?.mean ?? 'previous design'),
      sd: s.sd !== undefined ? 'observed' : (was?.sd ?? 'previous design'),
    });
  }
}

/**
 * The new design's parameters and where each came from: a typed value, else the observations, else the previous
 * design's. Only a counted dropout (households marked not completed) becomes the design's rate; one derived from
 * the design's n_h is shown but not used: observations may be a subsample of the designed sample.
 */
function designParameters(
  input: RecalcInput,
  st: Strata,
  observed: Observed,
): { raw: Record<string, unknown>; inputs: DesignInputs } {
  const prev = input.previous;
  const overall = observed.overall;
  const mean = input.mean ?? overall?.mean ?? prev?.parameters.expectedMean;
  const sd = input.sd ?? overall?.sd ?? prev?.parameters.expectedSD;
  const realised =
    observed.dropout?.basis === 'marked' && observed.dropout.strata.length > 0
      ? ceil4(observed.dropout.overall.rate)
      : undefined;
  const dropoutRate = input.dropoutRate ?? realised ?? prev?.parameters.dropoutRate;
  const inputs: DesignInputs = {
    mean: input.mean !== undefined ? 'input' : overall ? 'observations' : 'previous design',
    sd: input.sd !== undefined ? 'input' : overall ? 'observations' : 'previous design',
    dropoutRate:
      input.dropoutRate !== undefined ? 'input' : realised !== undefined ? 'realised dropout' : 'previous design',
    strata: [],
  };
  const raw: Record<string, unknown> = { population: st.population, expectedMean: mean, expectedSD: sd, dropoutRate };
  const er =
    input.erCoverage ?? (prev?.parameters.erCoverageSource === 'input' ? prev.parameters.erCoverage : undefined);
  if (er !== undefined) raw.erCoverage = er;
  if (st.stratified) raw.stratification = { enabled: true, strata: strataParameters(input, st, observed, inputs) };
  return { raw, inputs };
}

/**
 * Each stratum's mean, SD and own dropout for the new design, recording where each came from in `inputs.strata`.
 * The own dropout is its counted realised rate (rounded up to 4 decimals), else the previous design's own rate
 * for it; a typed --dropout is one rate for every stratum.
 */
function strataParameters(input: RecalcInput, st: Strata, observed: Observed, inputs: DesignInputs) {
  const dropout = observed.dropout;
  const counted = new Map(
    dropout?.basis === 'marked' ? dropout.strata.map((x) => [x.stratum, ceil4(x.rate)] as const) : [],
  );
  return st.list.map((s) => {
    const o = observed.byStratum.get(s.name);
    const src = observed.sources.get(s.name);
    // a stratum whose dropout could not be counted keeps the previous rate it had, never the others' counted one
    const keep = dropout?.notCounted.some((x) => x.stratum === s.name)
      ? input.previous?.parameters.dropoutRate
      : undefined;
    const own = input.dropoutRate !== undefined ? undefined : (counted.get(s.name) ?? s.dropoutRate ?? keep);
    inputs.strata.push({
      stratum: s.name,
      mean: src?.mean ?? (o ? 'observations' : 'previous design'),
      sd: src?.sd ?? (o ? 'observations' : 'previous design'),
      ...(own !== undefined
        ? { dropoutRate: counted.has(s.name) ? ('realised dropout' as const) : ('previous design' as const) }
        : {}),
      ...(src?.note ? { note: src.note } : {}),
    });
    return {
      name: s.name,
      weight: s.weight ?? s.population / st.population,
      mean: o?.mean ?? s.mean,
      sd: o?.sd ?? s.sd,
      ...(own !== undefined ? { dropoutRate: own } : {}),
    };
  });
}

function namedStrata<T>(fn: () => T, strata: { name: string }[], input: RecalcInput): T {
  try {
    return fn();
  } catch (e) {
    const m = e instanceof OracleKitError ? /^stratification\.strata\[(\d+)\](?:\.(\w+))?/.exec(e.field ?? '') : null;
    if (!m || !(e instanceof OracleKitError)) throw e;
    const name = strata[Number(m[1])]?.name ?? m[1];
    const from = input.observations?.length
      ? `from ${input.observations[0]!.file ?? 'the observations'}`
      : input.strata?.length
        ? 'from --observed'
        : 'from the previous design';
    const field = `stratum ${name}${m[2] ? ` ${m[2]}` : ''}`;
    throw new OracleKitError({
      status: e.status,
      code: e.code,
      field,
      ...(e.value !== undefined ? { value: e.value } : {}),
      ...(e.valid !== undefined ? { valid: e.valid } : {}),
      ...(e.details ? { details: e.details } : {}),
      message: `${field} (${from}): ${e.message.replace(/^stratification\.strata\[\d+\](\.\w+)?\s*/, '')}`,
    });
  }
}
