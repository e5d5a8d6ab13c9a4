/**
 * The benches' one quantile: nearest rank (the smallest value with at least a share `p` of the values at or below it),
 * so that the p95 of 20 answers is the 19th, not the slowest.
 */
export function quantile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length))) - 1]!;
}
