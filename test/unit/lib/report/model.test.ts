import { describe, expect, it } from 'vitest';
import { computeDesign, chain } from '../../../../src/lib/sampling/design.ts';
import { buildReport, chartData, observationStats } from '../../../../src/lib/report/model.ts';
import { renderHtml } from '../../../../src/lib/report/html.ts';
import { parseSource } from '../../../../src/lib/report/inputs.ts';

describe('observationStats', () => {
  it('mean, SD with the n - 1 divisor, CV and r = z s / (xbar sqrt n) sqrt(1 - n/N), per stratum and overall', () => {
    const values = [2, 4, 4, 4, 5, 5, 7, 9].map((value, i) => ({ value, stratum: i < 4 ? 'A' : 'B' }));
    const s = observationStats(values, new Map([['a', 100], ['b', 100]]), 200);
    const overall = s.find((x) => x.group === 'overall')!;
    expect(overall.n).toBe(8);
    expect(overall.mean).toBe(5);
    expect(overall.sd).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(overall.achievedPrecision).toBeCloseTo((1.959963984540054 * Math.sqrt(32 / 7)) / (5 * Math.sqrt(8)) * Math.sqrt(1 - 8 / 200), 12);
    expect(overall.meets95_5).toBe(false);
    expect(s.map((x) => x.group)).toEqual(['A', 'B', 'overall']);
    expect(s[0]!.mean).toBe(3.5);
  });
});

describe('chartData', () => {
  it('one series per dropout rate (0, 10, 20, 30 % and the design\'s), each the sampling chain; the design point lies on its own line', () => {
    const d = computeDesign({ population: 1200, expectedMean: 2.4, expectedSD: 1.1, dropoutRate: 0.15 });
    const c = chartData(d.parameters, [{ name: 'all', population: 1200, sampleSize: d.parameters.adjustedSize }], false);
    expect(c.series.map((s) => s.dropoutRate)).toEqual([0, 0.1, 0.15, 0.2, 0.3]);
    for (const s of c.series) {
      for (const p of s.points) expect(p.n).toBe(chain(1200, 1, p.cv, s.dropoutRate).adjustedSize);
      for (let i = 1; i < s.points.length; i++) expect(s.points[i]!.n).toBeGreaterThanOrEqual(s.points[i - 1]!.n);
    }
    expect(c.marks).toEqual([{ label: 'this design', cv: Math.round((1.1 / 2.4) * 1e4) / 1e4, n: d.parameters.adjustedSize }]);
    expect(chain(1200, 2.4, 1.1, 0.15).adjustedSize).toBe(d.parameters.adjustedSize);
  });
});

describe('renderHtml', () => {
  it('is self-contained and escapes user text', () => {
    const design = computeDesign({ population: 800, expectedMean: 3, expectedSD: 1.5, dropoutRate: 0.1, erCoverage: 0.85, stratification: { enabled: true, strata: [{ name: 'Hills', weight: 0.4 }, { name: 'Plains', weight: 0.6 }] } });
    const report = buildReport({
      generatedAt: new Date('2026-01-01T00:00:00Z'),
      projects: [{ projectId: 'P<1>', design, meanJustification: '<script>alert(1)</script>', sources: [parseSource('KPT|annex & co|https://x.org/?a=1&b=2')] }],
    });
    const html = renderHtml(report);
    expect(html).not.toMatch(/<script>alert/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<link /);
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg" id="chart-1"');
    expect(report.projects[0]!.parameters.erCoverage).toBe(0.85);
    expect(report.projects[0]!.chart.marks.map((m) => m.label)).toEqual(['Hills (N_h 320)', 'Plains (N_h 480)']);
    expect(parseSource('only a label')).toEqual({ label: 'only a label' });
  });
});
