/**
 * The total row of recalc's next-period design: with each stratum's own realised dropout, its dropout and erCoverage
 * are the ones the strata imply together, so they agree with its own totals (calculatedSize, adjustedSize).
 */
import { describe, expect, it } from 'vitest';
import { computeDesign } from '../../../src/lib/sampling/design.ts';
import { recalculate, type Observation } from '../../../src/lib/sampling/recalc.ts';
import { renderRecalc } from '../../../src/cli/sample/render.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../../helpers/sampling-designs.ts';

describe("the new design's total row", () => {
  it('has the dropout and erCoverage its own total implies when the strata have their own realised dropout', () => {
    const previous = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    // one row per sampled household; lpg marks 1 in 20 not completed, biomass 1 in 3, electric 1 in 10
    const every = { lpg: 20, biomass: 3, electric: 10 } as Record<string, number>;
    const observations: Observation[] = [];
    let line = 1;
    for (const s of previous.stratification.strata)
      for (let i = 0; i < s.sampleSize; i++)
        observations.push({
          line: ++line,
          household: `${s.name}-${i}`,
          stratum: s.name,
          value: i % every[s.name]! === 0 ? null : Number((s.mean * (0.5 + ((i * 37) % 101) / 100)).toFixed(3)),
        });
    const res = recalculate({ previous, observations });
    const p = res.design.parameters;
    expect(res.design.stratification.strata.every((s) => s.dropoutRate !== undefined)).toBe(true);
    const csv = renderRecalc(res, 'csv').trim().split('\n');
    const head = csv[0]!.split(',');
    const total = csv.find((l) => l.startsWith('total,'))!.split(',');
    const d = Number(total[head.indexOf('dropoutRate')]);
    const er = Number(total[head.indexOf('erCoverage')]);
    // the overall realised rate differs from what the strata's own rates give the total
    expect(d).not.toBe(p.dropoutRate);
    expect(Math.abs(p.adjustedSize * (1 - d) - p.calculatedSize)).toBeLessThan(0.01);
    expect(er).toBeCloseTo(1 - d, 9);
    const table = renderRecalc(res, 'table');
    const rows = table.split('\n').filter((l) => /\btotal\b/.test(l) && l.includes(String(p.adjustedSize)));
    expect(rows.some((l) => l.includes(String(d)))).toBe(true);
  });
});
