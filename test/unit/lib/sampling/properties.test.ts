/**
 * Property tests (fast-check) of the engine's invariants: sizes never exceed
 * the population, strata sum to the totals, adjustedSize >= calculatedSize,
 * monotone in SD and in dropout.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { adjustForDropout, chain, computeDesign, oneMinus, type Design } from '../../../../src/lib/sampling/design.ts';
import * as Q from '../../../../src/lib/sampling/rational.ts';
import { OracleKitError } from '../../../../src/lib/errors.ts';

const decimal = (min: number, max: number, digits: number) =>
  fc
    .integer({ min: Math.round(min * 10 ** digits), max: Math.round(max * 10 ** digits) })
    .map((k) => Number((k / 10 ** digits).toFixed(digits)));

const unstratified = fc.record({
  population: fc.integer({ min: 1, max: 5_000_000 }),
  expectedMean: decimal(0.05, 50, 3),
  expectedSD: decimal(0.01, 30, 3),
  dropoutRate: decimal(0, 0.95, 2),
});

const weightsArb = fc.integer({ min: 1, max: 8 }).chain((k) =>
  fc.array(fc.integer({ min: 1, max: 1000 }), { minLength: k, maxLength: k }).map((raw) => {
    // integer thousandths that sum to exactly 1000
    const total = raw.reduce((a, b) => a + b, 0);
    const parts = raw.map((x) => Math.max(1, Math.floor((x * 1000) / total)));
    parts[0]! += 1000 - parts.reduce((a, b) => a + b, 0);
    return parts[0]! > 0 ? parts.map((p) => p / 1000) : null;
  }),
);

const stratified = fc.record({
  population: fc.integer({ min: 1, max: 2_000_000 }),
  expectedMean: decimal(0.05, 20, 3),
  expectedSD: decimal(0.01, 10, 3),
  dropoutRate: decimal(0, 0.6, 2),
  weights: weightsArb,
});

function tryDesign(input: unknown): Design | OracleKitError {
  try {
    return computeDesign(input);
  } catch (e) {
    if (e instanceof OracleKitError) return e;
    throw e;
  }
}

describe('engine invariants', () => {
  it('an unstratified design never exceeds N, and adjustedSize >= calculatedSize', () => {
    fc.assert(
      fc.property(unstratified, (input) => {
        const d = tryDesign(input);
        if (d instanceof OracleKitError) {
          expect(d.code).toBe('insufficient_population');
          expect((d.details as { adjustedSize: number }).adjustedSize).toBeGreaterThan(input.population);
          return;
        }
        expect(d.parameters.calculatedSize).toBeLessThanOrEqual(input.population);
        expect(d.parameters.adjustedSize).toBeLessThanOrEqual(input.population);
        expect(d.parameters.adjustedSize).toBeGreaterThanOrEqual(d.parameters.calculatedSize);
        expect(d.parameters.calculatedSize).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('strata populations sum to N and sizes sum to the totals', () => {
    fc.assert(
      fc.property(stratified, ({ weights, ...rest }) => {
        if (!weights) return;
        const input = {
          ...rest,
          stratification: { enabled: true, strata: weights.map((w, i) => ({ name: `s${i}`, weight: w })) },
        };
        const d = tryDesign(input);
        if (d instanceof OracleKitError) {
          expect(['insufficient_population', 'empty_stratum']).toContain(d.code);
          return;
        }
        const s = d.stratification.strata;
        expect(s.reduce((a, x) => a + x.population, 0)).toBe(rest.population);
        expect(s.reduce((a, x) => a + x.calculatedSize, 0)).toBe(d.parameters.calculatedSize);
        expect(s.reduce((a, x) => a + x.sampleSize, 0)).toBe(d.parameters.adjustedSize);
        for (const x of s) {
          expect(x.sampleSize).toBeLessThanOrEqual(x.population);
          expect(x.sampleSize).toBeGreaterThanOrEqual(x.calculatedSize);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('is monotone (non-decreasing) in SD', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        decimal(0.1, 10, 2),
        decimal(0.01, 5, 3),
        decimal(0.001, 2, 3),
        decimal(0, 0.9, 2),
        (N, mean, sd, extra, d) => {
          const a = chain(N, mean, sd, d);
          const b = chain(N, mean, sd + extra, d);
          expect(b.calculatedSize).toBeGreaterThanOrEqual(a.calculatedSize);
          expect(b.adjustedSize).toBeGreaterThanOrEqual(a.adjustedSize);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('is monotone (non-decreasing) in dropout', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        decimal(0.1, 10, 2),
        decimal(0.01, 5, 3),
        decimal(0, 0.9, 2),
        decimal(0, 0.09, 2),
        (N, mean, sd, d, extra) => {
          const a = chain(N, mean, sd, d);
          const b = chain(N, mean, sd, Number((d + extra).toFixed(2)));
          expect(b.adjustedSize).toBeGreaterThanOrEqual(a.adjustedSize);
          expect(b.calculatedSize).toBe(a.calculatedSize);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('the dropout adjustment is the least n with n·(1−d) >= calculatedSize, computed exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 9999 }), (calc, bp) => {
        const d = bp / 10000; // a decimal with up to 4 digits, as typed
        const adj = adjustForDropout(calc, d);
        // in integers: adj·(10000 − bp) >= calc·10000 > (adj − 1)·(10000 − bp)
        const lhs = BigInt(adj) * BigInt(10000 - bp);
        expect(lhs >= BigInt(calc) * 10000n).toBe(true);
        expect(BigInt(adj - 1) * BigInt(10000 - bp) < BigInt(calc) * 10000n).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the dropout step without BigInt (decimalFraction) against the rationals', () => {
  // what adjustForDropout and oneMinus computed before the double path: exact rationals throughout
  const exactAdjust = (c: number, d: number) => Number(Q.ceil(Q.div(Q.int(c), Q.sub(Q.int(1), Q.fromNumber(d)))));
  const exactOneMinus = (d: number) => Q.toNumber(Q.sub(Q.int(1), Q.fromNumber(d)));
  // a dropout rate with 1 to 17 decimals (17 leaves the double path: more than 15 in its shortest form), and sizes up
  // to MAX_SAFE_INTEGER, where calculatedSize * 10^decimals is no longer a safe integer and the rationals take over
  const rate = fc
    .integer({ min: 1, max: 17 })
    .chain((k) =>
      fc.bigInt({ min: 0n, max: 10n ** BigInt(k) - 1n }).map((n) => Number(`0.${n.toString().padStart(k, '0')}`)),
    )
    .filter((d) => d < 1); // 0.99999999999999999 reads as 1
  const size = fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));

  it('gives the same adjustedSize and 1 − d for every rate and size', () => {
    fc.assert(
      fc.property(size, rate, (c, d) => {
        expect(adjustForDropout(c, d)).toBe(exactAdjust(c, d));
        expect(oneMinus(d)).toBe(exactOneMinus(d));
      }),
      { numRuns: 20_000 },
    );
  });
  it('on the float traps and the edges of the double path', () => {
    const cases: [number, number][] = [
      [315, 0.3],
      [7, 0.3],
      [437, 0.1],
      [10, 0],
      [99, 0.01],
      [1, 1e-7],
      [3, 0.999999999999999],
      [9007199254740991, 0.5],
      [900719925474, 0.123],
      [1, 0.1234567890123456],
      [123456789, 1.5e-7],
    ];
    for (const [c, d] of cases) {
      expect(adjustForDropout(c, d)).toBe(exactAdjust(c, d));
      expect(oneMinus(d)).toBe(exactOneMinus(d));
    }
    expect(Q.decimalFraction(0.15)).toEqual({ digits: 15, scale: 100 });
    expect(Q.decimalFraction(0)).toEqual({ digits: 0, scale: 1 });
    expect(Q.decimalFraction(1e-7)).toBeUndefined(); // '1e-7'
    expect(Q.decimalFraction(0.1234567890123456)).toBeUndefined(); // 16 decimals
  });
});
