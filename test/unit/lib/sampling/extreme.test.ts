/**
 * Extreme numbers. Every finite input in range gives a design
 * or a documented error (never a RangeError), with the exact rule of
 * docs/sampling.md, "Extreme numbers": n0 beyond the largest double has the
 * limit n_fpc = N (a census), an n0 that underflowed still needs one
 * household, and a non-finite input is a 400 naming its field.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { calculatedSizeOf, chain, computeDesign, fpc, type Design } from '../../../../src/lib/sampling/design.ts';
import { compareAllocations, relativePrecision } from '../../../../src/lib/sampling/compare.ts';
import { sensitivity } from '../../../../src/lib/sampling/sensitivity.ts';
import { explainDesign } from '../../../../src/lib/sampling/explain.ts';
import { achievedPrecision, meanSd, recalculate } from '../../../../src/lib/sampling/recalc.ts';
import { OracleKitError } from '../../../../src/lib/errors.ts';

function outcome(input: unknown): Design | OracleKitError {
  try {
    return computeDesign(input);
  } catch (e) {
    if (e instanceof OracleKitError) return e;
    throw e;
  }
}

const base = { population: 1000, expectedMean: 1, expectedSD: 1, dropoutRate: 0.1 };

describe('n0 beyond the largest double: the limit n_fpc = N, exactly', () => {
  it('fpc takes the limit N for an infinite n0, and the other form where N·n0 overflows', () => {
    expect(fpc(1000, Infinity)).toBe(1000);
    expect(fpc(9007199254740991, 1e300)).toBe(9007199254740991); // N·n0 overflows, n0 does not
    expect(fpc(1, 0)).toBe(1); // n0/n0 = 1 for every n0 > 0
    expect(fpc(150, 188.23148221401212)).toBe(83.72504887958131); // the CDM order where it is finite
  });
  it('SD 1e160 (or any CV >= ~3.4e152): a census with no dropout, 422 with one', () => {
    for (const over of [
      { expectedSD: 1e160 },
      { expectedSD: 1e308 },
      { expectedSD: Number.MAX_VALUE },
      { expectedMean: 1e-300 },
      { expectedMean: 5e-324 },
      { expectedMean: 1e-153 },
    ]) {
      const census = computeDesign({ ...base, ...over, dropoutRate: 0 });
      expect(census.parameters, JSON.stringify(over)).toMatchObject({ calculatedSize: 1000, adjustedSize: 1000 });
      expect(census.flags).toEqual(['census']);
      expect((census.intermediates as { n0: number; n_fpc: number }).n0).toBe(Infinity);
      expect((census.intermediates as { n_fpc: number }).n_fpc).toBe(1000);
      const e = outcome({ ...base, ...over });
      expect(e).toBeInstanceOf(OracleKitError);
      const err = e as OracleKitError;
      expect(err.status).toBe(422);
      expect(err.code).toBe('insufficient_population');
      expect(err.details).toMatchObject({ calculatedSize: 1000, adjustedSize: 1112, population: 1000 });
      expect(err.valid).toContain('dropoutRate 0');
    }
  });
  it('a stratum SD or mean likewise: the stratum is a census, and 422 names it after dropout', () => {
    const strata = (b: Record<string, unknown>) => ({
      enabled: true,
      strata: [
        { name: 'a', weight: 0.5 },
        { name: 'b', weight: 0.5, mean: 1, ...b },
      ],
    });
    const d = computeDesign({ ...base, dropoutRate: 0, stratification: strata({ sd: 1e200 }) });
    expect(d.stratification.strata[1]).toMatchObject({
      population: 500,
      n0: Infinity,
      n_fpc: 500,
      calculatedSize: 500,
      sampleSize: 500,
      census: true,
    });
    expect(d.parameters.adjustedSize).toBe(d.stratification.strata[0]!.sampleSize + 500);
    const e = outcome({ ...base, stratification: strata({ mean: 1e-300, sd: 1 }) }) as OracleKitError;
    expect([e.status, e.code, e.field]).toEqual([422, 'insufficient_population', 'stratification.strata[1]']);
    // JSON carries an n0 beyond the doubles as null; everything else stays a number
    const wire = JSON.parse(JSON.stringify(d));
    expect(wire.stratification.strata[1]).toMatchObject({ n0: null, n_fpc: 500, calculatedSize: 500 });
  });
  it('the proportion form: p = 5e-324 makes CV ~ 4.5e161', () => {
    const d = computeDesign({ population: 77, expectedProportion: 5e-324, dropoutRate: 0 });
    expect(d.parameters).toMatchObject({ calculatedSize: 77, adjustedSize: 77 });
    expect(d.flags).toEqual(['census']);
  });
  it('any CV whose n0 overflows is a census for the largest population', () => {
    const c = chain(Number.MAX_SAFE_INTEGER, 1, 1e155, 0);
    expect([c.n0, c.n_fpc, c.calculatedSize, c.adjustedSize, c.census]).toEqual([
      Infinity,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
      true,
    ]);
  });
});

describe('n0 below the smallest double: still one household', () => {
  it('CV 1e-308 (mean 1e308, or SD 5e-324): calculatedSize 1, adjustedSize by exact dropout', () => {
    for (const over of [{ expectedMean: 1e308 }, { expectedSD: 5e-324 }, { expectedSD: 1e-170 }]) {
      const d = computeDesign({ ...base, ...over });
      expect(d.parameters, JSON.stringify(over)).toMatchObject({ calculatedSize: 1, adjustedSize: 2 });
      expect(d.flags).toEqual([]);
    }
    expect(calculatedSizeOf(1000, 0)).toBe(1);
  });
  it('a population of 1 is a census of 1, whatever the CV', () => {
    for (const sd of [5e-324, 1, 1e308]) {
      const d = computeDesign({ population: 1, expectedMean: 1, expectedSD: sd, dropoutRate: 0 });
      expect(d.parameters).toMatchObject({ calculatedSize: 1, adjustedSize: 1 });
      expect(d.flags).toEqual(['census']);
    }
  });
  it('a dropout of 1e-300 is exact: 437 / (1 − 1e-300) is just above 437', () => {
    expect(chain(8000, 3.1, 1.7, 1e-300).adjustedSize).toBe(438);
    expect(chain(8000, 3.1, 1.7, 5e-324).adjustedSize).toBe(438);
  });
});

describe('non-finite inputs: 400 naming the field', () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ expectedSD: Infinity }, 'invalid_sd', 'expectedSD'],
    [{ expectedSD: -Infinity }, 'invalid_sd', 'expectedSD'],
    [{ expectedMean: Infinity }, 'invalid_mean', 'expectedMean'],
    [{ expectedMean: NaN }, 'invalid_mean', 'expectedMean'],
    [{ population: Infinity }, 'invalid_population', 'population'],
    [{ dropoutRate: Infinity }, 'invalid_dropout', 'dropoutRate'],
    [{ erCoverage: -Infinity }, 'invalid_er_coverage', 'erCoverage'],
    [
      { stratification: { enabled: true, strata: [{ name: 'a', weight: 1, sd: Infinity }] } },
      'invalid_sd',
      'stratification.strata[0].sd',
    ],
    [
      { stratification: { enabled: true, strata: [{ name: 'a', weight: Infinity }] } },
      'invalid_weight',
      'stratification.strata[0].weight',
    ],
  ];
  for (const [over, code, field] of cases) {
    it(`${JSON.stringify(Object.keys(over))} ${field} → ${code}`, () => {
      const e = outcome({ ...base, ...over }) as OracleKitError;
      expect([e.status, e.code, e.field]).toEqual([400, code, field]);
      if (!Number.isNaN(e.value)) expect(e.message).toMatch(/= -?Infinity is invalid \(not a finite number\)/);
    });
  }
});

describe('every positive finite mean and SD: a design or a documented error, never a crash', () => {
  const anyPositive = fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true });
  it('computeDesign, explain, sensitivity and compare', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        anyPositive,
        anyPositive,
        fc.constantFrom(0, 0.1, 1e-300),
        (N, mean, sd, d) => {
          const r = outcome({ population: N, expectedMean: mean, expectedSD: sd, dropoutRate: d });
          if (r instanceof OracleKitError) {
            expect(r.code).toBe('insufficient_population');
            return;
          }
          const p = r.parameters;
          expect(Number.isInteger(p.calculatedSize) && p.calculatedSize >= 1 && p.calculatedSize <= N).toBe(true);
          expect(Number.isInteger(p.adjustedSize) && p.adjustedSize >= p.calculatedSize && p.adjustedSize <= N).toBe(
            true,
          );
          expect(r.flags.includes('census')).toBe(p.calculatedSize === N);
          expect(Number.isNaN((r.intermediates as { n_fpc: number }).n_fpc)).toBe(false);
          expect(explainDesign(r).length).toBeGreaterThan(0);
          expect(
            sensitivity(r).rows.every((row) =>
              row.cells.every((c) => c.adjustedSize === null || Number.isInteger(c.adjustedSize)),
            ),
          ).toBe(true);
        },
      ),
      { numRuns: 400, seed: 19 },
    );
  });
  it('compare: a census stratum has precision 0 even with a CV beyond the doubles; Neyman shares stay finite', () => {
    expect(relativePrecision(500, 500, 1e-300, 1)).toBe(0);
    const d = computeDesign({
      population: 10_000,
      expectedMean: 1,
      expectedSD: 0.5,
      dropoutRate: 0,
      stratification: {
        enabled: true,
        strata: [
          { name: 'a', weight: 0.5, mean: 1e300, sd: 1e308 },
          { name: 'b', weight: 0.5, mean: 1e300, sd: 1.5e308 },
        ],
      },
    });
    const c = compareAllocations(d);
    for (const row of [...c.proportional, ...c.neyman]) expect(Number.isInteger(row.n)).toBe(true);
    expect(c.neyman.reduce((a, r) => a + r.n, 0)).toBe(c.overallSize);
  });
});

describe('recalculation from observations near the ends of the doubles', () => {
  it('mean and SD of values near 1e308 do not overflow', () => {
    const s = meanSd([1e308, 1.5e308, 1.2e308]);
    expect(s.mean / 1e308).toBeCloseTo(3.7 / 3, 12);
    expect(Number.isFinite(s.sd)).toBe(true);
    expect(achievedPrecision(3, 100, s.mean, s.sd)).toBeGreaterThan(0);
    const r = recalculate({
      population: 100,
      dropoutRate: 0,
      observations: [1e308, 1.5e308, 1.2e308].map((value, i) => ({ line: i + 2, household: `h${i}`, value })),
    });
    expect(r.achieved?.groups[0]?.precision).toBeLessThan(1);
    expect(Number.isInteger(r.design.parameters.adjustedSize)).toBe(true);
  });
});
