/**
 * The package's field data, tried as an independent verifier would: a 15,000-household frame in three strata
 * (7,500 / 4,500 / 3,000) generated here, a commitment for a real drand round, its draw, and field data generated
 * from the draw (sampled households with and without rows, replacements in and out of rank order, households
 * that were not drawn, IDs not in the frame). The figures are compared with R's survey package on the same rows
 * (test/fixtures/r-survey/survey-field.R, its inputs and its output; the test checks that the inputs are the rows
 * it generates). R is not needed to run this test.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeDesign, Z_95 } from '../../../../src/lib/sampling/design.ts';
import { achievedPrecision, meanSd } from '../../../../src/lib/sampling/recalc.ts';
import { buildReport } from '../../../../src/lib/report/model.ts';
import type { Observation } from '../../../../src/lib/report/observations.ts';
import { loadDesign } from '../../../../src/lib/selection/design.ts';
import type { Commitment, Proof } from '../../../../src/lib/selection/records.ts';
import { drawSelection } from '../../../../src/lib/selection/workflow.ts';
import { commitForRealRound, QUICKNET } from '../../../helpers/real-rounds.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const R_DIR = join(import.meta.dirname, '../../../fixtures/r-survey');
const STRATA = [
  { name: 'lpg', households: 7500, base: 1.4, spread: 2.4 },
  { name: 'biomass', households: 4500, base: 0.6, spread: 2.4 },
  { name: 'electric', households: 3000, base: 0.4, spread: 2 },
];

/** The frame: HH-00001 … HH-15000, the strata in blocks. */
function frameCsv(): string {
  const rows = ['household_id,stratum'];
  let k = 0;
  for (const s of STRATA)
    for (let i = 0; i < s.households; i++) rows.push(`HH-${String(++k).padStart(5, '0')},${s.name}`);
  return rows.join('\n') + '\n';
}

/** Hours of use of a household, a formula of its number (two decimals, exact as R reads it). */
function hours(id: string): number {
  const k = Number(id.slice(3));
  const s = STRATA[k <= 7500 ? 0 : k <= 12000 ? 1 : 2]!;
  return Number((s.base + (((k * 37) % 101) / 100) * s.spread).toFixed(2));
}

/** Each stratum's drawn order, read back from selection.csv (stratum, rank, role, household_id, …). */
function orderOf(selectionPath: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(selectionPath, 'utf8').trim().split('\n').slice(1)) {
    const [stratum, , , id] = line.split(',');
    (out.get(stratum!) ?? out.set(stratum!, []).get(stratum!)!).push(id!);
  }
  return out;
}

interface Drawn {
  commitment: Commitment;
  proof: Proof;
  selectionPath: string;
  publishedAt: Date;
  design: ReturnType<typeof computeDesign>;
  order: Map<string, string[]>;
}

async function draw(dir: string, population: number, accept = false): Promise<Drawn> {
  const framePath = join(dir, 'households.csv');
  writeFileSync(framePath, frameCsv());
  const design = computeDesign(stratifiedInput(population, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
  const out = join(dir, `draw-${population}`);
  mkdirSync(out);
  const c = await commitForRealRound({
    design: loadDesign(design),
    framePath,
    ...(accept ? { acceptPopulationMismatch: true } : {}),
  });
  const r = await drawSelection({
    commitment: c.commitment,
    framePath,
    randomness: { beacon: QUICKNET },
    outDir: out,
    now: new Date(),
  });
  return {
    commitment: c.commitment,
    proof: r.proof,
    selectionPath: r.selectionPath,
    publishedAt: c.publishedAt,
    design,
    order: orderOf(r.selectionPath),
  };
}

const n = (d: Drawn, s: string) => d.commitment.strata.find((x) => x.name === s)!.sampleSize;
const row = (household: string, stratum: string, value: number | null = hours(household)): Observation => ({
  household,
  value,
  stratum,
});

/**
 * Field data for the 15,000-household design: lpg marks 18 sampled households NA and visits the first 18
 * replacements in rank order, plus 5 households far down its list (not drawn); biomass has no row for one sampled
 * household in 11 and three rows naming lpg; electric marks 20 NA and visits replacements 2..21, skipping the
 * first (out of rank order); 30 rows are of households not in the frame.
 */
function fieldData(d: Drawn): { rows: Observation[]; drawn: Observation[] } {
  const rows: Observation[] = [];
  const drawn: Observation[] = [];
  const add = (o: Observation, used: boolean) => {
    rows.push(o);
    if (used) drawn.push(o);
  };
  const lpg = d.order.get('lpg')!;
  for (let i = 0; i < n(d, 'lpg'); i++) add(row(lpg[i]!, 'lpg', i % 11 === 0 ? null : hours(lpg[i]!)), true);
  for (let j = 0; j < 18; j++) add(row(lpg[n(d, 'lpg') + j]!, 'lpg'), true);
  for (let j = 40; j < 45; j++) add(row(lpg[n(d, 'lpg') + j]!, 'lpg'), false);
  const bio = d.order.get('biomass')!;
  for (let i = 0; i < n(d, 'biomass'); i++) {
    if (i % 11 === 5) continue;
    add(row(bio[i]!, i < 3 ? 'LPG' : 'biomass'), true);
  }
  const el = d.order.get('electric')!;
  for (let i = 0; i < n(d, 'electric'); i++) add(row(el[i]!, 'electric', i < 20 ? null : hours(el[i]!)), true);
  for (let j = 1; j <= 20; j++) add(row(el[n(d, 'electric') + j]!, 'electric'), false);
  for (let i = 0; i < 30; i++) add({ household: `XX-${i}`, value: 2 + (i % 3), stratum: 'electric' }, false);
  return { rows, drawn };
}

/** The rows R reads: household,value,stratum,N (completed rows only). */
function rInput(rows: Observation[], N: Map<string, number>): string {
  const out = ['household,value,stratum,N'];
  for (const o of rows) if (o.value !== null) out.push(`${o.household},${o.value},${o.stratum},${N.get(o.stratum!)}`);
  return out.join('\n') + '\n';
}

/** Writes the R input (when UPDATE_R_INPUTS=1) or checks that the committed one is exactly these rows. */
function expectRInput(file: string, text: string): void {
  if (process.env.UPDATE_R_INPUTS === '1') writeFileSync(join(R_DIR, file), text);
  expect(readFileSync(join(R_DIR, file), 'utf8'), `${file} is the rows this test generates`).toBe(text);
}

/** What survey-field.R printed: per case and group n, mean, SE and z·SE/mean, or R's error. */
function rOutput(): Map<string, { n: number; mean: number; se: number; precision: number; error: string }> {
  const rows = readFileSync(join(R_DIR, 'survey-field-output.csv'), 'utf8').trim().split('\n').slice(1);
  return new Map(
    rows.map((l) => {
      const [kase, group, nn, mean, se, precision, ...error] = l.split(',');
      return [
        `${kase}/${group}`,
        {
          n: Number(nn),
          mean: Number(mean),
          se: Number(se),
          precision: Number(precision),
          error: error.join(','),
        },
      ];
    }),
  );
}

const close = (a: number, b: number) => expect(Math.abs(a - b) / Math.abs(b), `${a} vs ${b}`).toBeLessThan(1e-10);

let dir: string;
let genuine: Drawn;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'field-data-'));
  genuine = await draw(dir, 15000);
}, 60_000);

const report = (d: Drawn, values: Observation[], over: { includeUndrawn?: boolean; draw?: boolean } = {}) =>
  buildReport({
    generatedAt: new Date('2026-12-01T00:00:00Z'),
    projects: [
      {
        projectId: 'KE-015',
        design: d.design,
        ...(over.draw === false
          ? {}
          : { commitment: d.commitment, proof: d.proof, selectionPath: d.selectionPath, publishedAt: d.publishedAt }),
        observations: {
          kind: 'monitoring',
          values,
          ...(over.includeUndrawn ? { includeUndrawn: true } : {}),
        },
      },
    ],
  });

describe('field data are tied to the drawn sample', () => {
  it('each row is matched by household ID: not in the frame, not drawn, out of rank order, another stratum — counted and listed, and only drawn households count', async () => {
    const { rows, drawn } = fieldData(genuine);
    const r = await report(genuine, rows);
    const p = r.projects[0]!;
    expect(r.failures).toEqual([]);
    const o = p.supporting.observations!;
    expect(o.populations).toBe('frame');
    const m = o.draw!;
    expect(m.rule).toBe('drawn households only');
    expect(m.rows).toBe(rows.length);
    expect(m.notInFrame).toEqual(Array.from({ length: 30 }, (_, i) => `XX-${i}`));
    const lpg = genuine.order.get('lpg')!;
    expect(m.notDrawn).toEqual(lpg.slice(n(genuine, 'lpg') + 40, n(genuine, 'lpg') + 45));
    const el = genuine.order.get('electric')!;
    expect(m.outOfOrder).toEqual(el.slice(n(genuine, 'electric') + 1, n(genuine, 'electric') + 21));
    expect(m.otherStratum.map((x) => [x.stated, x.frame])).toEqual([
      ['LPG', 'biomass'],
      ['LPG', 'biomass'],
      ['LPG', 'biomass'],
    ]);
    expect(m.strata.map((s) => [s.stratum, s.sampleWithoutRow, s.replacementsUsed])).toEqual([
      ['lpg', 0, 18],
      ['biomass', Math.ceil((n(genuine, 'biomass') - 5) / 11), 0],
      ['electric', 0, 0],
    ]);
    expect(m.used).toBe(drawn.length);
    const top = p.findings.filter((f) => f.severity === 'warning').map((f) => f.message);
    expect(top).toContain(
      `30 of ${rows.length} monitoring observations are of households not in the frame at all: "XX-0", "XX-1", "XX-2", "XX-3", "XX-4", … (30 in all, listed in the JSON) — left out of every figure`,
    );
    expect(top.some((t) => t.startsWith('20 monitoring observations are of replacements used out of rank order'))).toBe(
      true,
    );
    expect(top.some((t) => t.startsWith('5 monitoring observations are of frame households that were not drawn'))).toBe(
      true,
    );
    // the figures are those of the drawn households alone, at the frame's N_h
    for (const s of STRATA) {
      const xs = drawn.filter(
        (x) => x.value !== null && (x.stratum === s.name || (s.name === 'biomass' && x.stratum === 'LPG')),
      );
      const g = o.stats.find((x) => x.group === s.name)!;
      const want = meanSd(xs.map((x) => x.value!));
      expect(g.n).toBe(xs.length);
      expect(g.mean).toBe(want.mean);
      expect(g.achievedPrecision).toBe(achievedPrecision(xs.length, s.households, want.mean, want.sd));
    }
    // a file of households not in the frame gives nothing a verifier could take for the genuine figures
    const foreign = rows.map((x, i) => ({ ...x, household: `ZZ-${i}` }));
    const f = (await report(genuine, foreign)).projects[0]!;
    expect(f.supporting.observations!.draw!.notInFrame).toHaveLength(rows.length);
    expect(f.supporting.observations!.stats).toEqual([]);
    const ftop = f.findings.filter((x) => x.severity === 'warning').map((x) => x.message);
    for (const s of STRATA)
      expect(ftop).toContain(`stratum ${s.name}: no completed monitoring observation — its precision was not checked`);
  });

  it('includeUndrawn counts every frame household with a row, and the package records it; a household not in the frame never counts', async () => {
    const { rows } = fieldData(genuine);
    const r = await report(genuine, rows, { includeUndrawn: true });
    const m = r.projects[0]!.supporting.observations!.draw!;
    expect(m.rule).toBe('every frame household (includeUndrawn)');
    expect(m.used).toBe(rows.length - 30);
    expect(JSON.stringify(r)).toContain('every frame household (includeUndrawn)');
  });

  it("the figures equal R survey's svymean on the drawn households with the frame's N_h", async () => {
    const { rows, drawn } = fieldData(genuine);
    const N = new Map(STRATA.map((s) => [s.name, s.households]));
    const used = drawn.map((x) => (x.stratum === 'LPG' ? { ...x, stratum: 'biomass' } : x));
    expectRInput('field-drawn.csv', rInput(used, N));
    const o = (await report(genuine, rows)).projects[0]!.supporting.observations!;
    const want = rOutput();
    for (const g of o.stats) {
      const w = want.get(`drawn/${g.group}`)!;
      expect(g.n).toBe(w.n);
      close(g.mean, w.mean);
      close(g.achievedPrecision!, w.precision);
    }
  });
});

describe('the dropout is counted against the drawn sample', () => {
  it("with the selection: a drawn household without a row is not completed (biomass's 9 %), never 0 %", async () => {
    const { rows } = fieldData(genuine);
    const dd = (await report(genuine, rows)).projects[0]!.supporting.observations!.dropout!;
    expect(dd.basis).toBe('selection');
    const nb = n(genuine, 'biomass');
    const missing = Math.ceil((nb - 5) / 11);
    expect(dd.strata.map((x) => [x.stratum, x.sampled, x.completed])).toEqual([
      ['lpg', n(genuine, 'lpg') + 18, n(genuine, 'lpg')],
      ['biomass', nb, nb - missing],
      ['electric', n(genuine, 'electric'), n(genuine, 'electric') - 20],
    ]);
    expect(dd.strata[1]!.rate).toBeGreaterThan(0.09);
  });

  it('without the selection: a stratum with fewer rows than n_h and no mark is said plainly, not given 0 %', async () => {
    const { rows } = fieldData(genuine);
    const p = (await report(genuine, rows, { draw: false })).projects[0]!;
    const dd = p.supporting.observations!.dropout!;
    expect(dd.strata.map((x) => x.stratum)).not.toContain('biomass');
    expect(dd.notCounted.map((x) => x.stratum)).toContain('biomass');
    const text = JSON.stringify(p.findings);
    expect(text).toContain('so its dropout is not counted (not 0 %)');
    expect(text).not.toMatch(/stratum biomass: realised dropout 0\.0 %/);
  });
});

describe('an accepted population mismatch is carried into every figure', () => {
  it("a design for N = 1,000 committed on the 15,000-household frame: precision, findings and the conservative bound use the frame's N_h", async () => {
    const d = await draw(dir, 1000, true);
    expect(d.commitment.populationMismatch?.accepted).toBe(true);
    expect(d.design.stratification.strata.map((s) => s.population)).toEqual([500, 300, 200]);
    const values: Observation[] = [];
    for (const s of STRATA) for (const id of d.order.get(s.name)!.slice(0, n(d, s.name))) values.push(row(id, s.name));
    const p = (await report(d, values)).projects[0]!;
    const o = p.supporting.observations!;
    expect(o.populations).toBe('frame');
    // at the design's N_h (500 / 300 / 200) biomass and electric would be "met"; at the frame's they miss
    for (const [i, s] of STRATA.entries()) {
      const g = o.stats.find((x) => x.group === s.name)!;
      expect(g.population).toBe(s.households);
      const designN = d.design.stratification.strata[i]!.population;
      expect(achievedPrecision(g.n, designN, g.mean, g.sd)).toBeLessThan(0.05);
      expect(g.achievedPrecision).toBeGreaterThan(achievedPrecision(g.n, designN, g.mean, g.sd));
    }
    expect(o.stats.filter((g) => g.meets95_5 === false).map((g) => g.group)).toEqual(['biomass', 'electric']);
    expect(o.overall!.population).toBe(15000);
    const N = new Map(STRATA.map((s) => [s.name, s.households]));
    expectRInput('field-mismatch.csv', rInput(values, N));
    const want = rOutput();
    for (const g of o.stats) {
      const w = want.get(`mismatch/${g.group}`)!;
      expect(g.n).toBe(w.n);
      close(g.achievedPrecision!, w.precision);
    }
    const top = p.findings.filter((f) => f.severity === 'warning').map((f) => f.message);
    for (const s of STRATA.slice(1)) {
      const g = o.stats.find((x) => x.group === s.name)!;
      expect(top).toEqual(
        expect.arrayContaining([
          expect.stringContaining(
            `stratum ${s.name}: the monitoring observations achieve ±${(g.achievedPrecision! * 100).toFixed(2)} %, not ±5 % (${g.n} completed of ${n(d, s.name)} planned, N = ${s.households})`,
          ),
        ]),
      );
      expect(g.achievedPrecision).toBe(achievedPrecision(g.n, s.households, g.mean, g.sd, Z_95));
    }
  });
});

describe('a design smaller than its own data', () => {
  it('more observations than households in a stratum: no precision, never "met", a headline finding naming both numbers; R refuses it', async () => {
    // a design for N = 1,000 (500 / 300 / 200) with 1,453 observations, 588 in the 300-household stratum
    const design = computeDesign(stratifiedInput(1000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    const ids = (s: (typeof STRATA)[number], count: number, from: number) =>
      Array.from({ length: count }, (_, i) => `HH-${String(from + i * 3).padStart(5, '0')}`).map((id) =>
        row(id, s.name),
      );
    const values = [...ids(STRATA[0]!, 392, 1), ...ids(STRATA[1]!, 588, 7501), ...ids(STRATA[2]!, 473, 12001)];
    expect(values).toHaveLength(1453);
    const N = new Map([
      ['lpg', 500],
      ['biomass', 300],
      ['electric', 200],
    ]);
    expectRInput('field-too-many.csv', rInput(values, N));
    expect(rOutput().get('too-many/error')!.error).toMatch(/popsize= 300 +sampsize= 588: FPC implies >100% sampling/);
    const r = await buildReport({
      generatedAt: new Date('2026-12-01T00:00:00Z'),
      projects: [{ projectId: 'p', design, observations: { kind: 'monitoring', values } }],
    });
    const p = r.projects[0]!;
    const o = p.supporting.observations!;
    const bio = o.stats.find((g) => g.group === 'biomass')!;
    expect(bio.achievedPrecision).toBeUndefined();
    expect(bio.meets95_5).toBe(false);
    expect(o.overall).toBeNull();
    const top = p.findings.filter((f) => f.severity === 'warning').map((f) => f.message);
    expect(top).toContain(
      'stratum biomass: 588 observations of 300 households: more observations than households, so no precision is stated (the data are not of this population, or the design is for a smaller one)',
    );
    expect(top.some((t) => t.startsWith('stratum electric: 473 observations of 200 households'))).toBe(true);
    expect(JSON.stringify(p.findings)).not.toContain('not every stratum has at least two');
    // the dropout is not capped at n_h
    expect(o.dropout!.notCounted.map((x) => x.stratum)).toEqual(['lpg', 'biomass', 'electric']);
  });
});

describe('nothing is "found clean" that was not checked', () => {
  const design = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
  const values = (stratum: string, count: number, value: (i: number) => number | null, from = 0) =>
    Array.from({ length: count }, (_, i) => ({ household: `${stratum}-${from + i}`, value: value(i), stratum }));
  const headline = async (vs: Observation[]) => {
    const r = await buildReport({
      generatedAt: new Date('2026-12-01T00:00:00Z'),
      projects: [{ projectId: 'p', design, observations: { kind: 'monitoring', values: vs } }],
    });
    const p = r.projects[0]!;
    return {
      warnings: p.findings.filter((f) => f.severity === 'warning').map((f) => f.message),
      infos: p.findings.filter((f) => f.severity === 'info').map((f) => f.message),
      p,
    };
  };

  it('observations of one stratum only: every other stratum is a headline finding', async () => {
    const { warnings } = await headline(values('lpg', 196, (i) => 2 + (i % 5) * 0.1));
    expect(warnings).toEqual(
      expect.arrayContaining([
        'stratum biomass: no completed monitoring observation — its precision was not checked',
        'stratum electric: no completed monitoring observation — its precision was not checked',
      ]),
    );
  });

  it('a file without a stratum column: a headline finding, not an info line', async () => {
    const vs = values('lpg', 300, (i) => 2 + (i % 5) * 0.1).map(({ household, value }) => ({ household, value }));
    const { warnings } = await headline(vs);
    expect(warnings).toContain(
      "the monitoring observations carry no stratum: no stratum's precision was checked, and their pooled mean is not an estimate for the stratified population",
    );
  });

  it('a stratum whose rows are all NA stays in view as a headline finding', async () => {
    const { warnings, p } = await headline([
      ...values('lpg', 196, (i) => 2 + (i % 5) * 0.1),
      ...values('biomass', 646, (i) => 1.2 + (i % 7) * 0.15),
      ...values('electric', 784, () => null),
    ]);
    expect(warnings).toContain('stratum electric: no completed monitoring observation — its precision was not checked');
    expect(p.supporting.observations!.overall).toBeNull();
  });

  it('"not every stratum has at least two observations" appears only when true: not for 187 zeros', async () => {
    const { infos, warnings, p } = await headline([
      ...values('lpg', 196, (i) => 2 + (i % 5) * 0.1),
      ...values('biomass', 646, (i) => 1.2 + (i % 7) * 0.15),
      ...values('electric', 187, () => 0),
    ]);
    expect(JSON.stringify([infos, warnings])).not.toContain('not every stratum has at least two');
    expect(infos).toContain(
      'stratum electric: all 187 observations are 0: the mean is 0 exactly for them (±0 in absolute terms); a precision relative to a mean of 0 does not exist',
    );
    expect(p.supporting.observations!.overall!.n).toBe(196 + 646 + 187);
    const one = await headline([
      ...values('lpg', 196, (i) => 2 + (i % 5) * 0.1),
      ...values('biomass', 646, (i) => 1.2 + (i % 7) * 0.15),
      ...values('electric', 1, () => 1.5),
    ]);
    expect(one.infos).toContain(
      'not every stratum has at least two monitoring observations: no overall (stratified) estimate',
    );
  });
});
