/**
 * The design a selection draws from: the output of `sample calc --json`, a
 * registry record (the same parameters/stratification plus designId,
 * projectId, version), or a calc input (computed here with computeDesign).
 * An unstratified design is one stratum "all" with n = parameters.adjustedSize.
 *
 * designId: the record's designId when present; otherwise
 * "sha256:" + SHA-256 of the canonical JSON (sorted keys, no whitespace) of
 * {parameters, stratification}.
 */
import { computeDesign, designInputOf, recordParts, type Design } from '../sampling/design.ts';
import { achievedPrecision } from '../sampling/recalc.ts';
import { selectionError } from './errors.ts';
import { canonicalJson, sha256Hex, trimId } from './hash.ts';
import { UNSTRATIFIED } from './frame.ts';

export interface SelectionDesign {
  designId: string;
  designIdSource: 'record' | 'sha256(canonical {parameters, stratification})';
  projectId?: string;
  version?: number;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  /** The strata the frame is drawn in, with n_h. */
  strata: { name: string; designPopulation: number; sampleSize: number }[];
  stratified: boolean;
  /** The design file's own provenance block (what made it, with which method, when), verbatim; absent if it has none. */
  provenance?: Record<string, unknown>;
}

const hasControl = (s: string): boolean => [...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export function designIdOf(parameters: unknown, stratification: unknown): string {
  return 'sha256:' + sha256Hex(canonicalJson({ parameters, stratification }));
}

export function loadDesign(raw: unknown, source = 'design'): SelectionDesign {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw selectionError(
      'invalid_design',
      source,
      raw,
      'the JSON of `oraclekit sample calc --json`, a registry design record, or a calc input',
    );
  }
  let o = raw as Record<string, unknown>;
  if (o.parameters === undefined) {
    // a calc input ({population, expectedMean, expectedSD, dropoutRate, ...}): compute it
    const { projectId: _p, ...input } = o;
    o = computeDesign(input) as unknown as Record<string, unknown>;
  }
  const p = o.parameters as Record<string, unknown> | undefined;
  const st = o.stratification as Record<string, unknown> | undefined;
  if (typeof p !== 'object' || p === null)
    throw selectionError('invalid_design', `${source}.parameters`, p, 'an object with adjustedSize and population');
  if (!isInt(p.adjustedSize) || p.adjustedSize < 1)
    throw selectionError('invalid_design', `${source}.parameters.adjustedSize`, p.adjustedSize, 'an integer >= 1');
  if (!isInt(p.population) || p.population < 1)
    throw selectionError('invalid_design', `${source}.parameters.population`, p.population, 'an integer >= 1');
  const method = st?.method ?? 'none';
  if (method !== 'none' && method !== 'proportional')
    throw selectionError('invalid_design', `${source}.stratification.method`, method, '"none" or "proportional"');
  const strataRaw = Array.isArray(st?.strata) ? (st.strata as Record<string, unknown>[]) : [];
  let strata: SelectionDesign['strata'];
  if (method === 'none' || strataRaw.length === 0) {
    strata = [{ name: UNSTRATIFIED, designPopulation: p.population, sampleSize: p.adjustedSize }];
  } else {
    strata = strataRaw.map((s, i) => {
      const f = `${source}.stratification.strata[${i}]`;
      if (typeof s?.name !== 'string' || trimId(s.name) === '' || hasControl(s.name))
        throw selectionError(
          'invalid_design',
          `${f}.name`,
          s?.name,
          'a non-empty stratum name without control characters',
        );
      if (!isInt(s.sampleSize) || s.sampleSize < 1)
        throw selectionError('invalid_design', `${f}.sampleSize`, s.sampleSize, 'an integer >= 1');
      if (!isInt(s.population) || s.population < 1)
        throw selectionError('invalid_design', `${f}.population`, s.population, 'an integer >= 1');
      return { name: trimId(s.name), designPopulation: s.population, sampleSize: s.sampleSize };
    });
    const seen = new Set<string>();
    strata.forEach((s, i) => {
      const k = s.name.toLowerCase();
      if (seen.has(k))
        throw selectionError(
          'invalid_design',
          `${source}.stratification.strata[${i}].name`,
          s.name,
          'unique stratum names (trim and case-fold)',
        );
      seen.add(k);
    });
  }
  const parameters = p as unknown as Design['parameters'];
  const stratification = (st ?? { method: 'none', strata: [] }) as unknown as Design['stratification'];
  const fromRecord = typeof o.designId === 'string' && o.designId.trim() !== '';
  const out: SelectionDesign = {
    designId: fromRecord ? (o.designId as string) : designIdOf(parameters, stratification),
    designIdSource: fromRecord ? 'record' : 'sha256(canonical {parameters, stratification})',
    parameters,
    stratification,
    strata,
    stratified: method === 'proportional' && strataRaw.length > 0,
  };
  if (typeof o.projectId === 'string') out.projectId = o.projectId;
  if (isInt(o.version)) out.version = o.version;
  if (typeof o.provenance === 'object' && o.provenance !== null && !Array.isArray(o.provenance))
    out.provenance = o.provenance as Record<string, unknown>;
  return out;
}

interface DesignDiscrepancy {
  /** e.g. "stratification.strata[1].sampleSize". */
  field: string;
  stated: unknown;
  recomputed: unknown;
  /** One sentence: what the stated value is, what the chain gives and from which inputs. */
  message: string;
}

const close = (a: unknown, b: unknown): boolean =>
  typeof a === 'number' &&
  typeof b === 'number' &&
  (a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)));

/**
 * Recomputes a design from its own parameters with the engine of `sample
 * calc` (computeDesign) and lists every size that does not follow from them:
 * N_h, calculatedSize and n_h per stratum, the totals, erCoverage (and the
 * unrounded CV, n0, n_fpc where the record carries them). An empty list
 * means the design is what the sampling chain gives for its inputs. A record
 * whose inputs cannot be recomputed (no expected mean, a weight missing, an
 * input the chain refuses) yields one discrepancy saying why.
 */
export function designDiscrepancies(parameters: unknown, stratification: unknown): DesignDiscrepancy[] {
  const { P, S, strata, method } = recordParts(parameters, stratification);
  const input = designInputOf(P, S);
  let d: Design;
  try {
    d = computeDesign(input);
  } catch (e) {
    const err = e as { field?: string; message?: string };
    return [
      {
        field: `parameters${err.field ? ` (${err.field})` : ''}`,
        stated: undefined,
        recomputed: undefined,
        message: `the design cannot be recomputed from its own parameters: ${err.message ?? String(e)}`,
      },
    ];
  }
  const k = new Discrepancies();
  const R = d.parameters;
  if (d.stratification.strata.length === 0) {
    k.cmp(
      'parameters.calculatedSize',
      P.calculatedSize,
      R.calculatedSize,
      `${inputsText(P.population, R.expectedMean, R.expectedSD, P.dropoutRate)}: n_fpc ${(d.intermediates as { n_fpc: number }).n_fpc}, ceil`,
    );
    k.cmp(
      'parameters.adjustedSize',
      P.adjustedSize,
      R.adjustedSize,
      `ceil(${R.calculatedSize} / (1 − ${R.dropoutRate}))`,
    );
    if (strata.length > 0 && method !== 'none')
      k.list.push({
        field: 'stratification.method',
        stated: method,
        recomputed: 'none',
        message: `stratification.method = ${JSON.stringify(method)} with strata, but the strata cannot be recomputed`,
      });
  } else {
    strataDiscrepancies(k, P, strata, d);
  }
  k.cmp(
    'parameters.erCoverage',
    P.erCoverage,
    R.erCoverage,
    R.erCoverageSource === 'input' ? 'the input' : `1 − ${R.dropoutRate}`,
  );
  if (P.erCoverageSource !== undefined)
    k.cmp(
      'parameters.erCoverageSource',
      P.erCoverageSource,
      R.erCoverageSource,
      'the input when given, else 1 − dropoutRate',
    );
  if (P.expectedProportion !== undefined)
    k.cmp('parameters.expectedSD', P.expectedSD, R.expectedSD, 'sqrt(p (1 − p))', false);
  return k.list;
}

const inputsText = (N: unknown, mean: unknown, sd: unknown, dropout: unknown) =>
  `N ${N}, mean ${mean}, SD ${sd}, dropout ${dropout}`;

/** The sizes a design states that differ from the recomputed ones, each saying where the recomputed value comes from. */
class Discrepancies {
  readonly list: DesignDiscrepancy[] = [];

  /** Records `field` unless `stated` is `recomputed` (or close to it when not `exact`; absent is then fine). */
  cmp(field: string, stated: unknown, recomputed: unknown, from: string, exact = true): void {
    if (stated === undefined && !exact) return;
    if (exact ? stated === recomputed : close(stated, recomputed)) return;
    this.list.push({
      field,
      stated,
      recomputed,
      message: `${field} = ${JSON.stringify(stated)} does not follow from the design's own parameters: the sampling chain gives ${JSON.stringify(recomputed)} (${from})`,
    });
  }
}

/** A stratified design: the number of strata, each stratum's name, N_h and sizes, then the totals over strata. */
function strataDiscrepancies(
  k: Discrepancies,
  P: Record<string, unknown>,
  strata: Record<string, unknown>[],
  d: Design,
): void {
  const R = d.parameters;
  if (strata.length !== d.stratification.strata.length) {
    k.list.push({
      field: 'stratification.strata',
      stated: strata.length,
      recomputed: d.stratification.strata.length,
      message: `the design lists ${strata.length} strata; recomputed ${d.stratification.strata.length}`,
    });
  }
  d.stratification.strata.forEach((r, i) => {
    const s = strata[i] ?? {};
    const f = `stratification.strata[${i}]`;
    const from = inputsText(r.population, r.mean, r.sd, P.dropoutRate);
    k.cmp(`${f}.name`, typeof s.name === 'string' ? trimId(s.name) : s.name, r.name, 'the stratum names');
    k.cmp(
      `${f}.population`,
      s.population,
      r.population,
      `largest-remainder apportionment of N ${R.population} by weight ${r.weight}`,
    );
    k.cmp(`${f}.cv`, s.cv, r.cv, from, false);
    k.cmp(`${f}.n0`, s.n0, r.n0, from, false);
    k.cmp(`${f}.n_fpc`, s.n_fpc, r.n_fpc, from, false);
    k.cmp(`${f}.calculatedSize`, s.calculatedSize, r.calculatedSize, `${from}: n_fpc ${r.n_fpc}, ceil`);
    k.cmp(`${f}.sampleSize`, s.sampleSize, r.sampleSize, `${from}: ceil(${r.calculatedSize} / (1 − ${R.dropoutRate}))`);
    if (s.census !== undefined) k.cmp(`${f}.census`, s.census, r.census, from);
  });
  k.cmp('parameters.calculatedSize', P.calculatedSize, R.calculatedSize, 'Σ calculatedSize_h');
  k.cmp('parameters.adjustedSize', P.adjustedSize, R.adjustedSize, 'Σ n_h');
}

/** Throws design_inconsistent naming the first size that does not follow from the design's parameters. */
export function assertDesignConsistent(d: SelectionDesign, source = 'design'): void {
  const bad = designDiscrepancies(d.parameters, d.stratification);
  if (bad.length === 0) return;
  const b = bad[0]!;
  throw selectionError(
    'design_inconsistent',
    `${source}.${b.field}`,
    b.stated,
    `the value the sampling chain gives for the design's own parameters${b.recomputed !== undefined ? ` (${JSON.stringify(b.recomputed)})` : ''}`,
    {
      message: `${source}: ${b.message}${bad.length > 1 ? ` (and ${bad.length - 1} more)` : ''}; valid: a design whose sizes follow from its parameters — recompute it with \`oraclekit sample calc\``,
      details: { discrepancies: bad.map(({ field, stated, recomputed }) => ({ field, stated, recomputed })) },
    },
  );
}

interface PopulationMismatch {
  /** The strata whose frame has more households than the design's N_h. */
  strata: {
    name: string;
    designPopulation: number;
    frameHouseholds: number;
    /** The planned completed interviews (calculatedSize_h) and the relative precision they give at the frame's size. */
    plannedCompleted: number;
    precision: number;
  }[];
  /**
   * n_h of the design recomputed for the frame (its counts as the strata's populations); null if that design does not
   * fit.
   */
  needed: { name: string; sampleSize: number }[] | null;
  /** The `sample calc` command that recomputes the design for the frame. */
  command: string;
}

/**
 * A frame with more households than the design's population (in a stratum) makes the design's
 * finite-population correction too generous: the committed n_h were computed for fewer households,
 * and at the frame's size they give a wider interval than ±5 %. Returns what that means — the precision
 * r = z·CV/√n·√(1 − n/N) the planned completed interviews really give at the frame's N_h, and the sizes
 * the design needs for this frame — or undefined when no stratum's frame is larger than its design.
 */
export function populationMismatch(d: SelectionDesign, frameHouseholds: number[]): PopulationMismatch | undefined {
  const rows = d.stratified
    ? d.stratification.strata.map((s) => ({
        name: s.name,
        N: s.population,
        n: s.calculatedSize,
        mean: s.mean,
        sd: s.sd,
      }))
    : [
        {
          name: d.strata[0]!.name,
          N: d.parameters.population,
          n: d.parameters.calculatedSize,
          mean: d.parameters.expectedMean,
          sd: d.parameters.expectedSD,
        },
      ];
  const strata = rows
    .map((r, i) => ({ r, have: frameHouseholds[i] ?? 0 }))
    .filter(({ r, have }) => have > r.N)
    .map(({ r, have }) => ({
      name: r.name,
      designPopulation: r.N,
      frameHouseholds: have,
      plannedCompleted: r.n,
      precision: achievedPrecision(r.n, have, r.mean, r.sd),
    }));
  if (strata.length === 0) return undefined;
  const total = frameHouseholds.reduce((a, b) => a + b, 0);
  const input = designInputOf(d.parameters, d.stratification);
  input.population = total;
  const st = (input.stratification as { strata: Record<string, unknown>[] } | undefined)?.strata;
  st?.forEach((s, i) => (s.weight = frameHouseholds[i]! / total));
  let needed: PopulationMismatch['needed'];
  try {
    const again = computeDesign(input);
    needed = again.stratification.strata.length
      ? again.stratification.strata.map((s) => ({ name: s.name, sampleSize: s.sampleSize }))
      : [{ name: d.strata[0]!.name, sampleSize: again.parameters.adjustedSize }];
  } catch {
    needed = null;
  }
  const value =
    input.expectedProportion !== undefined
      ? [`--proportion ${input.expectedProportion}`]
      : [`--mean ${input.expectedMean}`, `--sd ${input.expectedSD}`];
  const words = ['oraclekit sample calc', `-N ${total}`, ...value, `--dropout ${input.dropoutRate}`];
  if (input.erCoverage !== undefined) words.push(`--er-coverage ${input.erCoverage}`);
  for (const s of st ?? [])
    words.push(`--stratum '${String(s.name)}=${s.weight}${s.mean !== undefined ? `:${s.mean}:${s.sd}` : ''}'`);
  words.push('--json > design.json');
  return { strata, needed, command: words.join(' ') };
}

/** The mismatch in one sentence: each stratum's sizes and the precision the committed sizes give. */
export function populationMismatchText(m: PopulationMismatch): string {
  const each = m.strata
    .map(
      (s) =>
        `${s.name}: the frame has ${s.frameHouseholds} households, the design assumed ${s.designPopulation}, so the planned ${s.plannedCompleted} completed interviews give ±${(s.precision * 100).toFixed(1)} %, not ±5 %`,
    )
    .join('; ');
  const need = m.needed
    ? `; for this frame the design needs n_h = ${m.needed.map((x) => `${x.name} ${x.sampleSize}`).join(', ')}`
    : '';
  return `the design is for a smaller population than the frame (its finite-population correction is too generous) — ${each}${need}`;
}
