/**
 * The labelled comparison of sampling.md: one overall size (the unstratified
 * chain's calculatedSize, completed observations) allocated across strata by
 * weight (Cochran 5.5, proportional) and by Neyman (Cochran 5.9,
 * n_h ∝ N_h·S_h), each with the relative precision it would achieve per
 * stratum: r_h = z·(sd_h/mean_h)/sqrt(n_h)·sqrt(1 − n_h/N_h).
 * Never the answer: the compliant design keeps 95/5 in every stratum.
 */
import { chain, Z_95, PRECISION, type Design } from './design.ts';
import { allocate, neymanShares } from './allocation.ts';

export interface AllocationRow {
  name: string;
  population: number;
  n: number;
  precision: number;
  meets: boolean;
}

export interface Comparison {
  label: string;
  overallSize: number;
  compliant: AllocationRow[];
  proportional: AllocationRow[];
  neyman: AllocationRow[];
  /**
   * Where the typed overall mean or SD contradict the strata (by more than 1 %): the overall size is
   * computed from the typed values, the strata from their own, so the comparison would mislead.
   */
  warnings: string[];
}

/** The overall mean Σ W_h x̄_h and SD √([Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄)²]/(N − 1)) the strata imply. */
function impliedOverall(strata: { population: number; mean: number; sd: number }[]): { mean: number; sd: number } {
  const N = strata.reduce((a, s) => a + s.population, 0);
  const mean = strata.reduce((a, s) => a + (s.population / N) * s.mean, 0);
  const ss = strata.reduce((a, s) => a + (s.population - 1) * s.sd ** 2 + s.population * (s.mean - mean) ** 2, 0);
  return { mean, sd: N > 1 ? Math.sqrt(ss / (N - 1)) : 0 };
}

export function relativePrecision(n: number, N: number, mean: number, sd: number, z = Z_95): number {
  if (n <= 0) return Infinity;
  if (n >= N) return 0; // a census has no sampling error, whatever the CV (also when the CV is beyond the doubles: ∞·0)
  return ((z * (sd / mean)) / Math.sqrt(n)) * Math.sqrt(Math.max(0, 1 - n / N));
}

function contradictions(mean: number, sd: number, implied: { mean: number; sd: number }): string[] {
  const off = (a: number, b: number) => Math.abs(a - b) > 0.01 * Math.abs(b);
  const out: string[] = [];
  const r4 = (x: number) => Number(x.toPrecision(4));
  if (off(mean, implied.mean))
    out.push(
      `the overall mean ${mean} contradicts the strata, which imply ${r4(implied.mean)} (Σ W_h x̄_h): the overall size compared here uses ${mean}`,
    );
  if (off(sd, implied.sd))
    out.push(
      `the overall SD ${sd} contradicts the strata, which imply ${r4(implied.sd)} (within and between strata): the overall size compared here uses ${sd}`,
    );
  return out;
}

export function compareAllocations(design: Design): Comparison {
  const strata = design.stratification.strata;
  if (strata.length === 0) throw new Error('compare needs a stratified design');
  const p = design.parameters;
  const overall = chain(p.population, p.expectedMean, p.expectedSD, p.dropoutRate).calculatedSize;
  const caps = strata.map((s) => s.population);
  const row = (s: (typeof strata)[number], n: number): AllocationRow => {
    const r = relativePrecision(n, s.population, s.mean, s.sd);
    return { name: s.name, population: s.population, n, precision: r, meets: r <= PRECISION + 1e-12 };
  };
  const prop = allocate(
    overall,
    strata.map((s) => s.population),
    caps,
  );
  const ney = allocate(overall, neymanShares(strata), caps);
  return {
    label: 'COMPARISON ONLY — not a valid design: only the compliant design keeps 95/5 in every stratum',
    overallSize: overall,
    compliant: strata.map((s) => row(s, s.calculatedSize)),
    proportional: strata.map((s, i) => row(s, prop[i]!)),
    neyman: strata.map((s, i) => row(s, ney[i]!)),
    warnings: contradictions(p.expectedMean, p.expectedSD, impliedOverall(strata)),
  };
}
