/**
 * The package's field data against the design and the draw: which observations are of the drawn sample
 * (matched by household ID to the checked selection.csv), their statistics per stratum at the true populations
 * (the frame's counts once there is a commitment), the comparison with the design's assumptions, the realised
 * dropout counted against the drawn sample, and the findings all this gives. Nothing is met that was not
 * checked: a stratum without a completed observation, more observations than households, or a dropout that
 * cannot be counted is a finding, never a silent 0 or a missing row.
 */
import { chain, PRECISION, Z_95, type Design } from '../sampling/design.ts';
import { stratumKey } from '../sampling/names.ts';
import {
  achievedPrecision,
  dropoutRate,
  meanSd,
  plausibilityNote,
  stratifiedEstimate,
  type StratifiedOverall,
} from '../sampling/recalc.ts';

export interface Observation {
  /** The household's ID (matched against the draw when there is a selection). */
  household?: string;
  /** null: sampled but not completed (an empty or NA value); counts for the realised dropout only. */
  value: number | null;
  stratum?: string;
}

export interface Finding {
  severity: 'warning' | 'info';
  message: string;
}

/** A stratum as the figures use it: its population is the frame's count once there is a commitment. */
export interface StratumRow {
  name: string;
  population: number;
  sampleSize: number;
  calculatedSize: number;
  mean?: number;
  sd?: number;
  cv?: number;
  dropoutRate?: number;
}

export interface ObservationStats {
  group: string;
  n: number;
  mean: number;
  sd: number;
  cv: number;
  /** N for the precision (the group's population), if known. */
  population?: number;
  /** r = z * s / (xbar * sqrt(n)) * sqrt(1 - n/N) (overall of a stratified design: z √V(x̄_st) / x̄_st). */
  achievedPrecision?: number;
  meets95_5?: boolean;
  /** How the row is computed. */
  estimator: 'srs' | 'stratified' | 'pooled (no strata in the observations)';
  /** Why no precision is stated, in words. */
  statement?: string;
}

/**
 * The realised dropout: per stratum 1 − completed/sampled. "selection": sampled = the drawn sample's n_h plus the
 * replacements visited in rank order (a drawn household without a row is not completed); "marked": the
 * observations mark households sampled but not completed (an empty or NA value), so sampled = rows; "design":
 * sampled = the design's n_h.
 */
export interface PackageDropout {
  basis: 'selection' | 'marked' | 'design';
  designed: number;
  strata: { stratum: string; sampled: number; completed: number; rate: number }[];
  overall: { sampled: number; completed: number; rate: number };
  /** Strata whose dropout cannot be counted, said in words (never 0 %, never capped). */
  notCounted: { stratum: string; statement: string }[];
}

/** How the observations relate to the draw (with a checked selection.csv only). */
export interface DrawMatch {
  /** Which rows the statistics use: the drawn households only (default), or every frame household too. */
  rule: 'drawn households only' | 'every frame household (includeUndrawn)';
  rows: number;
  /** Rows the statistics use. */
  used: number;
  /** IDs that are not in the frame at all: never used. */
  notInFrame: string[];
  /** Frame households that were not drawn: replacements visited when no sampled household was left to replace. */
  notDrawn: string[];
  /** Replacements visited out of rank order (after a replacement of lower rank that has no row). */
  outOfOrder: string[];
  /** Rows whose stratum is not the frame's for the household (the frame's counts). */
  otherStratum: { household: string; stated: string; frame: string }[];
  strata: {
    stratum: string;
    sampleSize: number;
    /** Sampled households (ranks 1..n_h) with a row, and with no row at all. */
    sampleRows: number;
    sampleWithoutRow: number;
    /** Replacements visited in rank order for a dropout. */
    replacementsUsed: number;
  }[];
}

/** Per stratum: the design's assumption against what the supporting data show. */
export interface StratumComparison {
  stratum: string;
  population: number;
  cvAssumed: number;
  cvObserved: number;
  observations: number;
  /** Completed observations the design plans (calculatedSize_h) and households to sample (n_h). */
  plannedCompleted: number;
  plannedSample: number;
  /** r = z · CV_observed / √n · √(1 − n/N_h) at n = plannedCompleted. */
  precisionAtPlanned: number;
  meetsAtPlanned: boolean;
  /** The sizes the chain gives with the observed mean and SD (null: more than N_h). */
  impliedCompleted: number;
  impliedSample: number | null;
  tooSmall: boolean;
}

export interface ReportObservations {
  kind: string;
  file: string | null;
  /** Where the populations of the figures came from. */
  populations: 'design' | 'frame';
  stats: ObservationStats[];
  overall: StratifiedOverall | null;
  comparison: StratumComparison[];
  /** The realised dropout per stratum (null when it cannot be counted or compared). */
  dropout: PackageDropout | null;
  /** The observations matched to the drawn sample (null without a checked selection.csv, or for baseline data). */
  draw: DrawMatch | null;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;
const pct = (x: number, d = 1): string => `${(x * 100).toFixed(d)} %`;
const some = (ids: string[]): string =>
  ids
    .slice(0, 5)
    .map((x) => JSON.stringify(x))
    .join(', ') + (ids.length > 5 ? `, … (${ids.length} in all, listed in the JSON)` : '');

/**
 * Observation statistics per design stratum (in design order) and overall: for a stratified design the overall row
 * is the stratified estimator (Σ W_h x̄_h, V = Σ W_h² (1 − n_h/N_h) s_h²/n_h) when every stratum has at least two
 * completed observations and no more than its households; for one population it is the simple-random-sampling
 * row. A group with more observations than households gets no precision, and says why.
 */
export function observationStats(
  values: Observation[],
  strata: { name: string; population: number }[],
  totalPopulation: number,
  stratified: boolean,
): { stats: ObservationStats[]; overall: StratifiedOverall | null; unknown: string[] } {
  const byKey = new Map(strata.map((s) => [stratumKey(s.name), s] as const));
  const groups = new Map<string, number[]>();
  const unknown = new Set<string>();
  let withStratum = 0;
  for (const o of values) {
    if (o.value === null || o.stratum === undefined || o.stratum === '') continue;
    withStratum++;
    const s = byKey.get(stratumKey(o.stratum));
    if (!s) {
      unknown.add(o.stratum);
      continue;
    }
    (groups.get(s.name) ?? groups.set(s.name, []).get(s.name)!).push(o.value);
  }
  const one = (
    group: string,
    xs: number[],
    N: number | undefined,
    estimator: ObservationStats['estimator'],
  ): ObservationStats => {
    const { mean, sd } = meanSd(xs);
    const s: ObservationStats = { group, n: xs.length, mean, sd, cv: mean !== 0 ? sd / mean : Number.NaN, estimator };
    if (N === undefined) return s;
    s.population = N;
    if (xs.length > N) {
      s.meets95_5 = false;
      s.statement = `${xs.length} observations of ${N} households: more observations than households, so no precision is stated (the data are not of this population, or the design is for a smaller one)`;
    } else if (mean === 0) {
      s.statement =
        sd === 0
          ? `all ${xs.length} observations are 0: the mean is 0 exactly for them (±0 in absolute terms); a precision relative to a mean of 0 does not exist`
          : `the mean is 0: a precision relative to it does not exist`;
    } else if (xs.length > 1 && mean > 0) {
      s.achievedPrecision = achievedPrecision(xs.length, N, mean, sd);
      s.meets95_5 = s.achievedPrecision <= PRECISION;
    }
    return s;
  };
  const stats: ObservationStats[] = [];
  let overall: StratifiedOverall | null = null;
  if (!values.some((o) => o.value !== null)) return { stats, overall, unknown: [...unknown] };
  if (stratified && withStratum > 0) {
    for (const s of strata) {
      const xs = groups.get(s.name);
      if (xs && xs.length > 0) stats.push(one(s.name, xs, s.population, 'srs'));
    }
    const complete =
      stats.length === strata.length &&
      stats.every((g) => g.n > 1 && g.n <= g.population!) &&
      stats.some((g) => g.mean > 0);
    if (complete) {
      overall = stratifiedEstimate(stats.map((g) => ({ population: g.population!, n: g.n, mean: g.mean, sd: g.sd })));
      stats.push({
        group: 'overall',
        n: overall.n,
        mean: overall.mean,
        sd: overall.sd,
        cv: overall.sd / overall.mean,
        population: overall.population,
        achievedPrecision: overall.precision,
        meets95_5: overall.met,
        estimator: 'stratified',
      });
    }
  } else {
    stats.push(
      one(
        stratified ? 'overall' : 'all',
        values.flatMap((o) => (o.value === null ? [] : [o.value])),
        stratified ? undefined : totalPopulation,
        stratified ? 'pooled (no strata in the observations)' : 'srs',
      ),
    );
  }
  return { stats, overall, unknown: [...unknown] };
}

/**
 * Per stratum: CV assumed vs observed, the precision the planned size achieves with the observed CV, the size the data
 * imply.
 */
export function compareWithData(d: Design, strata: StratumRow[], stats: ObservationStats[]): StratumComparison[] {
  const out: StratumComparison[] = [];
  for (const s of strata) {
    const g = stats.find((x) => x.group === s.name && x.estimator === 'srs');
    if (!g || g.n < 2 || !(g.mean > 0) || !(g.sd > 0)) continue;
    const n = s.calculatedSize;
    const r = achievedPrecision(n, s.population, g.mean, g.sd, Z_95);
    const implied = chain(s.population, g.mean, g.sd, d.parameters.dropoutRate);
    const impliedSample = implied.adjustedSize > s.population ? null : implied.adjustedSize;
    out.push({
      stratum: s.name,
      population: s.population,
      cvAssumed: s.cv ?? d.parameters.expectedSD / d.parameters.expectedMean,
      cvObserved: g.sd / g.mean,
      observations: g.n,
      plannedCompleted: n,
      plannedSample: s.sampleSize,
      precisionAtPlanned: r,
      meetsAtPlanned: r <= PRECISION,
      impliedCompleted: implied.calculatedSize,
      impliedSample,
      tooSmall: impliedSample === null || impliedSample > s.sampleSize,
    });
  }
  return out;
}

/** One stratum's drawn order: its committed name, n_h and every household ID in rank order. */
export interface StratumOrder {
  stratum: string;
  sampleSize: number;
  ids: string[];
}

/**
 * Matches observations to the drawn order by household ID. The drawn households of a stratum are its sample
 * (ranks 1..n_h) and the replacements visited strictly in rank order while a sampled household was left to
 * replace (each sampled household without a completed row is one to replace; a replacement without a completed
 * row is itself replaced by the next). A row of a replacement after one of lower rank that has no row is out of
 * rank order; a replacement visited when nothing was left to replace was not drawn. Every row takes the frame's
 * stratum. The statistics use the drawn households only, unless `includeUndrawn` (then every frame household
 * with a row; a household not in the frame is never used).
 */
export function matchToDraw(
  values: Observation[],
  order: StratumOrder[],
  includeUndrawn: boolean,
): { used: Observation[]; match: DrawMatch; dropout: Omit<PackageDropout, 'designed'> } {
  const where = new Map<string, { si: number; rank: number }>();
  order.forEach((s, si) => s.ids.forEach((id, i) => where.set(id, { si, rank: i + 1 })));
  const rowOf = new Map<string, Observation>();
  const notInFrame: string[] = [];
  const otherStratum: DrawMatch['otherStratum'] = [];
  for (const o of values) {
    const id = o.household ?? '';
    const at = where.get(id);
    if (!at) {
      notInFrame.push(id);
      continue;
    }
    const frame = order[at.si]!.stratum;
    if (o.stratum !== undefined && stratumKey(o.stratum) !== stratumKey(frame))
      otherStratum.push({ household: id, stated: o.stratum, frame });
    rowOf.set(id, o);
  }
  const used: Observation[] = [];
  const notDrawn: string[] = [];
  const outOfOrder: string[] = [];
  const strata: DrawMatch['strata'] = [];
  const dropoutRows: PackageDropout['strata'] = [];
  for (const s of order) {
    const take = (id: string) => used.push({ ...rowOf.get(id)!, household: id, stratum: s.stratum });
    let left = 0;
    let sampleRows = 0;
    let completed = 0;
    for (let r = 0; r < s.sampleSize && r < s.ids.length; r++) {
      const o = rowOf.get(s.ids[r]!);
      if (o) {
        sampleRows++;
        take(s.ids[r]!);
      }
      if (o && o.value !== null) completed++;
      else left++;
    }
    let visited = 0;
    let gap = false;
    for (let r = s.sampleSize; r < s.ids.length; r++) {
      const id = s.ids[r]!;
      const o = rowOf.get(id);
      if (!o) {
        if (left > 0) gap = true;
        continue;
      }
      if (gap) outOfOrder.push(id);
      else if (left === 0) notDrawn.push(id);
      else {
        visited++;
        take(id);
        if (o.value !== null) {
          completed++;
          left--;
        }
        continue;
      }
      if (includeUndrawn) take(id);
    }
    strata.push({
      stratum: s.stratum,
      sampleSize: s.sampleSize,
      sampleRows,
      sampleWithoutRow: s.sampleSize - sampleRows,
      replacementsUsed: visited,
    });
    const sampled = s.sampleSize + visited;
    dropoutRows.push({ stratum: s.stratum, sampled, completed, rate: dropoutRate(sampled, completed) });
  }
  const sampled = dropoutRows.reduce((a, x) => a + x.sampled, 0);
  const completed = dropoutRows.reduce((a, x) => a + x.completed, 0);
  return {
    used,
    match: {
      rule: includeUndrawn ? 'every frame household (includeUndrawn)' : 'drawn households only',
      rows: values.length,
      used: used.length,
      notInFrame,
      notDrawn,
      outOfOrder,
      otherStratum,
      strata,
    },
    dropout: {
      basis: 'selection',
      strata: dropoutRows,
      overall: { sampled, completed, rate: dropoutRate(sampled, completed) },
      notCounted: [],
    },
  };
}

/**
 * The realised dropout without a selection: "marked" when the observations mark households not completed (then a
 * stratum with fewer rows than its n_h is not counted: its sampled households without a row could be either);
 * else against the design's n_h. A stratum with more completed observations than its n_h is not counted either.
 */
export function packageDropout(
  values: Observation[],
  strata: { name: string; sampleSize: number }[],
  stratified: boolean,
  designed: number,
): PackageDropout | null {
  const marked = values.some((o) => o.value === null);
  const byKey = new Map(strata.map((s) => [stratumKey(s.name), s.name] as const));
  const counts = new Map<string, { rows: number; completed: number }>();
  for (const o of values) {
    const name = stratified ? byKey.get(stratumKey(o.stratum ?? '')) : strata[0]?.name;
    if (name === undefined) continue;
    const c = counts.get(name) ?? counts.set(name, { rows: 0, completed: 0 }).get(name)!;
    c.rows++;
    if (o.value !== null) c.completed++;
  }
  const rows: PackageDropout['strata'] = [];
  const notCounted: PackageDropout['notCounted'] = [];
  for (const s of strata) {
    const c = counts.get(s.name);
    if (!c) continue;
    if (c.completed > s.sampleSize) {
      notCounted.push({
        stratum: s.name,
        statement: `stratum ${s.name}: ${c.completed} completed observations, more than the ${s.sampleSize} households the design samples (n_h): they are not only the designed sample, and its dropout is not counted`,
      });
      continue;
    }
    if (marked && c.rows < s.sampleSize) {
      notCounted.push({
        stratum: s.name,
        statement: `stratum ${s.name}: ${c.rows} rows for the ${s.sampleSize} sampled households (n_h) — ${s.sampleSize - c.rows} sampled households have no row, so its dropout is not counted (not 0 %); give the selection to count it against the drawn sample`,
      });
      continue;
    }
    const sampled = marked ? c.rows : s.sampleSize;
    rows.push({ stratum: s.name, sampled, completed: c.completed, rate: dropoutRate(sampled, c.completed) });
  }
  if (rows.length === 0 && notCounted.length === 0) return null;
  const sampled = rows.reduce((a, x) => a + x.sampled, 0);
  const completed = rows.reduce((a, x) => a + x.completed, 0);
  return {
    basis: marked ? 'marked' : 'design',
    designed,
    strata: rows,
    overall: { sampled, completed, rate: sampled > 0 ? dropoutRate(sampled, completed) : Number.NaN },
    notCounted,
  };
}

/** The findings of the match with the draw: each kind of row the statistics leave out (or include), counted. */
function drawFindings(kind: string, m: DrawMatch): Finding[] {
  const out: Finding[] = [];
  const fate = (included: boolean) => (included ? 'included (includeUndrawn)' : 'left out of every figure');
  if (m.notInFrame.length > 0)
    out.push({
      severity: 'warning',
      message: `${m.notInFrame.length} of ${m.rows} ${kind} observations are of households not in the frame at all: ${some(m.notInFrame)} — left out of every figure`,
    });
  if (m.notDrawn.length > 0)
    out.push({
      severity: 'warning',
      message: `${m.notDrawn.length} ${kind} observations are of frame households that were not drawn (replacements visited with no sampled household left to replace): ${some(m.notDrawn)} — ${fate(m.rule !== 'drawn households only')}`,
    });
  if (m.outOfOrder.length > 0)
    out.push({
      severity: 'warning',
      message: `${m.outOfOrder.length} ${kind} observations are of replacements used out of rank order (a replacement of lower rank has no row): ${some(m.outOfOrder)} — ${fate(m.rule !== 'drawn households only')}`,
    });
  if (m.otherStratum.length > 0)
    out.push({
      severity: 'warning',
      message: `${m.otherStratum.length} ${kind} observations name another stratum than the frame gives the household: ${m.otherStratum
        .slice(0, 5)
        .map((x) => `${JSON.stringify(x.household)} (${x.stated}; frame ${x.frame})`)
        .join(', ')}${m.otherStratum.length > 5 ? ', …' : ''} — counted in the frame's stratum`,
    });
  for (const s of m.strata)
    if (s.sampleWithoutRow > 0)
      out.push({
        severity: 'info',
        message: `stratum ${s.stratum}: ${s.sampleWithoutRow} of the ${s.sampleSize} sampled households have no row: counted as not completed`,
      });
  return out;
}

/** Monitoring observations that miss ±5 %: a headline finding each, with what the methodology then requires. */
function missedPrecision(
  kind: string,
  stats: ObservationStats[],
  strata: StratumRow[],
  dropoutRate: number,
): Finding[] {
  const missed: Finding[] = [];
  for (const g of stats) {
    if (g.meets95_5 !== false || g.achievedPrecision === undefined) continue;
    const st = strata.find((s) => s.name === g.group);
    const more =
      g.estimator === 'srs' && g.population !== undefined
        ? chain(g.population, g.mean, g.sd, dropoutRate).calculatedSize - g.n
        : undefined;
    missed.push({
      severity: 'warning',
      message: `${g.group === 'overall' ? 'overall (stratified estimate)' : `stratum ${g.group}`}: the ${kind} observations achieve ±${pct(g.achievedPrecision, 2)}, not ±5 % (${g.n} completed${st ? ` of ${st.sampleSize} planned` : ''}${g.population !== undefined ? `, N = ${g.population}` : ''}). The methodology then requires ${more !== undefined && more > 0 ? `${more} more completed interviews (${g.n + more} in all at the observed CV)` : 'more completed interviews'}, or the conservative bound: the mean's lower limit x̄·(1 − r) = ${r4(g.mean * (1 - g.achievedPrecision))} instead of x̄ = ${r4(g.mean)}`,
    });
  }
  return missed;
}

/** What was not checked: strata without a completed observation, rows without a stratum, groups without a precision. */
function uncheckedFindings(
  kind: string,
  stats: ObservationStats[],
  strata: StratumRow[],
  stratified: boolean,
  overall: StratifiedOverall | null,
): Finding[] {
  const out: Finding[] = [];
  const pooled = stats.some((s) => s.estimator === 'pooled (no strata in the observations)');
  if (stratified && pooled)
    out.push({
      severity: 'warning',
      message: `the ${kind} observations carry no stratum: no stratum's precision was checked, and their pooled mean is not an estimate for the stratified population`,
    });
  else if (stratified)
    for (const s of strata)
      if (!stats.some((g) => g.group === s.name))
        out.push({
          severity: 'warning',
          message: `stratum ${s.name}: no completed ${kind} observation — its precision was not checked`,
        });
  for (const g of stats)
    if (g.statement && g.meets95_5 === false)
      out.push({ severity: 'warning', message: `stratum ${g.group}: ${g.statement}` });
    else if (g.statement) out.push({ severity: 'info', message: `stratum ${g.group}: ${g.statement}` });
  if (stratified && !overall && !pooled && stats.some((g) => g.n < 2))
    out.push({
      severity: 'info',
      message: `not every stratum has at least two ${kind} observations: no overall (stratified) estimate`,
    });
  return out;
}

/**
 * Observations against the design: matched to the draw (monitoring data with a checked selection), their
 * statistics at the true populations, the comparison with the design's assumptions, the realised dropout
 * (monitoring only), and the findings these give, warnings first.
 */
export function observationsReport(o: {
  obs: { kind: 'baseline' | 'monitoring'; file?: string; values: Observation[]; includeUndrawn?: boolean };
  design: Design;
  stratified: boolean;
  strata: StratumRow[];
  populations: 'design' | 'frame';
  order: StratumOrder[] | null;
  findings: Finding[];
}): ReportObservations {
  const { obs, design, strata, findings } = o;
  const P = design.parameters;
  const monitoring = obs.kind === 'monitoring';
  const total = strata.reduce((a, s) => a + s.population, 0);
  let values = obs.values;
  let draw: DrawMatch | null = null;
  let dropout: PackageDropout | null = null;
  const found: Finding[] = [];
  if (monitoring && o.order) {
    const m = matchToDraw(values, o.order, obs.includeUndrawn === true);
    values = m.used;
    draw = m.match;
    dropout = { ...m.dropout, designed: P.dropoutRate };
    found.push(...drawFindings(obs.kind, m.match));
  } else if (monitoring) dropout = packageDropout(values, strata, o.stratified, P.dropoutRate);
  const { stats, overall, unknown } = observationStats(
    values,
    strata,
    o.stratified ? total : strata[0]!.population,
    o.stratified,
  );
  const comparison = compareWithData(design, strata, stats);
  if (monitoring) found.unshift(...missedPrecision(obs.kind, stats, strata, P.dropoutRate));
  found.push(...uncheckedFindings(obs.kind, stats, strata, o.stratified, overall));
  for (const x of dropout?.strata ?? []) {
    const designed = strata.find((s) => s.name === x.stratum)?.dropoutRate ?? P.dropoutRate;
    if (x.rate > designed)
      found.push({
        severity: 'warning',
        message: `stratum ${x.stratum}: realised dropout ${pct(x.rate)} (${x.completed} completed of ${x.sampled} ${dropout!.basis === 'design' ? 'planned' : 'sampled'}) against ${pct(designed)} designed; overall ${pct(dropout!.overall.rate)}`,
      });
  }
  for (const x of dropout?.notCounted ?? []) found.push({ severity: 'warning', message: x.statement });
  if (unknown.length > 0)
    found.push({
      severity: 'warning',
      message: `the ${obs.kind} observations name strata that are not in the design: ${unknown.join(', ')} (left out)`,
    });
  for (const g of stats) {
    const own = o.stratified && g.estimator === 'srs';
    const assumed = own ? (strata.find((x) => x.name === g.group)?.mean ?? P.expectedMean) : P.expectedMean;
    const note = plausibilityNote(own ? g.group : o.stratified ? 'overall' : 'all', g.mean, assumed);
    if (note) found.push({ severity: 'info', message: `${obs.kind} observations, ${note.statement}` });
  }
  for (const k of comparison) {
    const cvText = `CV assumed ${r4(k.cvAssumed)}, observed ${r4(k.cvObserved)} (${k.observations} ${obs.kind} observations)`;
    if (k.tooSmall)
      found.push({
        severity: 'warning',
        message: `stratum ${k.stratum}: the design is too small for its own supporting data — ${cvText}; at the planned ${k.plannedCompleted} completed interviews the relative precision would be ±${pct(k.precisionAtPlanned, 2)}, not ±5 %; the data imply ${k.impliedCompleted} completed, ${k.impliedSample === null ? `more than its N_h ${k.population} households` : `${k.impliedSample} households to sample`} (planned ${k.plannedSample})`,
      });
  }
  findings.unshift(...found.filter((f) => f.severity === 'warning'));
  findings.push(...found.filter((f) => f.severity === 'info'));
  return {
    kind: obs.kind,
    file: obs.file ?? null,
    populations: o.populations,
    stats,
    overall,
    comparison,
    dropout,
    draw,
  };
}
