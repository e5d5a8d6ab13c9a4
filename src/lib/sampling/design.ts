/**
 * Sample-size design per sampling.md: the chain (z, CV, n0, FPC, ceil, exact
 * dropout adjustment), proportional stratification with largest-remainder
 * apportionment (allocation.ts), and validation with the error table of ./errors.ts.
 * One implementation for the CLI (`sample calc`) and the daemon (POST /v1/sampling).
 */
import { samplingError } from './errors.ts';
import * as Q from './rational.ts';
import { apportion } from './allocation.ts';

/**
 * The method's version: the chain (95/5 relative to the mean, the CDM finite-population correction, exact
 * dropout adjustment) and its rules. A change to any number it gives for the same input is a new version.
 */
export const SAMPLING_METHOD = '95/5-relative-cdm-fpc/v1';

/** What made a design, for its JSON: oraclekit and its version, the method's version and when. */
export function provenanceOf(
  version: string,
  at: Date,
): { generator: { name: 'oraclekit'; version: string }; method: typeof SAMPLING_METHOD; generatedAt: string } {
  return { generator: { name: 'oraclekit', version }, method: SAMPLING_METHOD, generatedAt: at.toISOString() };
}

/** The exact standard-normal quantile for 0.95 two-sided (not the table value 1.96). */
export const Z_95 = 1.959963984540054;
const CONFIDENCE = 0.95;
export const PRECISION = 0.05;
const MAX_STRATA = 100;
/**
 * The populations a design takes: whole numbers up to 2^53 − 1, the largest a double holds exactly (a larger one
 * would be read as a neighbour, and N − 1 in the correction would be lost).
 */
export const POPULATION_VALID = `an integer from 1 to ${Number.MAX_SAFE_INTEGER} (2^53 − 1, the largest whole number held exactly)`;

interface StratumInput {
  name: string;
  weight: number;
  mean?: number;
  sd?: number;
  /** The stratum's own dropout rate (a recalculation's realised one); else the design's. */
  dropoutRate?: number;
}

export interface DesignInput {
  population: number;
  expectedMean?: number;
  expectedSD?: number;
  expectedProportion?: number;
  dropoutRate: number;
  confidence?: number;
  precision?: number;
  erCoverage?: number;
  stratification?: { enabled: boolean; strata: StratumInput[] };
}

interface ChainResult {
  z: number;
  cv: number;
  n0: number;
  n_fpc: number;
  calculatedSize: number;
  adjustedSize: number;
  census: boolean;
}

export interface StratumResult {
  name: string;
  weight: number;
  population: number;
  mean: number;
  sd: number;
  cv: number;
  n0: number;
  n_fpc: number;
  calculatedSize: number;
  sampleSize: number;
  census: boolean;
  /** Present when the stratum has its own dropout rate: its sampleSize is ceil(calculatedSize / (1 − this)). */
  dropoutRate?: number;
}

export interface Design {
  parameters: {
    confidence: number;
    precision: number;
    precisionType: 'relative';
    population: number;
    expectedMean: number;
    expectedSD: number;
    expectedProportion?: number;
    calculatedSize: number;
    adjustedSize: number;
    dropoutRate: number;
    erCoverage: number;
    erCoverageSource: 'input' | '1 - dropoutRate';
  };
  stratification: { method: 'proportional' | 'none'; strata: StratumResult[] };
  /** The chain's intermediates for an unstratified design (per stratum otherwise, in strata[]). */
  intermediates: { z: number; cv: number; n0: number; n_fpc: number } | { z: number };
  flags: string[];
  spec: 'sampling.md';
}

const TOP_FIELDS = new Set([
  'population',
  'expectedMean',
  'expectedSD',
  'expectedProportion',
  'dropoutRate',
  'confidence',
  'precision',
  'erCoverage',
  'stratification',
  'projectId', // accepted for the POST /v1/sampling body; the registry stores it
]);
const STRATUM_FIELDS = new Set(['name', 'weight', 'mean', 'sd', 'dropoutRate']);

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * n0 = (z * CV / e)^2, unrounded. Beyond the largest double (CV ≳ 3.4e152, e.g.
 * SD 1e160 or mean 1e-300) it is +Infinity: the exact n0 is finite but larger
 * than any double, and fpc() takes its limit (docs/sampling.md, "Extreme numbers").
 */
function baseSize(cv: number, z = Z_95, e = PRECISION): number {
  return ((z * cv) / e) ** 2;
}

/**
 * The CDM finite-population correction: N * n0 / (N - 1 + n0), unrounded,
 * evaluated in exactly this order (it reproduces the reference n_fpc to the
 * last bit). Where that order is not finite the value is still exact:
 * - n0 = +Infinity (beyond the largest double): the limit N. It is also the
 *   exact ceiling: n_fpc > N - 1 as soon as n0 > (N - 1)², and (N - 1)² < 2^106
 *   while an overflowing n0 exceeds 2^1023.
 * - N * n0 overflows with n0 finite: the same quantity as N / (1 + (N - 1) / n0).
 * - N = 1: n0 / n0 = 1 for every n0 > 0, including an n0 that underflowed to 0.
 */
export function fpc(N: number, n0: number): number {
  if (n0 === Infinity) return N;
  if (N === 1) return 1;
  const direct = (N * n0) / (N - 1 + n0);
  return Number.isFinite(direct) ? direct : N / (1 + (N - 1) / n0);
}

/**
 * ceil(calculatedSize / (1 - d)), exact for the decimal d: in doubles where they are exact (decimalFraction), else on
 * rationals.
 */
export function adjustForDropout(calculatedSize: number, dropoutRate: number): number {
  // d = digits / scale exactly, so the quotient is (calculatedSize * scale) / (scale - digits): with the numerator
  // a safe integer, % and the division of the remainder-free part are exact in doubles
  const f = Q.decimalFraction(dropoutRate);
  if (f) {
    const a = calculatedSize * f.scale;
    if (Number.isSafeInteger(a)) {
      const b = f.scale - f.digits;
      const r = a % b;
      return (a - r) / b + (r > 0 ? 1 : 0);
    }
  }
  const d = Q.fromNumber(dropoutRate);
  return Number(Q.ceil(Q.div(Q.int(calculatedSize), Q.sub(Q.int(1), d))));
}

/**
 * calculatedSize = ceil(n_fpc), never above N and never below 1: with a mean
 * and an SD > 0 the exact n0 and n_fpc are > 0, so the ceiling is at least 1
 * even when the double n0 underflowed to 0 (CV ≲ 1e-163, e.g. mean 1e308).
 */
export function calculatedSizeOf(N: number, n_fpc: number): number {
  return Math.max(1, Math.min(Math.ceil(n_fpc), N));
}

/** The chain of sampling.md for one population or one stratum. No validation. */
export function chain(N: number, mean: number, sd: number, dropoutRate: number, z = Z_95, e = PRECISION): ChainResult {
  const cv = sd / mean;
  const n0 = baseSize(cv, z, e);
  const n_fpc = fpc(N, n0);
  const calculatedSize = calculatedSizeOf(N, n_fpc);
  const adjustedSize = adjustForDropout(calculatedSize, dropoutRate);
  return { z, cv, n0, n_fpc, calculatedSize, adjustedSize, census: calculatedSize === N };
}

/** 1 - d, exact in decimal (1 - 0.07 is 0.93, not 0.9299999999999999). */
export function oneMinus(d: number): number {
  // (scale - digits) / scale: both exact, and a double division rounds the exact quotient as Number() rounds its
  // decimal
  const f = Q.decimalFraction(d);
  if (f) return (f.scale - f.digits) / f.scale;
  return Q.toNumber(Q.sub(Q.int(1), Q.fromNumber(d)));
}

function checkPositive(v: unknown, field: string, code: 'invalid_mean' | 'invalid_sd'): number {
  if (!isNum(v) || v <= 0) throw samplingError(code, field, v, 'a finite number > 0');
  return v;
}

function checkDropout(d: unknown, field: string): number {
  if (!isNum(d) || d < 0 || d >= 1) {
    const hint = isNum(d) && d >= 1 && d < 100 ? ` (a percentage? ${d} % is ${d / 100})` : '';
    throw samplingError('invalid_dropout', field, d, `a fraction 0 <= d < 1${hint}`);
  }
  return d;
}

function hasControlChar(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function normaliseStratumName(name: string): string {
  return name.trim().toLowerCase();
}

/** The expected mean and SD: from expectedProportion p (mean p, SD sqrt(p (1 − p))), or both given, never a mix. */
function expectedMeanSd(o: Record<string, unknown>): { expectedMean: number; expectedSD: number } {
  if (o.expectedProportion === undefined) {
    for (const k of ['expectedMean', 'expectedSD'])
      if (o[k] === undefined)
        throw samplingError('missing_parameter', k, undefined, 'a number > 0 (or give expectedProportion instead)');
    return {
      expectedMean: checkPositive(o.expectedMean, 'expectedMean', 'invalid_mean'),
      expectedSD: checkPositive(o.expectedSD, 'expectedSD', 'invalid_sd'),
    };
  }
  if (o.expectedMean !== undefined || o.expectedSD !== undefined) {
    throw samplingError(
      'conflicting_parameters',
      o.expectedMean !== undefined ? 'expectedMean' : 'expectedSD',
      o.expectedMean ?? o.expectedSD,
      'either expectedProportion or expectedMean with expectedSD, not both',
    );
  }
  const p = o.expectedProportion;
  if (!isNum(p) || p <= 0 || p >= 1)
    throw samplingError('invalid_proportion', 'expectedProportion', p, 'a number with 0 < p < 1');
  return { expectedMean: p, expectedSD: Math.sqrt(p * (1 - p)) };
}

/** Validates an input object (from flags, a JSON file or an API body). */
export function validateDesignInput(raw: unknown): DesignInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw samplingError(
      'missing_parameter',
      'body',
      raw,
      'a JSON object with population, expectedMean, expectedSD and dropoutRate',
    );
  }
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!TOP_FIELDS.has(k)) throw samplingError('unknown_field', k, o[k], `one of ${[...TOP_FIELDS].join(', ')}`);
  }
  if (o.confidence !== undefined && o.confidence !== CONFIDENCE) {
    throw samplingError('confidence_must_be_0.95', 'confidence', o.confidence, '0.95 (95/5 is mandatory)');
  }
  if (o.precision !== undefined && o.precision !== PRECISION) {
    throw samplingError(
      'precision_must_be_0.05',
      'precision',
      o.precision,
      '0.05 (relative, ±5 % of the mean; 95/5 is mandatory)',
    );
  }
  if (o.population === undefined)
    throw samplingError('missing_parameter', 'population', undefined, 'an integer >= 1 (households in the frame)');
  if (
    !isNum(o.population) ||
    !Number.isInteger(o.population) ||
    o.population < 1 ||
    o.population > Number.MAX_SAFE_INTEGER
  ) {
    throw samplingError('invalid_population', 'population', o.population, POPULATION_VALID);
  }
  const hasProp = o.expectedProportion !== undefined;
  const { expectedMean, expectedSD } = expectedMeanSd(o);
  if (o.dropoutRate === undefined)
    throw samplingError('missing_parameter', 'dropoutRate', undefined, 'a fraction 0 <= d < 1 (0 for none)');
  const d = checkDropout(o.dropoutRate, 'dropoutRate');
  let erCoverage: number | undefined;
  if (o.erCoverage !== undefined) {
    if (!isNum(o.erCoverage) || o.erCoverage < 0 || o.erCoverage > 1)
      throw samplingError('invalid_er_coverage', 'erCoverage', o.erCoverage, 'a fraction 0 <= c <= 1');
    erCoverage = o.erCoverage;
  }
  const out: DesignInput = { population: o.population, expectedMean, expectedSD, dropoutRate: d };
  if (hasProp) out.expectedProportion = o.expectedProportion as number;
  if (o.confidence !== undefined) out.confidence = CONFIDENCE;
  if (o.precision !== undefined) out.precision = PRECISION;
  if (erCoverage !== undefined) out.erCoverage = erCoverage;
  if (o.stratification !== undefined && o.stratification !== null)
    out.stratification = validateStratification(o.stratification);
  return out;
}

function validateStratification(s: unknown): { enabled: boolean; strata: StratumInput[] } {
  if (typeof s !== 'object' || s === null || Array.isArray(s)) {
    throw samplingError(
      'invalid_strata',
      'stratification',
      s,
      `{enabled: boolean, strata: [{name, weight, mean?, sd?}]} with 1 to ${MAX_STRATA} strata`,
    );
  }
  const o = s as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'enabled' && k !== 'strata' && k !== 'method')
      throw samplingError('unknown_field', `stratification.${k}`, o[k], 'enabled, strata, method');
  }
  if (o.method !== undefined && o.method !== 'proportional')
    throw samplingError('invalid_strata', 'stratification.method', o.method, '"proportional"');
  const enabled = o.enabled === undefined ? true : o.enabled;
  if (typeof enabled !== 'boolean')
    throw samplingError('invalid_strata', 'stratification.enabled', o.enabled, 'true or false');
  if (!enabled) return { enabled: false, strata: [] };
  if (!Array.isArray(o.strata) || o.strata.length < 1 || o.strata.length > MAX_STRATA) {
    throw samplingError('invalid_strata', 'stratification.strata', o.strata, `an array of 1 to ${MAX_STRATA} strata`);
  }
  const seen = new Map<string, number>();
  const strata: StratumInput[] = o.strata.map((st: unknown, i: number) => {
    const f = `stratification.strata[${i}]`;
    if (typeof st !== 'object' || st === null || Array.isArray(st))
      throw samplingError('invalid_strata', f, st, '{name, weight, mean?, sd?}');
    const r = st as Record<string, unknown>;
    for (const k of Object.keys(r))
      if (!STRATUM_FIELDS.has(k))
        throw samplingError('unknown_field', `${f}.${k}`, r[k], 'name, weight, mean, sd, dropoutRate');
    if (typeof r.name !== 'string' || r.name.trim() === '' || r.name.trim().length > 64 || hasControlChar(r.name)) {
      throw samplingError(
        'invalid_stratum_name',
        `${f}.name`,
        r.name,
        'a non-empty name of at most 64 characters without control characters',
      );
    }
    const key = normaliseStratumName(r.name);
    const prev = seen.get(key);
    if (prev !== undefined) {
      const valid = 'stratum names unique after trim and case-fold';
      throw samplingError('duplicate_stratum', `${f}.name`, r.name, valid, {
        message: `${f}.name = ${JSON.stringify(r.name)} duplicates stratification.strata[${prev}].name after trim and case-fold; valid: ${valid}`,
      });
    }
    seen.set(key, i);
    if (r.weight === undefined)
      throw samplingError('missing_parameter', `${f}.weight`, undefined, 'a number in (0, 1]');
    if (!isNum(r.weight) || r.weight <= 0 || r.weight > 1)
      throw samplingError('invalid_weight', `${f}.weight`, r.weight, 'a number in (0, 1]');
    const out: StratumInput = { name: r.name.trim(), weight: r.weight };
    if (r.mean !== undefined) out.mean = checkPositive(r.mean, `${f}.mean`, 'invalid_mean');
    if (r.sd !== undefined) out.sd = checkPositive(r.sd, `${f}.sd`, 'invalid_sd');
    if (r.dropoutRate !== undefined) out.dropoutRate = checkDropout(r.dropoutRate, `${f}.dropoutRate`);
    return out;
  });
  const sum = strata.map((x) => Q.fromNumber(x.weight)).reduce((a, b) => Q.add(a, b), Q.int(0));
  const off = Math.abs(Q.toNumber(Q.sub(sum, Q.int(1))));
  if (off > 1e-6) {
    const valid = 'weights summing to 1 within 1e-6';
    throw samplingError(
      'weights_do_not_sum_to_1',
      'stratification.strata[].weight',
      strata.map((x) => x.weight),
      valid,
      {
        message: `stratum weights sum to ${Q.toNumber(sum)}, not 1; valid: ${valid}`,
        details: { sum: Q.toNumber(sum) },
      },
    );
  }
  return { enabled: true, strata };
}

/**
 * A design record's parameters (P) and stratification (S) as objects (empty when not), its strata (none when not a
 * list) and its method (proportional when it has strata and names none): what reading a record starts from.
 */
export function recordParts(parameters: unknown, stratification: unknown) {
  const asObject = (v: unknown) => (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const P = asObject(parameters);
  const S = asObject(stratification);
  const strata = Array.isArray(S.strata) ? (S.strata as Record<string, unknown>[]) : [];
  const method = S.method ?? (strata.length > 0 ? 'proportional' : 'none');
  return { P, S, strata, method };
}

/**
 * The input a design was computed from, read back from its record (the JSON of `sample calc --json`
 * or a registry record): population, mean and SD (or the proportion), dropout, erCoverage when it was
 * an input, and the strata with their weights (N_h/N when a record has none) and own mean and SD. So
 * a design's output is accepted wherever its input is, and recomputing it gives the same design.
 */
export function designInputOf(parameters: unknown, stratification: unknown): Record<string, unknown> {
  const { P, strata, method } = recordParts(parameters, stratification);
  const input: Record<string, unknown> = { population: P.population, dropoutRate: P.dropoutRate };
  if (P.expectedProportion !== undefined) input.expectedProportion = P.expectedProportion;
  else {
    input.expectedMean = P.expectedMean;
    input.expectedSD = P.expectedSD;
  }
  if (P.erCoverageSource === 'input') input.erCoverage = P.erCoverage;
  if (P.confidence !== undefined) input.confidence = P.confidence;
  if (P.precision !== undefined) input.precision = P.precision;
  if (method === 'proportional' && strata.length > 0) {
    const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
    input.stratification = {
      enabled: true,
      strata: strata.map((s) => {
        const o: Record<string, unknown> = {
          name: s.name,
          weight: s.weight ?? (isInt(s.population) && isInt(P.population) ? s.population / P.population : undefined),
        };
        if (s.mean !== undefined) o.mean = s.mean;
        if (s.sd !== undefined) o.sd = s.sd;
        if (s.dropoutRate !== undefined) o.dropoutRate = s.dropoutRate;
        return o;
      }),
    };
  }
  return input;
}

/** Validates and computes a design. Throws OracleKitError per sampling.md. */
export function computeDesign(raw: unknown): Design {
  const input = validateDesignInput(raw);
  return designFromValid(input);
}

export function designFromValid(input: DesignInput): Design {
  const N = input.population;
  const mean = input.expectedMean!;
  const sd = input.expectedSD!;
  const d = input.dropoutRate;
  const strataIn = input.stratification?.enabled ? input.stratification.strata : [];
  if (strataIn.length === 0) {
    const c = chain(N, mean, sd, d);
    if (c.adjustedSize > N) {
      throw samplingError(
        'insufficient_population',
        'population',
        N,
        c.n0 === Infinity ? overflowValid(c) : largerPopulation(mean, sd, d),
        {
          message: `adjustedSize ${c.adjustedSize} (calculatedSize ${c.calculatedSize} / (1 - ${d})) exceeds population ${N}; sizes are never capped silently`,
          details: { calculatedSize: c.calculatedSize, adjustedSize: c.adjustedSize, population: N },
        },
      );
    }
    return {
      parameters: parametersOf(input, c.calculatedSize, c.adjustedSize),
      stratification: { method: 'none', strata: [] },
      intermediates: { z: c.z, cv: c.cv, n0: c.n0, n_fpc: c.n_fpc },
      flags: c.census ? ['census'] : [],
      spec: 'sampling.md',
    };
  }
  const pops = apportion(
    N,
    strataIn.map((s) => s.weight),
  );
  const strata = computeStrata(
    strataIn.map((s, i) => ({
      name: s.name,
      weight: s.weight,
      population: pops[i]!,
      mean: s.mean ?? mean,
      sd: s.sd ?? sd,
      ...(s.dropoutRate !== undefined ? { dropoutRate: s.dropoutRate } : {}),
    })),
    d,
    N,
  );
  return {
    parameters: parametersOf(
      input,
      strata.reduce((a, s) => a + s.calculatedSize, 0),
      strata.reduce((a, s) => a + s.sampleSize, 0),
    ),
    stratification: { method: 'proportional', strata },
    intermediates: { z: Z_95 },
    flags: strata.some((s) => s.census) ? ['census'] : [],
    spec: 'sampling.md',
  };
}

/**
 * A design's parameters, in the order its JSON has always had (expectedProportion only when given). Built
 * as one literal: spreading a partial object into another made a slower, larger object on every design.
 */
function parametersOf(input: DesignInput, calculatedSize: number, adjustedSize: number): Design['parameters'] {
  const d = input.dropoutRate;
  const erCoverage = input.erCoverage ?? oneMinus(d);
  const erCoverageSource = input.erCoverage !== undefined ? 'input' : '1 - dropoutRate';
  const population = input.population;
  const expectedMean = input.expectedMean!;
  const expectedSD = input.expectedSD!;
  return input.expectedProportion === undefined
    ? {
        confidence: CONFIDENCE,
        precision: PRECISION,
        precisionType: 'relative',
        population,
        expectedMean,
        expectedSD,
        dropoutRate: d,
        erCoverage,
        erCoverageSource,
        calculatedSize,
        adjustedSize,
      }
    : {
        confidence: CONFIDENCE,
        precision: PRECISION,
        precisionType: 'relative',
        population,
        expectedMean,
        expectedSD,
        expectedProportion: input.expectedProportion,
        dropoutRate: d,
        erCoverage,
        erCoverageSource,
        calculatedSize,
        adjustedSize,
      };
}

/**
 * The smallest population whose design fits (adjustedSize <= N) for this mean, SD and dropout, found by
 * doubling and then bisection on the chain itself (so the advice is what the engine would compute), or
 * undefined when none up to the largest safe integer fits. Fitting means ceil(n_fpc(N)) <= (1 − d)·N
 * up to the ceilings, and n_fpc(N)/N falls as N grows, so the sizes that fit are the ones from a threshold on.
 */
function smallestFittingPopulation(mean: number, sd: number, dropoutRate: number): number | undefined {
  const fits = (N: number) => chain(N, mean, sd, dropoutRate).adjustedSize <= N;
  let hi = 1;
  while (!fits(hi)) {
    if (hi >= Number.MAX_SAFE_INTEGER) return undefined;
    hi = Math.min(Number.MAX_SAFE_INTEGER, hi * 2);
  }
  let lo = Math.floor(hi / 2); // does not fit (or 0)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** What is valid for a population too small for its design: a population that fits, computed. */
function largerPopulation(mean: number, sd: number, d: number): string {
  const m = smallestFittingPopulation(mean, sd, d);
  return m === undefined
    ? 'a lower dropoutRate (no population up to 9007199254740991 fits this dropout)'
    : `a population of at least ${m} households (the smallest that fits), or a lower dropoutRate`;
}

/**
 * What is valid when n0 is beyond the largest double: every population is
 * then a census before dropout, and any dropout > 0 asks for more households
 * than exist, so a larger population does not help.
 */
function overflowValid(c: ChainResult): string {
  return `dropoutRate 0 (a census: every household) or a smaller CV = SD/mean (CV = ${c.cv} puts n0 beyond the largest number, so no population is large enough)`;
}

/** A stratum population that fits, and the overall population that apportions it that much at these weights. */
function largerStratum(s: StratumSpec, i: number, specs: StratumSpec[], d: number, N: number): string {
  const m = smallestFittingPopulation(s.mean, s.sd, d);
  if (m === undefined) return 'a lower dropoutRate (no stratum population up to 9007199254740991 fits this dropout)';
  const weights = specs.map((x) => x.weight);
  let total = Math.max(N, Math.floor(m / s.weight) - specs.length);
  while (total < Number.MAX_SAFE_INTEGER && apportion(total, weights)[i]! < m) total++;
  return `a stratum population of at least ${m} households (the smallest that fits; at these weights a population of at least ${total}), a larger weight, or a lower dropoutRate`;
}

interface StratumSpec {
  name: string;
  weight: number;
  population: number;
  mean: number;
  sd: number;
  dropoutRate?: number;
}

/**
 * Runs the chain in every stratum with its own N_h, mean and SD (and dropout rate, when it has one; else the
 * design's d); each stratum keeps 95/5 on its own. Throws empty_stratum / insufficient_population.
 */
function computeStrata(specs: StratumSpec[], designD: number, N: number): StratumResult[] {
  const pops = specs.map((s) => s.population);
  return specs.map((s, i) => {
    const d = s.dropoutRate ?? designD;
    const Nh = s.population;
    const f = `stratification.strata[${i}]`;
    if (Nh === 0) {
      throw samplingError(
        'empty_stratum',
        `${f}.weight`,
        s.weight,
        `a weight large enough that ${s.name} gets at least one of ${N} households`,
        {
          message: `stratum ${JSON.stringify(s.name)} (weight ${s.weight}) is apportioned 0 of ${N} households; merge it or raise its weight`,
          details: { stratum: s.name, population: 0, apportioned: pops },
        },
      );
    }
    const c = chain(Nh, s.mean, s.sd, d);
    if (c.adjustedSize > Nh) {
      throw samplingError(
        'insufficient_population',
        f,
        s.name,
        c.n0 === Infinity ? overflowValid(c) : largerStratum(s, i, specs, d, N),
        {
          message: `stratum ${JSON.stringify(s.name)}: adjustedSize ${c.adjustedSize} (calculatedSize ${c.calculatedSize} / (1 - ${d})) exceeds its population ${Nh}; sizes are never capped silently`,
          details: { stratum: s.name, calculatedSize: c.calculatedSize, adjustedSize: c.adjustedSize, population: Nh },
        },
      );
    }
    return {
      name: s.name,
      weight: s.weight,
      population: Nh,
      mean: s.mean,
      sd: s.sd,
      cv: c.cv,
      n0: c.n0,
      n_fpc: c.n_fpc,
      calculatedSize: c.calculatedSize,
      sampleSize: c.adjustedSize,
      census: c.census,
      ...(s.dropoutRate !== undefined ? { dropoutRate: s.dropoutRate } : {}),
    };
  });
}
