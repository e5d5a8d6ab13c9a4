/**
 * The labelled comparison of sampling.md: one overall size (the unstratified
 * chain's calculatedSize, completed observations) allocated across strata by
 * weight (Cochran 5.5, proportional) and by Neyman (Cochran 5.9,
 * n_h ∝ N_h·S_h), each with the relative precision it would achieve per
 * stratum: r_h = z·(sd_h/mean_h)/sqrt(n_h)·sqrt(1 − n_h/N_h).
 * Never the answer: the compliant design keeps 95/5 in every stratum.
 */
import { chain, Z_95, PRECISION, type Design } from './design.ts';

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
}

export function relativePrecision(n: number, N: number, mean: number, sd: number, z = Z_95): number {
  if (n <= 0) return Infinity;
  if (n >= N) return 0; // a census has no sampling error, whatever the CV (also when the CV is beyond the doubles: ∞·0)
  return ((z * (sd / mean)) / Math.sqrt(n)) * Math.sqrt(Math.max(0, 1 - n / N));
}

/**
 * Largest-remainder allocation of n by real-valued shares, capped at each
 * stratum's population: a stratum whose quota exceeds its cap is fixed at the
 * cap and the rest is re-allocated among the others. Requires n <= sum(caps).
 */
export function allocate(n: number, shares: number[], caps: number[]): number[] {
  const out = new Array<number>(shares.length).fill(0);
  const fixed = new Set<number>();
  for (;;) {
    const free = shares.map((_, i) => i).filter((i) => !fixed.has(i) && shares[i]! > 0);
    const remaining = n - [...fixed].reduce((a, i) => a + out[i]!, 0);
    const totalShare = free.reduce((a, i) => a + shares[i]!, 0);
    if (free.length === 0 || totalShare === 0) return out;
    const quotas = free.map((i) => ({ i, q: (remaining * shares[i]!) / totalShare }));
    const over = quotas.filter(({ i, q }) => q > caps[i]!);
    if (over.length > 0) {
      for (const { i } of over) {
        out[i] = caps[i]!;
        fixed.add(i);
      }
      continue;
    }
    let left = remaining;
    for (const { i, q } of quotas) {
      out[i] = Math.floor(q);
      left -= out[i]!;
    }
    const order = [...quotas].sort((x, y) => y.q - Math.floor(y.q) - (x.q - Math.floor(x.q)) || x.i - y.i);
    for (const { i } of order) {
      if (left <= 0) break;
      if (out[i]! < caps[i]!) {
        out[i]! += 1;
        left -= 1;
      }
    }
    return out;
  }
}

/**
 * Neyman shares N_h·S_h; when a product or their sum leaves the doubles (an SD
 * near 1e308), the same ratios with every SD divided by the largest one.
 */
function neymanShares(strata: { population: number; sd: number }[]): number[] {
  const shares = strata.map((s) => s.population * s.sd);
  if (Number.isFinite(shares.reduce((a, b) => a + b, 0))) return shares;
  const top = Math.max(...strata.map((s) => s.sd));
  return strata.map((s) => s.population * (s.sd / top));
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
  };
}
