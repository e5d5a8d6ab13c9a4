import { describe, expect, it } from 'vitest';
import { adjustForDropout, chain, computeDesign, oneMinus, Z_95 } from '../../../../src/lib/sampling/design.ts';
import { apportion } from '../../../../src/lib/sampling/allocation.ts';
import { OracleKitError } from '../../../../src/lib/errors.ts';
import { samplingCases } from '../../../helpers/spec.ts';
import { stratifiedInput } from '../../../helpers/sampling-designs.ts';

const ref = samplingCases();

function codeOf(fn: () => unknown): { code: string; status: number; err: OracleKitError } {
  try {
    fn();
  } catch (e) {
    if (e instanceof OracleKitError) return { code: e.code, status: e.status, err: e };
    throw e;
  }
  throw new Error('expected an error');
}

describe('sampling-cases.json: every reference number, exactly', () => {
  it('uses the exact z of the reference', () => {
    expect(Z_95).toBe(ref.constants.z);
  });
  for (const c of ref.cases) {
    it(`${c.id}: ${c.note}`, () => {
      const d = computeDesign(c.input);
      const e = c.expected;
      expect(d.intermediates.z).toBe(e.z);
      expect(d.parameters.calculatedSize).toBe(e.calculatedSize);
      expect(d.parameters.adjustedSize).toBe(e.adjustedSize);
      expect(d.parameters.erCoverage).toBe(e.erCoverage);
      if (e.strata) {
        expect(d.stratification.method).toBe(e.method);
        expect(
          d.stratification.strata.map(
            ({ name, population, mean, sd, n0, n_fpc, calculatedSize, sampleSize, census }) => ({
              name,
              population,
              mean,
              sd,
              n0,
              n_fpc,
              calculatedSize,
              sampleSize,
              census,
            }),
          ),
        ).toEqual(e.strata);
        expect(d.stratification.strata.reduce((a, s) => a + s.population, 0)).toBe(c.input.population);
      } else {
        const i = d.intermediates as { cv: number; n0: number; n_fpc: number };
        expect(i.cv).toBe(e.cv);
        expect(i.n0).toBe(e.n0);
        expect(i.n_fpc).toBe(e.n_fpc);
        expect(d.flags).toEqual(e.flags);
      }
    });
  }
  for (const c of ref.errors) {
    it(`${c.id}: ${c.note} → ${c.status} ${c.code}`, () => {
      const { code, status, err } = codeOf(() => computeDesign(c.input));
      expect({ code, status }).toEqual({ code: c.code, status: c.status });
      expect(err.field).toBeTruthy();
      expect(err.valid).toBeTruthy();
      expect(err.toBody()).toMatchObject({ statusCode: c.status, code: c.code, field: err.field });
    });
  }
});

describe('the chain', () => {
  it('adjusts for dropout on exact rationals (315 / 0.7 is 450, not 451)', () => {
    expect(315 / (1 - 0.3)).toBeGreaterThan(450); // the float trap is real
    expect(adjustForDropout(315, 0.3)).toBe(450);
    expect(adjustForDropout(7, 0.3)).toBe(10);
    expect(adjustForDropout(437, 0.1)).toBe(486);
    expect(adjustForDropout(10, 0)).toBe(10);
    expect(adjustForDropout(99, 0.01)).toBe(100);
    expect(adjustForDropout(1, 1e-7)).toBe(2);
  });
  it('records 1 − d as an exact decimal', () => {
    expect(1 - 0.07).not.toBe(0.93);
    expect(oneMinus(0.07)).toBe(0.93);
    expect(oneMinus(0)).toBe(1);
  });
  it('never exceeds N and flags a census', () => {
    const c = chain(12, 1, 0.9, 0);
    expect(c.calculatedSize).toBe(12);
    expect(c.census).toBe(true);
  });
  it('uses the CDM form of the FPC, not n0/(1+n0/N)', () => {
    const c = chain(150, 2, 0.7, 0.05);
    expect(c.n_fpc).toBe(83.72504887958131);
    expect(c.n0 / (1 + c.n0 / 150)).not.toBe(c.n_fpc);
  });
});

describe('largest-remainder apportionment', () => {
  it('hands remainders to the largest fractional parts', () => {
    expect(apportion(2003, [0.5, 0.3, 0.2])).toEqual([1001, 601, 401]);
  });
  it('breaks ties by larger weight, then input order', () => {
    expect(apportion(1003, [0.25, 0.25, 0.25, 0.25])).toEqual([251, 251, 251, 250]);
    expect(apportion(3, [0.25, 0.5, 0.25])).toEqual([1, 1, 1]);
    // equal remainders .5/.5: the larger weight wins
    expect(apportion(5, [0.1, 0.9])).toEqual([0, 5]);
    expect(apportion(5, [0.9, 0.1])).toEqual([5, 0]);
    expect(apportion(1, [0.4, 0.6])).toEqual([0, 1]);
  });
  it('renormalises exactly when weights are within 1e-6 of 1', () => {
    const d = computeDesign({
      population: 1000,
      expectedMean: 1,
      expectedSD: 0.4,
      dropoutRate: 0,
      stratification: {
        enabled: true,
        strata: [
          { name: 'a', weight: 0.3333333 },
          { name: 'b', weight: 0.3333333 },
          { name: 'c', weight: 0.3333334 },
        ],
      },
    });
    expect(d.stratification.strata.map((s) => s.population)).toEqual([333, 333, 334]);
  });
});

describe('validation beyond the reference cases', () => {
  const base = { population: 5000, expectedMean: 1, expectedSD: 0.5, dropoutRate: 0.1 };
  const cases: [string, Record<string, unknown>, string, number][] = [
    ['missing population', { ...base, population: undefined }, 'missing_parameter', 400],
    ['missing dropout', { ...base, dropoutRate: undefined }, 'missing_parameter', 400],
    ['population as a string', { ...base, population: '5000' }, 'invalid_population', 400],
    ['population 0', { ...base, population: 0 }, 'invalid_population', 400],
    ['negative SD', { ...base, expectedSD: -1 }, 'invalid_sd', 400],
    ['NaN mean', { ...base, expectedMean: Number.NaN }, 'invalid_mean', 400],
    ['dropout 1', { ...base, dropoutRate: 1 }, 'invalid_dropout', 400],
    ['negative dropout', { ...base, dropoutRate: -0.1 }, 'invalid_dropout', 400],
    ['erCoverage 1.5', { ...base, erCoverage: 1.5 }, 'invalid_er_coverage', 400],
    ['unknown field (typo)', { ...base, dropout: 0.1 }, 'unknown_field', 400],
    ['proportion and mean', { ...base, expectedProportion: 0.5 }, 'conflicting_parameters', 400],
    ['proportion 1', { population: 100, expectedProportion: 1, dropoutRate: 0 }, 'invalid_proportion', 400],
    ['empty strata', { ...base, stratification: { enabled: true, strata: [] } }, 'invalid_strata', 400],
    [
      'stratum weight 0',
      {
        ...base,
        stratification: {
          enabled: true,
          strata: [
            { name: 'a', weight: 0 },
            { name: 'b', weight: 1 },
          ],
        },
      },
      'invalid_weight',
      400,
    ],
    [
      'blank stratum name',
      { ...base, stratification: { enabled: true, strata: [{ name: ' ', weight: 1 }] } },
      'invalid_stratum_name',
      400,
    ],
    [
      'stratum name with U+001F',
      { ...base, stratification: { enabled: true, strata: [{ name: 'a\u001fb', weight: 1 }] } },
      'invalid_stratum_name',
      400,
    ],
    [
      'unknown stratum field',
      { ...base, stratification: { enabled: true, strata: [{ name: 'a', weight: 1, size: 3 }] } },
      'unknown_field',
      400,
    ],
    [
      'stratum SD 0',
      { ...base, stratification: { enabled: true, strata: [{ name: 'a', weight: 1, sd: 0 }] } },
      'invalid_sd',
      400,
    ],
  ];
  for (const [name, input, code, status] of cases) {
    it(`${name} → ${status} ${code}`, () => {
      const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      expect(codeOf(() => computeDesign(clean))).toMatchObject({ code, status });
    });
  }
  it('a percentage dropout says what it probably meant', () => {
    const { err } = codeOf(() => computeDesign({ ...base, dropoutRate: 15 }));
    expect(err.message).toContain('0.15');
  });
  it('insufficient_population reports the sizes that did not fit', () => {
    const { err } = codeOf(() =>
      computeDesign({ population: 60, expectedMean: 1, expectedSD: 0.5, dropoutRate: 0.25 }),
    );
    expect(err.details).toMatchObject({ calculatedSize: 53, adjustedSize: 71, population: 60 });
  });
  it('a proportion means mean = p and SD = sqrt(p(1−p))', () => {
    const d = computeDesign({ population: 5000, expectedProportion: 0.7, dropoutRate: 0.1 });
    const m = computeDesign({
      population: 5000,
      expectedMean: 0.7,
      expectedSD: Math.sqrt(0.7 * 0.3),
      dropoutRate: 0.1,
    });
    expect(d.parameters.adjustedSize).toBe(m.parameters.adjustedSize);
    expect(d.parameters.expectedProportion).toBe(0.7);
  });
  it('records erCoverage from the input when given', () => {
    const d = computeDesign({ ...base, erCoverage: 0.8 });
    expect(d.parameters).toMatchObject({ erCoverage: 0.8, erCoverageSource: 'input' });
  });
  it('stratification disabled is an unstratified design', () => {
    const d = computeDesign({ ...base, stratification: { enabled: false, strata: [] } });
    expect(d.stratification.method).toBe('none');
  });
});

describe('insufficient_population states a population that works', () => {
  const failure = (body: Record<string, unknown>): OracleKitError => {
    try {
      computeDesign(body);
    } catch (e) {
      if (e instanceof OracleKitError) return e;
      throw e;
    }
    throw new Error('expected insufficient_population');
  };
  const fits = (N: number, mean: number, sd: number, d: number) => {
    try {
      computeDesign({ population: N, expectedMean: mean, expectedSD: sd, dropoutRate: d });
      return true;
    } catch {
      return false;
    }
  };

  it('names the smallest population that fits, and that population fits while no smaller one does', () => {
    const e = failure({ population: 1, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 });
    expect(e.code).toBe('insufficient_population');
    expect(e.valid).toContain('at least 57 households');
    for (const [mean, sd, d] of [
      [3.1, 1.7, 0.1],
      [1, 0.453, 0.3],
      [2, 1, 0.5],
      [3.1, 1.7, 0.99],
    ] as const) {
      const valid = failure({ population: 1, expectedMean: mean, expectedSD: sd, dropoutRate: d }).valid!;
      const m = Number(/at least (\d+) households/.exec(valid)![1]);
      expect(fits(m, mean, sd, d), `${valid}`).toBe(true);
      for (let N = Math.max(1, m - 300); N < m; N++) expect(fits(N, mean, sd, d), `N = ${N}`).toBe(false);
    }
  });

  it('for a stratum: the stratum population that fits, and a total that apportions it at these weights', () => {
    const body = stratifiedInput(100, [
      { name: 'a', weight: 0.8 },
      { name: 'b', weight: 0.2 },
    ]);
    const valid = failure(body).valid!;
    const total = Number(/a population of at least (\d+)/.exec(valid)![1]);
    expect(valid).toContain('a stratum population of at least 47 households');
    expect(computeDesign({ ...body, population: total }).stratification.strata[1]!.population).toBe(47);
    expect(() => computeDesign({ ...body, population: total - 1 })).toThrow();
  });
});

describe("a stratum's own dropout rate", () => {
  const body = stratifiedInput(
    15000,
    [
      { name: 'lpg', weight: 0.5, mean: 2.6, sd: 0.9, dropoutRate: 0.135 },
      { name: 'biomass', weight: 0.3, mean: 1.8, sd: 1.2 },
      { name: 'electric', weight: 0.2, mean: 1.4, sd: 1.1, dropoutRate: 0 },
    ],
    { dropoutRate: 0.08 },
  );

  it("sizes the stratum with its own rate, the others with the design's, and says so in the record", () => {
    const d = computeDesign(body);
    const [lpg, biomass, electric] = d.stratification.strata;
    expect(lpg).toMatchObject({ calculatedSize: 180, dropoutRate: 0.135, sampleSize: adjustForDropout(180, 0.135) });
    expect(lpg!.sampleSize).toBe(209);
    expect(biomass!.sampleSize).toBe(646); // the reference design's, at 0.08
    expect(biomass).not.toHaveProperty('dropoutRate');
    expect(electric).toMatchObject({ calculatedSize: 721, sampleSize: 721, dropoutRate: 0 });
    expect(d.parameters.adjustedSize).toBe(209 + 646 + 721);
  });

  it('is checked like the design rate, naming the stratum field', () => {
    const bad = structuredClone(body);
    (bad.stratification.strata[1] as { dropoutRate?: number }).dropoutRate = 13.5;
    const { code, err } = codeOf(() => computeDesign(bad));
    expect(code).toBe('invalid_dropout');
    expect(err.field).toBe('stratification.strata[1].dropoutRate');
    expect(err.message).toContain('a percentage? 13.5 % is 0.135');
  });
});
