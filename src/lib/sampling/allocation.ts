/**
 * How a total is split across strata, the one home of stratified allocation: the design's strata populations from
 * their weights (exact largest-remainder apportionment, sampling.md), and one overall sample size allocated
 * proportionally (shares N_h) or by Neyman (shares N_h·S_h, Cochran 5.9), capped at each stratum's population, for
 * the labelled comparison of `sample calc --compare` (compare.ts).
 */
import * as Q from './rational.ts';

/**
 * Largest-remainder (Hamilton) apportionment of N by weights: floor every
 * quota N*w_h/sum(w) (exact), then hand the units left to the largest
 * fractional parts; ties go to the larger weight, then to input order.
 */
export function apportion(N: number, weights: number[]): number[] {
  const ws = weights.map(Q.fromNumber);
  const total = ws.reduce((a, b) => Q.add(a, b), Q.int(0));
  const quotas = ws.map((w) => Q.div(Q.mul(Q.int(N), w), total));
  const floors = quotas.map((q) => Q.floor(q));
  let left = BigInt(N) - floors.reduce((a, b) => a + b, 0n);
  const order = quotas
    .map((q, i) => ({ i, frac: Q.sub(q, Q.int(floors[i]!)), w: ws[i]! }))
    .sort((a, b) => Q.cmp(b.frac, a.frac) || Q.cmp(b.w, a.w) || a.i - b.i);
  const out = floors.map(Number);
  for (const o of order) {
    if (left <= 0n) break;
    out[o.i]! += 1;
    left -= 1n;
  }
  return out;
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
export function neymanShares(strata: { population: number; sd: number }[]): number[] {
  const shares = strata.map((s) => s.population * s.sd);
  if (Number.isFinite(shares.reduce((a, b) => a + b, 0))) return shares;
  const top = Math.max(...strata.map((s) => s.sd));
  return strata.map((s) => s.population * (s.sd / top));
}
