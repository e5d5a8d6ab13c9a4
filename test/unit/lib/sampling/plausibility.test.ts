/**
 * An observed mean far from the design's assumed one, or in another unit, is said — as information, never as a
 * failure — both by recalc and in the package's findings, naming what was compared.
 */
import { describe, expect, it } from 'vitest';
import { computeDesign } from '../../../../src/lib/sampling/design.ts';
import { plausibilityNote, recalculate, type Observation } from '../../../../src/lib/sampling/recalc.ts';
import { observationsReport, type Finding } from '../../../../src/lib/report/observations.ts';

/** A one-population design assuming 2 hours a day of use. */
const design = computeDesign({ population: 5000, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 });

/** n completed observations around `centre` (a spread of ±40 %), household IDs H1…Hn. */
function rows(n: number, centre: number): Observation[] {
  return Array.from({ length: n }, (_, i) => ({
    line: i + 2,
    household: `H${i + 1}`,
    value: Number((centre * (0.6 + (0.8 * ((i * 37) % 101)) / 100)).toFixed(3)),
  }));
}

describe('plausibility of the observed mean against the assumed one', () => {
  it('a ratio near 60 looks like minutes for hours; near 24 like hours for days; 15x is far; 1.3x is nothing', () => {
    expect(plausibilityNote('all', 126, 2)).toMatchObject({ kind: 'other unit', ratio: 63 });
    expect(plausibilityNote('all', 126, 2)!.statement).toMatch(/126 against the design's assumed mean 2 .*minutes/);
    expect(plausibilityNote('lpg', 2, 48)).toMatchObject({ kind: 'other unit' });
    expect(plausibilityNote('lpg', 2, 48)!.statement).toMatch(/stratum lpg.*days instead of hours/);
    expect(plausibilityNote('all', 30, 2)).toMatchObject({ kind: 'far', ratio: 15 });
    expect(plausibilityNote('all', 2.6, 2)).toBeNull();
    expect(plausibilityNote('all', 0, 2)).toBeNull();
  });

  it('recalc notes observations recorded in minutes (63x the assumed hours) and still computes, with no failure', () => {
    const res = recalculate({ previous: design, observations: rows(300, 126) });
    expect(res.plausibility).toHaveLength(1);
    const n = res.plausibility![0]!;
    expect(n).toMatchObject({ scope: 'all', assumed: 2, kind: 'other unit' });
    expect(n.ratio).toBeCloseTo(res.achieved!.groups[0]!.mean! / 2, 12);
    expect(n.statement).toContain('information, not a failure');
    expect(recalculate({ previous: design, observations: rows(300, 2.2) }).plausibility).toBeUndefined();
  });

  it("the package's findings carry the same note at info level, naming the observed and assumed means", () => {
    const findings: Finding[] = [];
    const strata = [
      {
        name: 'all',
        population: 5000,
        sampleSize: design.parameters.adjustedSize,
        calculatedSize: design.parameters.calculatedSize,
      },
    ];
    observationsReport({
      obs: { kind: 'monitoring', values: rows(300, 126).map((o) => ({ household: o.household, value: o.value })) },
      design,
      stratified: false,
      strata,
      populations: 'design',
      order: null,
      findings,
    });
    const notes = findings.filter((f) => /assumed mean/.test(f.message));
    expect(notes).toHaveLength(1);
    expect(notes[0]!.severity).toBe('info');
    expect(notes[0]!.message).toMatch(
      /^monitoring observations, the observed mean [\d.]+ against the design's assumed mean 2 \([\d.]+ times it\).*minutes/,
    );
    const plain: Finding[] = [];
    observationsReport({
      obs: { kind: 'monitoring', values: rows(300, 2.2).map((o) => ({ household: o.household, value: o.value })) },
      design,
      stratified: false,
      strata,
      populations: 'design',
      order: null,
      findings: plain,
    });
    expect(plain.some((f) => /assumed mean/.test(f.message))).toBe(false);
  });
});
