/**
 * A design's sizes must follow from its own parameters
 * (the engine of `sample calc`); commit refuses, verify and report flag.
 */
import { describe, expect, it } from 'vitest';
import { adjustForDropout, computeDesign } from '../../../../src/lib/sampling/design.ts';
import { assertDesignConsistent, designDiscrepancies, loadDesign } from '../../../../src/lib/selection/design.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const strat = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA));
const flat = computeDesign({ population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 });

describe('designDiscrepancies', () => {
  it('none for `sample calc` output, a registry record of it, or the JSON round trip', () => {
    expect(designDiscrepancies(strat.parameters, strat.stratification)).toEqual([]);
    expect(designDiscrepancies(flat.parameters, flat.stratification)).toEqual([]);
    const rec = JSON.parse(JSON.stringify({ designId: 'dsg_1', version: 3, ...strat }));
    expect(designDiscrepancies(rec.parameters, rec.stratification)).toEqual([]);
  });

  it('n_h divided by 3 is named with the value the chain gives', () => {
    const d = structuredClone(strat);
    d.stratification.strata[1]!.sampleSize = Math.floor(d.stratification.strata[1]!.sampleSize / 3);
    d.parameters.adjustedSize = d.stratification.strata.reduce((a, s) => a + s.sampleSize, 0);
    const bad = designDiscrepancies(d.parameters, d.stratification);
    expect(bad.map((b) => b.field)).toEqual(['stratification.strata[1].sampleSize', 'parameters.adjustedSize']);
    expect(bad[0]!.recomputed).toBe(strat.stratification.strata[1]!.sampleSize);
    expect(bad[0]!.message).toMatch(
      /does not follow from the design's own parameters: the sampling chain gives \d+ \(N 4500, mean 1\.8, SD 1\.2, dropout 0\.1: ceil\(\d+ \/ \(1 − 0\.1\)\)\)/,
    );
  });

  it('"calculated 1221, adjusted 451 at 10 % dropout" is impossible and flagged', () => {
    const d = structuredClone(flat);
    d.parameters.calculatedSize = 1221;
    d.parameters.adjustedSize = 451;
    expect(designDiscrepancies(d.parameters, d.stratification).map((b) => [b.field, b.stated, b.recomputed])).toEqual([
      ['parameters.calculatedSize', 1221, flat.parameters.calculatedSize],
      ['parameters.adjustedSize', 451, flat.parameters.adjustedSize],
    ]);
  });

  it('an edited population, CV or erCoverage; a design that cannot be recomputed', () => {
    const d = structuredClone(flat);
    d.parameters.erCoverage = 0.95;
    expect(designDiscrepancies(d.parameters, d.stratification)[0]!.field).toBe('parameters.erCoverage');
    const e = structuredClone(strat);
    e.stratification.strata[0]!.population += 10;
    expect(designDiscrepancies(e.parameters, e.stratification)[0]!.field).toBe('stratification.strata[0].population');
    const partial = designDiscrepancies({ population: 30, adjustedSize: 6 }, { method: 'none', strata: [] });
    expect(partial).toHaveLength(1);
    expect(partial[0]!.message).toMatch(/cannot be recomputed from its own parameters: .*expectedMean/);
  });

  it('assertDesignConsistent throws design_inconsistent (409) naming the field, value and the recomputed value', () => {
    const d = structuredClone(strat);
    d.stratification.strata[0]!.sampleSize = 100;
    expect(() => assertDesignConsistent(loadDesign(d), 'design.json')).toThrow(
      expect.objectContaining({
        code: 'design_inconsistent',
        status: 409,
        field: 'design.json.stratification.strata[0].sampleSize',
        value: 100,
        message: expect.stringMatching(
          /^design\.json: stratification\.strata\[0\]\.sampleSize = 100 does not follow from the design's own parameters: the sampling chain gives 200 \(N 7500, mean 2\.6, SD 0\.9, dropout 0\.1: ceil\(180 \/ \(1 − 0\.1\)\)\); valid: a design whose sizes follow from its parameters/,
        ),
      }),
    );
    expect(() => assertDesignConsistent(loadDesign(strat))).not.toThrow();
  });
});

describe('a design whose strata have their own dropout rates', () => {
  it('recomputes from its own record without a discrepancy; one whose n_h ignores its rate is named', () => {
    const d = computeDesign(
      stratifiedInput(4000, [
        { name: 'a', weight: 0.5, dropoutRate: 0.25 },
        { name: 'b', weight: 0.5 },
      ]),
    );
    expect(designDiscrepancies(d.parameters, d.stratification)).toEqual([]);
    const forged = structuredClone(d);
    forged.stratification.strata[0]!.sampleSize = adjustForDropout(
      forged.stratification.strata[0]!.calculatedSize,
      0.1,
    );
    expect(designDiscrepancies(forged.parameters, forged.stratification).map((x) => x.field)).toContain(
      'stratification.strata[0].sampleSize',
    );
  });
});
