import { describe, expect, it } from 'vitest';
import { computeDesign, chain, Z_95 } from '../../../../src/lib/sampling/design.ts';
import { compareAllocations, relativePrecision } from '../../../../src/lib/sampling/compare.ts';
import { allocate } from '../../../../src/lib/sampling/allocation.ts';
import { sensitivity, Z_90, dropoutGrid } from '../../../../src/lib/sampling/sensitivity.ts';
import { explainDesign } from '../../../../src/lib/sampling/explain.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const s02 = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));

describe('comparison of allocations', () => {
  const c = compareAllocations(s02);
  it('is labelled as a comparison, never the answer', () => {
    expect(c.label).toMatch(/not a valid design/);
  });
  it('allocates one overall size (the unstratified calculatedSize)', () => {
    expect(c.overallSize).toBe(chain(15000, 2, 1, 0.08).calculatedSize);
    expect(c.proportional.reduce((a, r) => a + r.n, 0)).toBe(c.overallSize);
    expect(c.neyman.reduce((a, r) => a + r.n, 0)).toBe(c.overallSize);
  });
  it('proportional follows N_h and Neyman follows N_h·S_h', () => {
    expect(c.proportional.map((r) => r.n)).toEqual([188, 112, 75]);
    const shares = [7500 * 0.9, 4500 * 1.2, 3000 * 1.1];
    const tot = shares.reduce((a, b) => a + b);
    c.neyman.forEach((r, i) => expect(Math.abs(r.n - (c.overallSize * shares[i]!) / tot)).toBeLessThan(1));
  });
  it('reports r_h = z·(sd/mean)/√n·√(1 − n/N); the compliant design meets 5 % everywhere', () => {
    for (const r of c.compliant) expect(r.meets).toBe(true);
    const lpg = c.proportional[0]!;
    expect(lpg.precision).toBe(relativePrecision(lpg.n, 7500, 2.6, 0.9));
    expect(lpg.precision).toBeCloseTo(((Z_95 * (0.9 / 2.6)) / Math.sqrt(188)) * Math.sqrt(1 - 188 / 7500), 15);
    expect(c.proportional.some((r) => !r.meets)).toBe(true);
  });
  it('caps an allocation at the stratum population and re-allocates', () => {
    expect(allocate(10, [1, 1], [2, 100])).toEqual([2, 8]);
    expect(allocate(7, [3, 3, 1], [100, 100, 100])).toEqual([3, 3, 1]);
  });
});

describe('sensitivity', () => {
  const single = computeDesign({ population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 });
  const s = sensitivity(single);
  it('contains the design itself at factor 1 and the input dropout', () => {
    const row = s.rows.find((r) => r.cvFactor === 1)!;
    expect(row.cells.find((c) => c.dropoutRate === 0.1)!.adjustedSize).toBe(486);
  });
  it('grows with CV and dropout', () => {
    for (let i = 1; i < s.rows.length; i++)
      expect(s.rows[i]!.cells[0]!.adjustedSize!).toBeGreaterThanOrEqual(s.rows[i - 1]!.cells[0]!.adjustedSize!);
    const row = s.rows[3]!.cells.map((c) => c.adjustedSize!);
    expect([...row].sort((a, b) => a - b)).toEqual(row);
  });
  it('computes the information columns at 90/10 and 95/10', () => {
    const row = s.rows.find((r) => r.cvFactor === 1)!;
    expect(row.info90_10).toBe(chain(8000, 3.1, 1.7, 0.1, Z_90, 0.1).adjustedSize);
    expect(row.info95_10).toBe(chain(8000, 3.1, 1.7, 0.1, Z_95, 0.1).adjustedSize);
    expect(s.note).toMatch(/information only/);
  });
  it('marks sizes over the population as null', () => {
    const small = sensitivity(computeDesign({ population: 60, expectedMean: 1, expectedSD: 0.3, dropoutRate: 0.1 }));
    expect(small.rows.at(-1)!.cells.at(-1)!.adjustedSize).toBeNull();
  });
  it('builds a dropout grid around the input', () => {
    expect(dropoutGrid(0.1)).toEqual([0, 0.05, 0.1, 0.15, 0.2, 0.3]);
  });
});

describe('explain', () => {
  it('shows every step with the numbers substituted, ending in the reported sizes', () => {
    const d = computeDesign({ population: 200000, expectedMean: 1, expectedSD: 0.453, dropoutRate: 0.3 });
    const [ex] = explainDesign(d);
    const by = Object.fromEntries(ex!.steps.map((s) => [s.step, s]));
    expect(by.n0!.result).toBe('315.32076925432824');
    expect(by.n_fpc!.substituted).toContain('200000 × 315.32076925432824 / (199999 + 315.32076925432824)');
    expect(by.adjustedSize!.substituted).toBe('ceil(315 / (1 − 0.3)) = ceil(315 / (7/10)) = ceil(450)');
    expect(by.adjustedSize!.result).toBe('450');
    for (const s of ex!.steps) expect(s.source.length).toBeGreaterThan(5);
  });
  it('explains the apportionment and each stratum of a stratified design', () => {
    const ex = explainDesign(s02);
    expect(ex.map((e) => e.scope)).toEqual([
      'design',
      expect.stringContaining('stratum lpg'),
      expect.stringContaining('stratum biomass'),
      expect.stringContaining('stratum electric'),
      'design totals',
    ]);
    expect(ex[0]!.steps.find((s) => s.step === 'N_h')!.result).toBe(
      'lpg 7500, biomass 4500, electric 3000 (sum 15000)',
    );
    expect(ex.at(-1)!.steps[0]!.result).toBe('1495; 1626');
  });
});

describe('--compare warns when the typed overall values contradict the strata', () => {
  it('an overall mean and SD far from what the strata imply are named; consistent ones are not', async () => {
    const { computeDesign } = await import('../../../../src/lib/sampling/design.ts');
    const strata = [
      { name: 'lpg', weight: 0.5, mean: 2.6, sd: 0.9 },
      { name: 'biomass', weight: 0.3, mean: 1.8, sd: 1.2 },
      { name: 'electric', weight: 0.2, mean: 1.4, sd: 1.1 },
    ];
    const off = compareAllocations(
      computeDesign({
        population: 15000,
        expectedMean: 5,
        expectedSD: 1,
        dropoutRate: 0.08,
        stratification: { enabled: true, strata },
      }),
    );
    expect(off.warnings[0]).toMatch(/^the overall mean 5 contradicts the strata, which imply 2\.12 /);
    expect(off.warnings[1]).toMatch(/^the overall SD 1 contradicts the strata, which imply 1\.\d+/);
    const ok = compareAllocations(
      computeDesign({
        population: 15000,
        expectedMean: 2.12,
        expectedSD: 1.1,
        dropoutRate: 0.08,
        stratification: { enabled: true, strata },
      }),
    );
    expect(ok.warnings.filter((w) => w.includes('mean'))).toEqual([]);
  });
});
