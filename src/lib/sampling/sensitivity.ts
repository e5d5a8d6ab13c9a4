/**
 * A grid of adjustedSize over CVs and dropout rates around the inputs, at
 * 95/5; with 90/10 and 95/10 columns (the CDM's small- and large-scale
 * reliability levels) for information only — never valid designs here.
 * For a stratified design every stratum's CV is scaled by the same factor and
 * the total is reported.
 */
import { chain, Z_95, PRECISION, type Design } from './design.ts';

/** Exact standard-normal quantile for 0.90 two-sided (0.95 one-sided). */
export const Z_90 = 1.6448536269514722;

interface SensitivityCell {
  dropoutRate: number;
  adjustedSize: number | null; // null: exceeds the population
}

interface SensitivityRow {
  cvFactor: number;
  cv: number; // overall CV × factor
  cells: SensitivityCell[];
  info90_10: number | null;
  info95_10: number | null;
}

export interface Sensitivity {
  dropoutRates: number[];
  rows: SensitivityRow[];
  note: string;
  /** true when rows scale every stratum's CV by cvFactor (stratified designs). */
  scaled: boolean;
}

const CV_FACTORS = [0.6, 0.8, 0.9, 1, 1.1, 1.2, 1.5];

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

export function dropoutGrid(d: number): number[] {
  const set = new Set<number>([0, d]);
  for (const step of [-0.1, -0.05, 0.05, 0.1, 0.2]) {
    const v = round(d + step, 4);
    if (v >= 0 && v < 0.9) set.add(v);
  }
  return [...set].sort((a, b) => a - b);
}

function total(design: Design, factor: number, d: number, z: number, e: number): number | null {
  const p = design.parameters;
  const groups = design.stratification.strata.length
    ? design.stratification.strata.map((s) => ({ N: s.population, mean: s.mean, sd: s.sd }))
    : [{ N: p.population, mean: p.expectedMean, sd: p.expectedSD }];
  let sum = 0;
  for (const g of groups) {
    const c = chain(g.N, g.mean, g.sd * factor, d, z, e);
    if (c.adjustedSize > g.N) return null;
    sum += c.adjustedSize;
  }
  return sum;
}

export function sensitivity(design: Design): Sensitivity {
  const p = design.parameters;
  const dropoutRates = dropoutGrid(p.dropoutRate);
  const cv = p.expectedSD / p.expectedMean;
  return {
    dropoutRates,
    rows: CV_FACTORS.map((f) => ({
      cvFactor: f,
      cv: round(cv * f, 6),
      cells: dropoutRates.map((d) => ({ dropoutRate: d, adjustedSize: total(design, f, d, Z_95, PRECISION) })),
      info90_10: total(design, f, p.dropoutRate, Z_90, 0.1),
      info95_10: total(design, f, p.dropoutRate, Z_95, 0.1),
    })),
    scaled: design.stratification.strata.length > 0,
    note: '95/5 is the only valid design; the 90/10 and 95/10 columns (at the input dropout) are for information only.',
  };
}
