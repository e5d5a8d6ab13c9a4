import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chain, computeDesign, provenanceOf, Z_95 } from '../../../../src/lib/sampling/design.ts';
import { buildReport, type ProjectReport } from '../../../../src/lib/report/model.ts';
import { parseSource } from '../../../../src/lib/report/inputs.ts';
import { chartData } from '../../../../src/lib/report/chart.ts';
import { compareWithData, observationStats } from '../../../../src/lib/report/observations.ts';
import { renderHtml, TICKET_PREFIX } from '../../../../src/lib/report/html.ts';
import { placeLabels, textWidth } from '../../../../src/lib/report/svg.ts';
import { loadDesign } from '../../../../src/lib/selection/design.ts';
import { commitmentDigest, type Commitment, type Proof } from '../../../../src/lib/selection/records.ts';
import { drawSelection } from '../../../../src/lib/selection/workflow.ts';
import { commitForRealRound, QUICKNET } from '../../../helpers/real-rounds.ts';
import { fakeChain } from '../beacon/fake-drand.ts';
import { COOKSTOVE_STRATA, NORTH_SOUTH_HALVES, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const strataOf = (d: ReturnType<typeof computeDesign>): ProjectReport['strata'] =>
  d.stratification.strata.map((s) => ({
    name: s.name,
    population: s.population,
    sampleSize: s.sampleSize,
    calculatedSize: s.calculatedSize,
    mean: s.mean,
    sd: s.sd,
    cv: s.cv,
  }));

describe('observationStats', () => {
  it('one population: mean, SD with the n − 1 divisor, CV and r = z s / (x̄ √n) √(1 − n/N)', () => {
    const values = [2, 4, 4, 4, 5, 5, 7, 9].map((value) => ({ value }));
    const { stats } = observationStats(values, [{ name: 'all', population: 200 }], 200, false);
    const all = stats[0]!;
    expect(all).toMatchObject({ group: 'all', n: 8, mean: 5, estimator: 'srs' });
    expect(all.sd).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(all.achievedPrecision).toBeCloseTo(
      ((Z_95 * Math.sqrt(32 / 7)) / (5 * Math.sqrt(8))) * Math.sqrt(1 - 8 / 200),
      12,
    );
  });

  it("stratified: per stratum in the design's order, and the overall is Σ W_h x̄_h with the stratified variance", () => {
    const values = [
      ...[1, 1.2, 1.4, 1.1].map((value) => ({ value, stratum: 'b' })),
      ...[2, 4, 3, 3, 2, 4].map((value) => ({ value, stratum: 'A' })),
    ];
    const { stats, overall } = observationStats(
      values,
      [
        { name: 'a', population: 100 },
        { name: 'B', population: 300 },
      ],
      400,
      true,
    );
    expect(stats.map((s) => [s.group, s.estimator])).toEqual([
      ['a', 'srs'],
      ['B', 'srs'],
      ['overall', 'stratified'],
    ]);
    const a = stats[0]!;
    const b = stats[1]!;
    expect(overall!.mean).toBeCloseTo(0.25 * a.mean + 0.75 * b.mean, 14);
    const pooled = values.reduce((s, v) => s + v.value, 0) / values.length;
    expect(stats[2]!.mean).not.toBeCloseTo(pooled, 3);
    const V = (0.25 ** 2 * (1 - 6 / 100) * a.sd ** 2) / 6 + (0.75 ** 2 * (1 - 4 / 300) * b.sd ** 2) / 4;
    expect(stats[2]!.achievedPrecision).toBeCloseTo((Z_95 * Math.sqrt(V)) / overall!.mean, 14);
  });
});

describe('compareWithData', () => {
  // the issue's case: baseline CVs 0.74 / 0.84 / 1.06 next to design CVs 0.46 / 0.64 / 0.79
  const d = computeDesign(
    stratifiedInput(15000, [
      { name: 'lpg', weight: 0.5, mean: 2.6, sd: 1.2 },
      { name: 'biomass', weight: 0.3, mean: 1.8, sd: 1.15 },
      { name: 'electric', weight: 0.2, mean: 1.4, sd: 1.1 },
    ]),
  );
  it('per stratum: CV assumed vs observed, r at the planned size, the size the data imply, and "too small"', () => {
    const stats = [
      { group: 'lpg', n: 40, mean: 2.5, sd: 1.85, cv: 0.74, estimator: 'srs' as const },
      { group: 'biomass', n: 40, mean: 1.9, sd: 1.596, cv: 0.84, estimator: 'srs' as const },
      { group: 'electric', n: 40, mean: 1.3, sd: 1.378, cv: 1.06, estimator: 'srs' as const },
    ];
    const cmp = compareWithData(d, strataOf(d), stats);
    expect(cmp.map((c) => c.stratum)).toEqual(['lpg', 'biomass', 'electric']);
    for (const [i, c] of cmp.entries()) {
      const s = d.stratification.strata[i]!;
      expect(c.cvAssumed).toBe(s.cv);
      expect(c.cvObserved).toBe(stats[i]!.sd / stats[i]!.mean);
      expect(c.plannedCompleted).toBe(s.calculatedSize);
      expect(c.precisionAtPlanned).toBeCloseTo(
        ((Z_95 * c.cvObserved) / Math.sqrt(s.calculatedSize)) * Math.sqrt(1 - s.calculatedSize / s.population),
        14,
      );
      expect(c.impliedSample).toBe(chain(s.population, stats[i]!.mean, stats[i]!.sd, 0.1).adjustedSize);
      expect(c.tooSmall).toBe(true);
      expect(c.meetsAtPlanned).toBe(false);
    }
  });

  it('a design that the data support is "large enough"', () => {
    const stats = d.stratification.strata.map((s) => ({
      group: s.name,
      n: 50,
      mean: s.mean,
      sd: s.sd * 0.9,
      cv: 0,
      estimator: 'srs' as const,
    }));
    expect(compareWithData(d, strataOf(d), stats).every((c) => !c.tooSmall && c.meetsAtPlanned)).toBe(true);
  });
});

describe('chartData and the SVG', () => {
  it('one population: a line per dropout rate; the design point lies on its own line', () => {
    const d = computeDesign({ population: 1200, expectedMean: 2.4, expectedSD: 1.1, dropoutRate: 0.15 });
    const c = chartData(d.parameters, strataOf(d), false);
    expect(c.series.map((s) => s.dropoutRate)).toEqual([0, 0.1, 0.15, 0.2, 0.3]);
    for (const s of c.series)
      for (const p of s.points) expect(p.n).toBe(chain(1200, 1, p.cv, s.dropoutRate).adjustedSize);
    const m = c.marks[0]!;
    expect(c.series[m.series]!.points).toContainEqual({ cv: m.cv, n: m.n });
  });

  it("stratified: each stratum's point is on the line of its own N_h", () => {
    const d = computeDesign(
      stratifiedInput(5000, [
        { name: 'small', weight: 0.05, mean: 2, sd: 1 },
        { name: 'large', weight: 0.95, mean: 2, sd: 1 },
      ]),
    );
    const c = chartData(d.parameters, strataOf(d), true);
    expect(c.series.map((s) => s.population)).toEqual([250, 4750]);
    for (const m of c.marks) {
      const s = c.series[m.series]!;
      expect(s.points).toContainEqual({ cv: m.cv, n: m.n });
      expect(m.n).toBe(chain(s.population, 1, m.cv, 0.1).adjustedSize);
    }
    // same CV, different N_h: different n, so a single total-N line could not hold both points
    expect(c.marks[0]!.n).not.toBe(c.marks[1]!.n);
  });

  it('the chart shows the observed CVs next to the designed ones, each on its own stratum line', async () => {
    const design = computeDesign(
      stratifiedInput(5000, [
        { name: 'lpg', weight: 0.6, mean: 2.5, sd: 1 },
        { name: 'wood', weight: 0.4, mean: 2, sd: 1.2 },
      ]),
    );
    // lpg observed with CV 0.5 (designed 0.4); wood with CV 0.3 (designed 0.6)
    const values = [
      ...[1.5, 2, 2.5, 3, 3.5].map((v) => ({ value: v, stratum: 'lpg' })),
      ...[1.7, 2, 2.3, 1.7, 2, 2.3].map((v) => ({ value: v, stratum: 'wood' })),
    ];
    const report = await buildReport({
      generatedAt: new Date(0),
      projects: [{ projectId: 'p', design, observations: { kind: 'baseline', values } }],
    });
    const c = report.projects[0]!.chart;
    const observed = c.marks.filter((m) => m.kind === 'observed');
    expect(observed.map((m) => m.label)).toEqual(['lpg observed', 'wood observed']);
    const stats = report.projects[0]!.supporting.observations!.comparison;
    for (const [i, m] of observed.entries()) {
      expect(m.cv).toBe(stats[i]!.cvObserved);
      const line = c.series[m.series]!;
      expect(line.points).toContainEqual({ cv: m.cv, n: m.n });
      expect(m.n).toBe(chain(line.population, 1, m.cv, 0.1).adjustedSize);
    }
    expect(c.marks.filter((m) => m.kind === 'designed').map((m) => m.label)).toEqual(['lpg', 'wood']);
    expect(c.caption).toContain('Hollow points: the CV the baseline observations show (lpg ');
    const html = renderHtml(report);
    expect(html.match(/<circle class="mark observed"/g)).toHaveLength(2);
    expect(html.match(/<circle class="mark designed"/g)).toHaveLength(2);
  });

  it("a stratum's own dropout rate is shown in the strata table and is what its realised dropout is held against", async () => {
    const design = computeDesign(
      stratifiedInput(
        4000,
        [
          { name: 'far', weight: 0.5, dropoutRate: 0.2 },
          { name: 'near', weight: 0.5 },
        ],
        { dropoutRate: 0.05 },
      ),
    );
    // 15 % dropout in both (a row for each of its n_h sampled households): above near's 5 % (the design's), below
    // far's own 20 %
    const values = design.stratification.strata.flatMap((s) =>
      Array.from({ length: s.sampleSize }, (_, i) => ({
        value: i < Math.round(s.sampleSize * 0.15) ? null : 1.5 + (i % 5) * 0.25,
        stratum: s.name,
      })),
    );
    const report = await buildReport({
      generatedAt: new Date(0),
      projects: [{ projectId: 'p', design, observations: { kind: 'monitoring', values } }],
    });
    const p = report.projects[0]!;
    expect(p.checks.find((c) => c.check === 'design')!.status).toBe('pass');
    expect(p.strata.map((s) => s.dropoutRate)).toEqual([0.2, undefined]);
    const drops = p.findings.filter((f) => f.message.includes('realised dropout'));
    expect(drops.map((f) => f.message)).toEqual([
      expect.stringMatching(/^stratum near: realised dropout 15\.0 % .* against 5\.0 % designed/),
    ]);
    const html = renderHtml(report);
    expect(html).toMatch(/<th>dropout<\/th>/);
    expect(html).toMatch(/<td>far<\/td>(<td[^>]*>[^<]*<\/td>){4}<td[^>]*>0\.2<\/td>/);
  });

  it('a CV below the axis range is drawn at the axis, marked, with its value', () => {
    const d = computeDesign(
      stratifiedInput(
        900,
        [
          { name: 'steady', weight: 0.5, mean: 10, sd: 0.4 },
          { name: 'varied', weight: 0.5, mean: 2, sd: 1 },
        ],
        { dropoutRate: 0 },
      ),
    );
    const c = chartData(d.parameters, strataOf(d), true);
    expect(c.marks[0]).toMatchObject({ label: 'steady', clamped: true });
    expect(c.marks[0]!.cv).toBeCloseTo(0.04, 12);
    const html = renderHtml({
      kind: 'oraclekit/verifier-package',
      version: 2,
      title: 't',
      generatedAt: '',
      generator: { name: 'oraclekit', version: '0.0.0' },
      spec: { sampling: 'sampling.md', samplingMethod: '95/5-relative-cdm-fpc/v1', selection: 'cookstove-sampling/v1' },
      failures: [],
      projects: [],
    });
    expect(html).not.toContain('<script');
  });

  it('labels never overlap each other or a point, even for points on top of each other', () => {
    const plot = { x: 64, y: 20, w: 506, h: 310 };
    const points = Array.from({ length: 12 }, (_, i) => ({
      x: 300 + (i % 3),
      y: 200 + (i % 2),
      text: `stratum number ${i}: n ${400 + i}`,
    }));
    const boxes = placeLabels(points, plot);
    for (let i = 0; i < boxes.length; i++) {
      const a = boxes[i]!;
      expect(a.w).toBe(textWidth(points[i]!.text));
      expect(a.x >= plot.x && a.x + a.w <= plot.x + plot.w && a.y >= plot.y && a.y + a.h <= plot.y + plot.h).toBe(true);
      for (let j = 0; j < boxes.length; j++) {
        const b = boxes[j]!;
        if (j !== i)
          expect(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h, `${i} ${j}`).toBe(false);
        const p = points[j]!;
        expect(
          a.x < p.x + 6 && p.x - 6 < a.x + a.w && a.y < p.y + 6 && p.y - 6 < a.y + a.h,
          `label ${i} on point ${j}`,
        ).toBe(false);
      }
    }
  });
});

describe('the package re-checks what it packages', () => {
  const dir = mkdtempSync(join(tmpdir(), 'okit-report-'));
  const frame = join(dir, 'frame.csv');
  const designJson = computeDesign(stratifiedInput(900, NORTH_SOUTH_HALVES, { expectedSD: 1.3 }));
  let commitment: Commitment;
  let proof: Proof;
  let publishedAt: Date;
  let selectionPath: string;

  beforeAll(async () => {
    writeFileSync(
      frame,
      'household_id,stratum\n' +
        Array.from({ length: 900 }, (_, i) => `H${i},${i % 2 ? 'North' : 'South'}`).join('\n') +
        '\n',
    );
    const c = await commitForRealRound({ design: loadDesign(designJson), framePath: frame });
    commitment = c.commitment;
    publishedAt = c.publishedAt;
    const r = await drawSelection({
      commitment,
      framePath: frame,
      randomness: { beacon: QUICKNET },
      outDir: dir,
      now: new Date(),
    });
    proof = r.proof;
    selectionPath = r.selectionPath;
  });

  const report = (over: Partial<Parameters<typeof buildReport>[0]['projects'][0]>) =>
    buildReport({
      generatedAt: new Date('2026-11-23T00:00:00Z'),
      projects: [{ projectId: 'P1', design: designJson, commitment, proof, publishedAt, selectionPath, ...over }],
    });

  it('genuine: every check passes, with the replacement order from selection.csv', async () => {
    const r = await report({});
    expect(r.failures).toEqual([]);
    const p = r.projects[0]!;
    expect(p.verdict).toBe('verified');
    expect(p.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(p.checks.map((c) => c.check)).toEqual(
      expect.arrayContaining([
        'design',
        'commitment.designId',
        'commitment',
        'beacon.signature',
        'seed',
        'tickets',
        'selection.csv',
        'chain pinned',
        'published before round',
      ]),
    );
    const csv = readFileSync(selectionPath, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const north = csv.filter((x) => x[0] === 'North');
    const n = commitment.strata[0]!.sampleSize;
    const pf = p.selection!.proof!;
    expect(pf.replacements!.filter((x) => x.stratum === 'North').map((x) => x.household_id)).toEqual(
      north.slice(n, 2 * n).map((x) => x[3]),
    );
    // one shape for a drawn household, in the sample and in the replacements: the same fields, flat, ranks going on
    const keys = (xs: object[]) => [...new Set(xs.map((x) => Object.keys(x).sort().join(',')))];
    expect(keys(pf.replacements!)).toEqual(['household_id,rank,stratum,ticket']);
    expect(keys(pf.sample)).toEqual(keys(pf.replacements!));
    const northRanks = pf.replacements!.filter((x) => x.stratum === 'North').map((x) => x.rank);
    expect(northRanks.length).toBeGreaterThan(0);
    expect(northRanks).toEqual(northRanks.map((_, i) => n + 1 + i));
  });

  it('a forged beacon signature, a swapped sample ID, a proof for another commitment: each a failure at the top', async () => {
    const forged = structuredClone(proof);
    const f = fakeChain({ seed: 5 }).sign(QUICKNET.round);
    Object.assign(forged.randomness, { signature: f.signature, randomness: f.randomness });
    const r1 = await report({ proof: forged, selectionPath: undefined });
    expect(r1.failures.map((x) => x.check)).toEqual(expect.arrayContaining(['beacon.signature', 'seed', 'tickets']));
    expect(r1.projects[0]!.verdict).toBe('mismatch');

    const swapped = structuredClone(proof);
    swapped.strata[1]!.sample[3]!.household_id = 'H1';
    const r2 = await report({ proof: swapped, selectionPath: undefined });
    expect(r2.failures).toEqual([
      expect.objectContaining({
        check: 'tickets',
        kind: 'integrity',
        message: expect.stringMatching(/stratum South rank 4: household "H1" has ticket .* recomputed from the seed/),
      }),
    ]);

    const other = structuredClone(commitment);
    other.committedAt = '2026-09-16T14:09:00.000Z';
    const r3 = await report({ commitment: other });
    expect(r3.failures.map((x) => x.check)).toContain('commitment');
    expect(r3.projects[0]!.selection!.proof!.matchesCommitment).toBe(false);
    expect(commitmentDigest(other)).not.toBe(proof.commitmentDigest);
  });

  it('the design recomputed and the trust rules in the report too', async () => {
    const edited = structuredClone(designJson);
    edited.stratification.strata[0]!.sampleSize = Math.floor(edited.stratification.strata[0]!.sampleSize / 3);
    const r1 = await report({ design: edited, commitment: undefined, proof: undefined, selectionPath: undefined });
    expect(r1.failures).toEqual([
      expect.objectContaining({
        check: 'design',
        message: expect.stringMatching(
          /stratification\.strata\[0\]\.sampleSize = \d+ does not follow from the design's own parameters/,
        ),
      }),
    ]);
    const r2 = await report({ publishedAt: undefined });
    expect(r2.failures).toEqual([expect.objectContaining({ check: 'published before round', kind: 'trust' })]);
    expect(r2.projects[0]!.verdict).toBe('untrusted');
  });

  it('the HTML: failures first in red, the method near the top, compact tickets, ER coverage as a percentage with its source, no script', async () => {
    const forged = structuredClone(proof);
    forged.seed = 'ab'.repeat(32);
    const r = await report({
      proof: forged,
      meanJustification: '<script>alert(1)</script>',
      sources: [parseSource('KPT|annex & co|https://x.org/?a=1&b=2')],
    });
    const html = renderHtml(r);
    expect(html).not.toMatch(/<script/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const at = (s: string) => html.indexOf(s);
    expect(at('class="failures"')).toBeGreaterThan(0);
    expect(at('class="failures"')).toBeLessThan(at('<section class="project"'));
    expect(html).toMatch(/<li><strong>P1 \[seed\]<\/strong> proof\.seed abab/);
    expect(at('Method: how to check this package without oraclekit')).toBeLessThan(at('<h3>Design</h3>'));
    expect(at('Independent recipe (Python 3')).toBeLessThan(at('<table class="sample">'));
    expect(html).toContain('ER coverage 90 % (1 − dropout rate (0.1); no erCoverage was given)');
    const t = proof.strata[0]!.sample[0]!.ticket;
    expect(html).toContain(`<code title="${t}">${t.slice(0, TICKET_PREFIX)}…</code>`);
    expect(html).not.toContain(`>${t}<`);
    expect(JSON.stringify(r)).toContain(t);
  });
});

describe("the design's provenance is committed and checked", () => {
  it("commit records the design file's provenance block; the package passes it for that design and names both when the design's differs", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'provenance-'));
    const frame = join(dir, 'households.csv');
    writeFileSync(
      frame,
      'household_id,stratum\n' +
        Array.from({ length: 400 }, (_, i) => `P${i},${i % 2 ? 'North' : 'South'}`).join('\n') +
        '\n',
    );
    const provenance = provenanceOf('9.8.7', new Date('2026-10-01T08:00:00Z'));
    const design = { ...computeDesign(stratifiedInput(400, NORTH_SOUTH_HALVES, { expectedSD: 1.3 })), provenance };
    const { commitment, publishedAt } = await commitForRealRound({ design: loadDesign(design), framePath: frame });
    expect(commitment.design.provenance).toEqual(provenance);
    const check = async (d: object) => {
      const r = await buildReport({
        generatedAt: new Date('2026-11-23T00:00:00Z'),
        projects: [{ projectId: 'P1', design: d, commitment, publishedAt }],
      });
      return r.projects[0]!.checks.find((c) => c.check === 'commitment.design.provenance');
    };
    const same = await check(design);
    expect(same).toMatchObject({ status: 'pass' });
    expect(same!.message).toContain('oraclekit 9.8.7, 95/5-relative-cdm-fpc/v1, generated 2026-10-01T08:00:00.000Z');
    // the same sizes (so the same designId) from another run of the tool: the commitment is not for this file
    const other = { ...design, provenance: provenanceOf('9.8.8', new Date('2026-10-02T08:00:00Z')) };
    const differs = await check(other);
    expect(differs).toMatchObject({ status: 'fail' });
    expect(differs!.message).toContain('"version":"9.8.7"');
    expect(differs!.message).toContain('"version":"9.8.8"');
    const { provenance: _dropped, ...bare } = design;
    expect((await check(bare))!.message).toMatch(/this project's design has none$/);
  });
});

describe("the package's headline tells missed precision and the realised dropout", () => {
  it('a stratum that misses ±5 % is a warning at the top with the interviews it needs or the conservative bound; the dropout is counted', async () => {
    const rows = readFileSync(join(import.meta.dirname, '../../../fixtures/r-survey/observations.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','))
      .map(([, v, s], i) => ({ value: i % 11 === 0 ? null : Number(v), stratum: s! }));
    const design = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    const r = await buildReport({
      generatedAt: new Date('2026-11-27T00:00:00Z'),
      projects: [{ projectId: 'p', design, observations: { kind: 'monitoring', values: rows } }],
    });
    const p = r.projects[0]!;
    const top = p.findings.filter((f) => f.severity === 'warning').map((f) => f.message);
    expect(top[0]).toMatch(/^stratum \w+: the monitoring observations achieve ±\d+\.\d\d %, not ±5 %/);
    const biomass = top.find((m) => m.startsWith('stratum biomass: the monitoring observations achieve'))!;
    expect(biomass).toMatch(
      /requires \d+ more completed interviews \(\d+ in all at the observed CV\), or the conservative bound/,
    );
    expect(top.some((m) => m.startsWith('stratum electric: the monitoring observations achieve'))).toBe(true);
    // 180 / 160 / 100 rows for n_h 196 / 646 / 784: the households without a row could be either, so nothing is counted
    const dd = p.supporting.observations!.dropout!;
    expect(dd.basis).toBe('marked');
    expect(dd.strata).toEqual([]);
    expect(dd.notCounted.map((x) => x.stratum)).toEqual(['lpg', 'biomass', 'electric']);
    expect(top).toContain(dd.notCounted[1]!.statement);
    expect(r.generator.version).toMatch(/^\d+\.\d+\.\d+/);
    const html = renderHtml(r);
    expect(html).toContain(`by oraclekit ${r.generator.version}`);
    expect(html).not.toContain('No check failed.</strong> Each project');
    expect(html).toMatch(
      /No check failed, but \d+ findings below need the verifier&#39;s decision|No check failed, but \d+ findings below need the verifier's decision/,
    );
    expect(html).toContain('Realised dropout, per stratum');
  });
});

describe('the headline ER coverage', () => {
  it("is the realised one (completed / sampled) once monitoring data count it, with the design's assumption beside it", async () => {
    const design = computeDesign({ population: 800, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 });
    const n = design.parameters.adjustedSize;
    // every sampled household has a row; one in four is marked not completed
    const values = Array.from({ length: n }, (_, i) => ({
      household: `H${i}`,
      value: i % 4 === 0 ? null : 1.5 + (i % 7) / 7,
    }));
    const completed = values.filter((v) => v.value !== null).length;
    const build = (observations?: { kind: 'monitoring'; values: typeof values }) =>
      buildReport({
        generatedAt: new Date('2026-11-27T00:00:00Z'),
        projects: [{ projectId: 'p', design, ...(observations ? { observations } : {}) }],
      });
    const planned = (await build()).projects[0]!;
    expect(planned.erCoverage).toMatchObject({ fraction: 0.9, percent: '90 %', basis: 'design' });
    const r = await build({ kind: 'monitoring', values });
    const p = r.projects[0]!;
    expect(p.erCoverage.basis).toBe('realised');
    expect(p.erCoverage.fraction).toBe(completed / n);
    expect(p.erCoverage.source).toBe(
      `realised: ${completed} completed of ${n} sampled households (rows); the design assumed 90 %`,
    );
    expect(p.erCoverage.designed).toMatchObject({ fraction: 0.9, percent: '90 %' });
    expect(renderHtml(r)).toContain(`ER coverage ${p.erCoverage.percent} (realised: ${completed} completed of ${n}`);
  });
});

describe('the printed package', () => {
  it('the commands name the files as given, with the recalculation for monitoring observations', async () => {
    const design = computeDesign({ population: 800, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 });
    const r = await buildReport({
      generatedAt: new Date(0),
      projects: [
        {
          projectId: 'KE-001',
          design,
          files: { design: 'designs/ke 001.json', observations: 'field/period-1.csv' },
          observations: { kind: 'monitoring', values: [{ value: 1 }, { value: 2 }, { value: null }] },
        },
      ],
    });
    expect(r.projects[0]!.method.commands).toEqual([
      "oraclekit sample calc --input 'designs/ke 001.json' --explain   # recomputes the design from its own record: the sizes above",
      "oraclekit sample recalc --previous 'designs/ke 001.json' --observations field/period-1.csv",
      "oraclekit sample report --design 'designs/ke 001.json' --observations field/period-1.csv --observations-kind monitoring --out package.html",
    ]);
  });

  it('has page numbers and the project id on each page, a place for the conclusion, and numbers that do not wrap', async () => {
    const design = computeDesign({ population: 800, expectedMean: 2, expectedSD: 1, dropoutRate: 0.1 });
    const r = await buildReport({
      title: 'T "quoted"',
      generatedAt: new Date('2026-11-27T00:00:00Z'),
      projects: [{ projectId: 'KE-001', design }],
    });
    const html = renderHtml(r);
    expect(html).toContain('@bottom-right{content:"page " counter(page) " of " counter(pages)');
    expect(html).toContain('@bottom-left{content:"KE-001 — T \\"quoted\\""');
    expect(html).toContain("<h3>Verifier's conclusion — KE-001</h3>");
    expect(html).toContain('td.n,td.r{overflow-wrap:normal;word-break:keep-all}');
  });
});
