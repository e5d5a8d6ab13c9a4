/**
 * Recalculation after a monitoring period (sampling.md): the same chain with
 * the observed mean, SD and dropout (per stratum where observed), against the
 * previous design's population and strata; the size may go down as well as
 * up. From raw observations (one value per household, optionally a stratum)
 * it computes mean, SD (n − 1) and the achieved relative precision
 * r = z·s/(x̄·√n)·√(1 − n/N), and whether r <= 0.05.
 */
import { parseCsv } from '../csv.ts';
import { computeDesign, normaliseStratumName, PRECISION, Z_95, type Design } from './design.ts';
import { samplingError } from './errors.ts';

export interface PreviousDesign {
  designId?: string;
  version?: number;
  parameters: Design['parameters'];
  stratification: {
    method: string;
    strata: { name: string; population: number; sampleSize: number; mean: number; sd: number; weight?: number }[];
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
  value: number;
  stratum?: string;
}

interface GroupSummary {
  stratum: string;
  n: number;
  mean: number;
  sd: number;
  population: number;
  precision: number;
  met: boolean;
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
  /** groups in the design's stratum order; overall: the stratified estimator when every stratum was observed. */
  achieved?: { groups: GroupSummary[]; allMet: boolean; target: number; overall?: StratifiedOverall };
}

/** Reads `household,value[,stratum]` CSV (header required, any column order, extra columns ignored). */
export function parseObservationsCsv(text: string, source = 'observations'): Observation[] {
  const rows = parseCsv(text, source, (where, value, valid, message) =>
    samplingError('invalid_observation', where, value, valid, { message }),
  );
  if (rows.length === 0)
    throw samplingError('missing_column', `${source}:1`, '', 'a header row household,value[,stratum]');
  const header = rows[0]!.fields.map((h) => h.trim().toLowerCase());
  const col = (names: string[]) => header.findIndex((h) => names.includes(h));
  const hi = col(['household', 'household_id', 'id']);
  const vi = col(['value']);
  const si = col(['stratum']);
  if (hi < 0)
    throw samplingError(
      'missing_column',
      `${source}:1`,
      rows[0]!.fields.join(','),
      'a header with a "household" column (household,value[,stratum])',
    );
  if (vi < 0)
    throw samplingError(
      'missing_column',
      `${source}:1`,
      rows[0]!.fields.join(','),
      'a header with a "value" column (household,value[,stratum])',
    );
  const seen = new Map<string, number>();
  const out: Observation[] = [];
  for (const r of rows.slice(1)) {
    const household = (r.fields[hi] ?? '').trim();
    const at = (c: number, name: string) => `${source}:${r.line} column ${c + 1} (${name})`;
    if (household === '')
      throw samplingError('invalid_observation', at(hi, 'household'), r.fields[hi] ?? '', 'a non-empty household id');
    const raw = (r.fields[vi] ?? '').trim();
    const value = raw === '' ? NaN : Number(raw);
    if (!Number.isFinite(value))
      throw samplingError('invalid_observation', at(vi, 'value'), raw, 'a finite number (decimal point, no units)');
    const prev = seen.get(household);
    if (prev !== undefined) {
      throw samplingError('duplicate_household', at(hi, 'household'), household, 'one observation per household', {
        message: `${at(hi, 'household')}: household ${JSON.stringify(household)} already observed on line ${prev}; valid: one observation per household`,
      });
    }
    seen.set(household, r.line);
    const o: Observation = { line: r.line, household, value };
    if (si >= 0) {
      const s = (r.fields[si] ?? '').trim();
      if (s === '')
        throw samplingError('unknown_stratum', at(si, 'stratum'), '', 'the name of a stratum of the design');
      o.stratum = s;
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

export function recalculate(input: RecalcInput): RecalcResult {
  const prev = input.previous;
  if (prev) checkPrevious(prev);
  const population = prev ? prev.parameters.population : input.population;
  if (population === undefined)
    throw samplingError('missing_parameter', 'population', undefined, 'an integer >= 1, or a previous design');
  const prevStrata = prev?.stratification.strata ?? [];
  const strataNames = new Map(prevStrata.map((s) => [normaliseStratumName(s.name), s]));

  // summarise raw observations per group
  let achieved: RecalcResult['achieved'];
  const observedByStratum = new Map<string, { mean: number; sd: number }>();
  let observedOverall: { mean: number; sd: number } | undefined;
  if (input.observations) {
    const groups = new Map<string, number[]>();
    for (const o of input.observations) {
      let key = 'all';
      if (o.stratum !== undefined && prevStrata.length > 0) {
        const s = strataNames.get(normaliseStratumName(o.stratum));
        if (!s) {
          throw samplingError(
            'unknown_stratum',
            `observations:${o.line} (stratum)`,
            o.stratum,
            `one of ${prevStrata.map((x) => x.name).join(', ')}`,
          );
        }
        key = s.name;
      } else if (o.stratum !== undefined && prevStrata.length === 0) {
        throw samplingError(
          'unknown_stratum',
          `observations:${o.line} (stratum)`,
          o.stratum,
          'no stratum column: the design is not stratified',
        );
      }
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(o.value);
    }
    const all = meanSd(input.observations.map((o) => o.value));
    if (all.n < 2) throw samplingError('too_few_observations', 'observations', all.n, 'at least 2 observations');
    observedOverall = { mean: all.mean, sd: all.sd };
    const summaries: GroupSummary[] = [];
    // in the design's stratum order (observation order otherwise)
    const keys =
      prevStrata.length > 0 ? prevStrata.map((s) => s.name).filter((k) => groups.has(k)) : [...groups.keys()];
    for (const key of keys) {
      const values = groups.get(key)!;
      const st = meanSd(values);
      if (st.n < 2)
        throw samplingError(
          'too_few_observations',
          `observations (stratum ${key})`,
          st.n,
          'at least 2 observations per stratum',
        );
      const N = key === 'all' ? population : strataNames.get(normaliseStratumName(key))!.population;
      const r = achievedPrecision(st.n, N, st.mean, st.sd);
      summaries.push({
        stratum: key,
        n: st.n,
        mean: st.mean,
        sd: st.sd,
        population: N,
        precision: r,
        met: r <= PRECISION,
      });
      if (key !== 'all') observedByStratum.set(key, { mean: st.mean, sd: st.sd });
    }
    achieved = { groups: summaries, allMet: summaries.every((g) => g.met), target: PRECISION };
    if (prevStrata.length > 0 && summaries.length === prevStrata.length) {
      // every stratum observed: the overall is the stratified estimator, not the pooled values
      const overall = stratifiedEstimate(
        summaries.map((g) => ({ population: g.population, n: g.n, mean: g.mean, sd: g.sd })),
      );
      achieved.overall = overall;
      observedOverall = { mean: overall.mean, sd: overall.sd };
    } else if (prevStrata.length > 0) {
      // some strata not observed: the pooled values are no estimate of the population; keep the previous overall ones
      observedOverall = undefined;
    }
  }
  for (const s of input.strata ?? []) {
    if (typeof s !== 'object' || s === null || typeof s.name !== 'string')
      throw samplingError(
        'invalid_stratum_name',
        'strata[].name',
        s,
        'an object {name, mean?, sd?} naming a stratum of the design',
      );
    const p = strataNames.get(normaliseStratumName(s.name));
    if (!p)
      throw samplingError(
        'unknown_stratum',
        'strata',
        s.name,
        prevStrata.length ? `one of ${prevStrata.map((x) => x.name).join(', ')}` : 'a stratified previous design',
      );
    const o = observedByStratum.get(p.name) ?? { mean: p.mean, sd: p.sd };
    observedByStratum.set(p.name, { mean: s.mean ?? o.mean, sd: s.sd ?? o.sd });
  }

  const mean = input.mean ?? observedOverall?.mean ?? prev?.parameters.expectedMean;
  const sd = input.sd ?? observedOverall?.sd ?? prev?.parameters.expectedSD;
  const raw: Record<string, unknown> = {
    population,
    expectedMean: mean,
    expectedSD: sd,
    dropoutRate: input.dropoutRate ?? prev?.parameters.dropoutRate,
  };
  const er =
    input.erCoverage ?? (prev?.parameters.erCoverageSource === 'input' ? prev.parameters.erCoverage : undefined);
  if (er !== undefined) raw.erCoverage = er;
  if (prevStrata.length > 0) {
    raw.stratification = {
      enabled: true,
      strata: prevStrata.map((s) => {
        const o = observedByStratum.get(s.name);
        return {
          name: s.name,
          weight: s.weight ?? s.population / population,
          mean: o?.mean ?? s.mean,
          sd: o?.sd ?? s.sd,
        };
      }),
    };
  }
  const design = computeDesign(raw);
  const result: RecalcResult = { design };
  if (achieved) result.achieved = achieved;
  if (prev) {
    result.previous = { adjustedSize: prev.parameters.adjustedSize };
    if (prev.designId) result.previous.designId = prev.designId;
    if (prev.version !== undefined) result.previous.version = prev.version;
    result.change = {
      total: change('total', prev.parameters.adjustedSize, design.parameters.adjustedSize),
      strata: design.stratification.strata.map((s) =>
        change(s.name, prevStrata.find((p) => p.name === s.name)?.sampleSize ?? 0, s.sampleSize),
      ),
    };
  }
  return result;
}
