import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../../src/lib/backoff.ts';

describe('backoffMs', () => {
  it('doubles from the base up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => backoffMs(a, { baseMs: 50, maxMs: 1000 }))).toEqual([
      50, 100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('with jitter, waits a random share of it, never more and never below 1 − jitter', () => {
    const waits = Array.from({ length: 200 }, () => backoffMs(2, { baseMs: 100, maxMs: 1000, jitter: 0.5 }));
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(200);
      expect(w).toBeLessThanOrEqual(400);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
  });
});
