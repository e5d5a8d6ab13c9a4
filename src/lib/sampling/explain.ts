/**
 * The chain of a design, step by step, with the numbers substituted, the
 * source of each formula and the rounding: what an auditor needs to follow
 * the result by hand (`sample calc --explain`).
 */
import * as Q from './rational.ts';
import { PRECISION, type Design, type StratumResult } from './design.ts';
import { apportion } from './allocation.ts';

interface ExplainStep {
  step: string;
  formula: string;
  substituted: string;
  result: string;
  source: string;
  rounding?: string;
}

export interface Explanation {
  scope: string; // 'design' or 'stratum <name>'
  steps: ExplainStep[];
}

const SRC = {
  z: 'exact standard-normal quantile Φ⁻¹(0.975), not the table value 1.96 (95 % confidence, two-sided)',
  n0: 'CDM "Guidelines for sampling and surveys" (EB 69 Annex 5), SRS of a mean; Levy & Lemeshow eq. 3.15',
  fpc: 'CDM finite-population correction (EB 69 Annex 5; Levy & Lemeshow eq. 3.15); not the textbook n0/(1+n0/N)',
  ceil: 'round once, up; never above N; = N is a census',
  drop: 'inflate for dropout, on exact rationals of the decimal inputs',
  er: 'the input when given, else 1 − dropout rate (exact decimal)',
  strata: 'largest-remainder (Hamilton) apportionment; ties to the larger weight, then input order',
};

function fr(r: Q.Rational): string {
  return r.den === 1n ? `${r.num}` : `(${r.num}/${r.den})`;
}

function chainSteps(
  N: number,
  mean: number,
  sd: number,
  d: number,
  out: {
    n0: number;
    n_fpc: number;
    calculatedSize: number;
    adjustedSize: number;
    census: boolean;
    cv: number;
    z: number;
  },
): ExplainStep[] {
  const oneMinus = Q.sub(Q.int(1), Q.fromNumber(d));
  const ratio = Q.div(Q.int(out.calculatedSize), oneMinus);
  return [
    {
      step: 'CV',
      formula: 'CV = SD / mean',
      substituted: `${sd} / ${mean}`,
      result: `${out.cv}`,
      source: SRC.n0,
      rounding: 'none (kept unrounded)',
    },
    {
      step: 'n0',
      formula: 'n0 = (z × CV / e)²',
      substituted: `(${out.z} × ${out.cv} / ${PRECISION})²`,
      result: `${out.n0}`,
      source: SRC.n0,
      rounding: 'none (kept unrounded)',
    },
    {
      step: 'n_fpc',
      formula: 'n_fpc = N × n0 / (N − 1 + n0)',
      substituted:
        out.n0 === Infinity
          ? `n0 is beyond the largest double (about 1.8e308); the limit of N × n0 / (N − 1 + n0) as n0 → ∞ is N = ${N}, and ceil(n_fpc) = N exactly once n0 > (N − 1)²`
          : `${N} × ${out.n0} / (${N - 1} + ${out.n0})`,
      result: `${out.n_fpc}`,
      source: SRC.fpc,
      rounding: 'none (kept unrounded)',
    },
    {
      step: 'calculatedSize',
      formula: 'calculatedSize = min(ceil(n_fpc), N)',
      substituted:
        out.n_fpc === 0
          ? `n0 is below the smallest double, but n0 > 0 and so n_fpc > 0: ceil(n_fpc) = 1`
          : `min(ceil(${out.n_fpc}), ${N})`,
      result: `${out.calculatedSize}${out.census ? ' — census (= N)' : ''}`,
      source: SRC.ceil,
      rounding: 'ceil, once',
    },
    {
      step: 'adjustedSize',
      formula: 'adjustedSize = ceil(calculatedSize / (1 − d))',
      substituted: `ceil(${out.calculatedSize} / (1 − ${d})) = ceil(${out.calculatedSize} / ${fr(oneMinus)}) = ceil(${fr(ratio)})`,
      result: `${out.adjustedSize}`,
      source: SRC.drop,
      rounding: 'ceil, once, exact (no binary floating point)',
    },
  ];
}

export function explainDesign(design: Design): Explanation[] {
  const p = design.parameters;
  const head: ExplainStep[] = [
    {
      step: 'z',
      formula: 'z = Φ⁻¹(1 − α/2), α = 0.05',
      substituted: 'Φ⁻¹(0.975)',
      result: `${design.intermediates.z}`,
      source: SRC.z,
    },
    {
      step: 'e',
      formula: 'e = relative precision',
      substituted: '±5 % of the mean',
      result: `${PRECISION}`,
      source: 'product policy: 95/5 mandatory (stricter than CDM 90/10, 95/10)',
    },
  ];
  const er: ExplainStep =
    p.erCoverageSource === 'input'
      ? {
          step: 'erCoverage',
          formula: 'erCoverage = the input',
          substituted: `${p.erCoverage}`,
          result: `${p.erCoverage}`,
          source: SRC.er,
        }
      : {
          step: 'erCoverage',
          formula: 'erCoverage = 1 − d (no erCoverage given)',
          substituted: `1 − ${p.dropoutRate}`,
          result: `${p.erCoverage}`,
          source: SRC.er,
          rounding: 'exact decimal',
        };
  const strata = design.stratification.strata;
  if (strata.length === 0) {
    const i = design.intermediates as { z: number; cv: number; n0: number; n_fpc: number };
    const steps = chainSteps(p.population, p.expectedMean, p.expectedSD, p.dropoutRate, {
      ...i,
      calculatedSize: p.calculatedSize,
      adjustedSize: p.adjustedSize,
      census: design.flags.includes('census'),
    });
    return [{ scope: 'design', steps: [...head, ...steps, er] }];
  }
  const weights = strata.map((s) => s.weight);
  const total = weights.map(Q.fromNumber).reduce((a, b) => Q.add(a, b), Q.int(0));
  const pops = apportion(p.population, weights);
  const quotas = weights.map((w) => Q.div(Q.mul(Q.int(p.population), Q.fromNumber(w)), total));
  const apport: ExplainStep = {
    step: 'N_h',
    formula: 'N_h = floor(N × w_h / Σw), then one more to the largest remainders',
    substituted: strata
      .map((s, k) => `${s.name}: ${p.population} × ${s.weight} / ${Q.toNumber(total)} = ${Q.toNumber(quotas[k]!)}`)
      .join('; '),
    result: strata.map((s, k) => `${s.name} ${pops[k]}`).join(', ') + ` (sum ${p.population})`,
    source: SRC.strata,
    rounding: 'floor, then largest remainder (exact rationals)',
  };
  const totals: ExplainStep = {
    step: 'totals',
    formula: 'calculatedSize = Σ calculatedSize_h; adjustedSize = Σ sampleSize_h',
    substituted: `${strata.map((s) => s.calculatedSize).join(' + ')}; ${strata.map((s) => s.sampleSize).join(' + ')}`,
    result: `${p.calculatedSize}; ${p.adjustedSize}`,
    source: 'proportional stratification: every stratum keeps 95/5 on its own; totals are the sums',
  };
  const per = strata.map((s: StratumResult) => ({
    scope: `stratum ${s.name} (N_h = ${s.population}, mean ${s.mean}, SD ${s.sd}${s.dropoutRate !== undefined ? `, its own dropout ${s.dropoutRate}` : ''})`,
    steps: chainSteps(s.population, s.mean, s.sd, s.dropoutRate ?? p.dropoutRate, {
      ...s,
      z: design.intermediates.z,
      adjustedSize: s.sampleSize,
    }),
  }));
  return [{ scope: 'design', steps: [...head, apport] }, ...per, { scope: 'design totals', steps: [totals, er] }];
}
