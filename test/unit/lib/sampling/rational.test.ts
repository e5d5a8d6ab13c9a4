import { describe, expect, it } from 'vitest';
import * as Q from '../../../../src/lib/sampling/rational.ts';

describe('rationals of decimal inputs', () => {
  it('reads the decimal a person typed, not the binary double', () => {
    expect(Q.fromNumber(0.3)).toEqual({ num: 3n, den: 10n });
    expect(Q.fromNumber(0.453)).toEqual({ num: 453n, den: 1000n });
    expect(Q.fromNumber(1e-7)).toEqual({ num: 1n, den: 10000000n });
    expect(Q.fromNumber(2.5e3)).toEqual({ num: 2500n, den: 1n });
  });
  it('floors and ceils exactly, including negatives', () => {
    expect(Q.ceil(Q.div(Q.int(315), Q.fromNumber(0.7)))).toBe(450n);
    expect(Q.floor({ num: -7n, den: 2n })).toBe(-4n);
    expect(Q.ceil({ num: -7n, den: 2n })).toBe(-3n);
  });
  it('prints exact decimals', () => {
    expect(Q.toNumber(Q.sub(Q.int(1), Q.fromNumber(0.07)))).toBe(0.93);
    expect(Q.toNumber({ num: 1n, den: 3n })).toBeCloseTo(1 / 3, 15);
  });
});
