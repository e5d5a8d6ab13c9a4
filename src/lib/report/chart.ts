/**
 * The package's chart as data: the 95/5 size against CV for the design's population (or each stratum's), the
 * design's points on their lines and the CVs the observations show; svg.ts draws it.
 */
import { chain, type Design } from '../sampling/design.ts';
import type { StratumRow } from './observations.ts';

interface ChartSeries {
  label: string;
  population: number;
  dropoutRate: number;
  points: { cv: number; n: number }[];
}

interface ChartMark {
  label: string;
  /** The exact CV (the axis may not reach it: see clamped). */
  cv: number;
  n: number;
  /** Index of the series the point lies on. */
  series: number;
  /** The CV is below the axis range: drawn at the axis with its value. */
  clamped: boolean;
  /** designed: the design's CV and n_h; observed: the CV the observations show and the size it implies. */
  kind: 'designed' | 'observed';
}

export interface ChartData {
  cvRange: [number, number];
  series: ChartSeries[];
  marks: ChartMark[];
  caption: string;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/**
 * The chart: for one population, the 95/5 size against CV for N and several
 * dropout rates with the design's point; for a stratified design, one curve
 * per stratum at its own N_h and the design's dropout, each stratum's point
 * on its own curve (its exact CV is a point of the curve). A CV below the
 * axis range is drawn at the axis, marked, with its value.
 */
export function chartData(
  parameters: Design['parameters'],
  strata: StratumRow[],
  stratified: boolean,
  observed: { stratum: string; cv: number; kind: string }[] = [],
): ChartData {
  const designCv = parameters.expectedSD / parameters.expectedMean;
  const cvs = [...(stratified ? strata.map((s) => s.cv ?? designCv) : [designCv]), ...observed.map((o) => o.cv)];
  const lo = 0.1;
  const hi = Math.max(1.2, Math.ceil(Math.max(...cvs) * 1.25 * 10) / 10);
  const steps = 56;
  const grid = (extra: number[]): number[] => {
    const xs = new Set<number>();
    for (let i = 0; i <= steps; i++) xs.add(r4(lo + ((hi - lo) * i) / steps));
    for (const e of extra) if (e >= lo && e <= hi) xs.add(e);
    return [...xs].sort((a, b) => a - b);
  };
  const curve = (N: number, d: number, extra: number[]) =>
    grid(extra).map((cv) => ({ cv, n: chain(N, 1, cv, d).adjustedSize }));
  if (!stratified) {
    const rates = [...new Set([0, 0.1, 0.2, 0.3, parameters.dropoutRate])].sort((a, b) => a - b);
    const own = observed.map((o) => o.cv);
    const series = rates.map((d) => ({
      label: `dropout ${Number((d * 100).toPrecision(10))} %`,
      population: parameters.population,
      dropoutRate: d,
      points: curve(parameters.population, d, d === parameters.dropoutRate ? [designCv, ...own] : []),
    }));
    const at = rates.indexOf(parameters.dropoutRate);
    return {
      cvRange: [lo, hi],
      series,
      marks: [
        {
          label: 'this design',
          cv: designCv,
          n: parameters.adjustedSize,
          series: at,
          clamped: designCv < lo,
          kind: 'designed',
        },
        ...observed.map((o) => observedMark(o, parameters.population, parameters.dropoutRate, at, lo)),
      ],
      caption: `Lines: the 95/5 sample size (dropout-adjusted) for N = ${parameters.population} against CV = SD/mean, one per dropout rate. Point: this design (CV ${r4(designCv)}, dropout ${parameters.dropoutRate}, n ${parameters.adjustedSize}).${observedCaption(observed)}`,
    };
  }
  const d = parameters.dropoutRate;
  const series = strata.map((s) => ({
    label: `${s.name} (N_h ${s.population})`,
    population: s.population,
    dropoutRate: d,
    points: curve(s.population, d, [
      s.cv ?? designCv,
      ...observed.filter((o) => o.stratum === s.name).map((o) => o.cv),
    ]),
  }));
  const marks: ChartMark[] = strata.map((s, i) => ({
    label: s.name,
    cv: s.cv ?? designCv,
    n: s.sampleSize,
    series: i,
    clamped: (s.cv ?? designCv) < lo,
    kind: 'designed',
  }));
  for (const o of observed) {
    const i = strata.findIndex((s) => s.name === o.stratum);
    if (i >= 0) marks.push(observedMark(o, strata[i]!.population, d, i, lo));
  }
  return {
    cvRange: [lo, hi],
    series,
    marks,
    caption: `Lines: each stratum's 95/5 sample size against CV at its own N_h and the design's dropout rate ${d}. Points: each stratum's n_h at its CV — on its own line, since each stratum keeps 95/5 on its own.${observedCaption(observed)}`,
  };
}

/** An observed CV on its stratum's line: the size the chain gives at that CV (the line's own value there). */
function observedMark(
  o: { stratum: string; cv: number; kind: string },
  N: number,
  d: number,
  series: number,
  lo: number,
): ChartMark {
  const label = `${o.stratum === 'all' ? '' : `${o.stratum} `}observed`;
  return { label, cv: o.cv, n: chain(N, 1, o.cv, d).adjustedSize, series, clamped: o.cv < lo, kind: 'observed' };
}

function observedCaption(observed: { stratum: string; cv: number; kind: string }[]): string {
  if (observed.length === 0) return '';
  const list = observed.map((o) => `${o.stratum} ${r4(o.cv)}`).join(', ');
  return ` Hollow points: the CV the ${observed[0]!.kind} observations show (${list}) and the size the line gives there, next to the designed ones.`;
}
