import { describe, expect, it } from 'vitest';
import {
  achievedPrecision,
  meanSd,
  parseObservationsCsv,
  recalculate,
  stratifiedEstimate,
} from '../../../../src/lib/sampling/recalc.ts';
import { computeDesign, Z_95 } from '../../../../src/lib/sampling/design.ts';
import { OracleKitError } from '../../../../src/lib/errors.ts';
import { COOKSTOVE_STRATA, NORTH_SOUTH_55_45, stratifiedInput } from '../../../helpers/sampling-designs.ts';

function err(fn: () => unknown): OracleKitError {
  try {
    fn();
  } catch (e) {
    if (e instanceof OracleKitError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const prevStrat = computeDesign(stratifiedInput(6000, NORTH_SOUTH_55_45, { expectedMean: 1.2, expectedSD: 0.5 }));
const prevSingle = computeDesign({ population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 });

describe('mean, SD (n − 1) and achieved precision', () => {
  it('computes the textbook values', () => {
    const s = meanSd([2, 4, 4, 4, 5, 5, 7, 9]);
    expect(s.mean).toBe(5);
    expect(s.sd).toBeCloseTo(Math.sqrt(32 / 7), 14);
  });
  it('r = z·s/(x̄·√n)·√(1 − n/N)', () => {
    const r = achievedPrecision(400, 8000, 3, 1.5);
    expect(r).toBeCloseTo(((Z_95 * 1.5) / (3 * 20)) * Math.sqrt(1 - 400 / 8000), 15);
    expect(achievedPrecision(10, 10, 1, 1)).toBe(0); // a census has no sampling error
  });
});

describe('recalculate', () => {
  it('goes down when the observed CV is lower, and says by how much', () => {
    const r = recalculate({ previous: prevSingle, mean: 3.4, sd: 1.5 });
    expect(r.design.parameters.adjustedSize).toBe(
      computeDesign({ population: 8000, expectedMean: 3.4, expectedSD: 1.5, dropoutRate: 0.1 }).parameters.adjustedSize,
    );
    expect(r.change!.total).toMatchObject({ from: 486, direction: 'down' });
    expect(r.change!.total.delta).toBe(r.design.parameters.adjustedSize - 486);
  });
  it('goes up with a higher dropout', () => {
    const r = recalculate({ previous: prevSingle, dropoutRate: 0.2 });
    expect(r.change!.total).toMatchObject({ from: 486, to: Math.ceil(437 / 0.8), direction: 'up' });
  });
  it('keeps the previous strata populations and applies per-stratum observations', () => {
    const r = recalculate({ previous: prevStrat, strata: [{ name: 'NORTH ', mean: 1.0, sd: 0.6 }] });
    const [north, south] = r.design.stratification.strata;
    expect(north).toMatchObject({ name: 'north', population: 3300, mean: 1.0, sd: 0.6 });
    expect(south).toMatchObject({ name: 'south', population: 2700, mean: 1.2, sd: 0.5, sampleSize: 270 });
    expect(r.change!.strata[1]).toMatchObject({ name: 'south', direction: 'unchanged', delta: 0 });
  });
  it('a stratified overall is Σ W_h x̄_h with V = Σ W_h² (1 − n_h/N_h) s_h²/n_h, not the pooled observations', () => {
    // unequal observation shares: 10 of 3300 in north, 40 of 2700 in south
    const rows = ['household,value,stratum'];
    for (let i = 0; i < 40; i++) rows.push(`S${i},${(0.6 + (i % 5) * 0.1).toFixed(1)},south`);
    for (let i = 0; i < 10; i++) rows.push(`N${i},${(2 + (i % 2) * 0.4).toFixed(1)},north`);
    const obs = parseObservationsCsv(rows.join('\n'));
    const r = recalculate({ previous: prevStrat, observations: obs });
    // the table comes in the design's order, not the observations'
    expect(r.achieved!.groups.map((g) => g.stratum)).toEqual(['north', 'south']);
    const n = meanSd(obs.filter((o) => o.stratum === 'north').map((o) => o.value!));
    const s = meanSd(obs.filter((o) => o.stratum === 'south').map((o) => o.value!));
    const pooled = meanSd(obs.map((o) => o.value!)).mean;
    const o = r.achieved!.overall!;
    expect(o.method).toBe('stratified');
    expect(o.mean).toBeCloseTo(0.55 * n.mean + 0.45 * s.mean, 14);
    expect(o.mean).not.toBeCloseTo(pooled, 2);
    const V = (0.55 ** 2 * (1 - 10 / 3300) * n.sd ** 2) / 10 + (0.45 ** 2 * (1 - 40 / 2700) * s.sd ** 2) / 40;
    expect(o.variance).toBeCloseTo(V, 15);
    expect(o.precision).toBeCloseTo((Z_95 * Math.sqrt(V)) / o.mean, 14);
    expect(o.n).toBe(50);
    // the new design's overall mean is the stratified one
    expect(r.design.parameters.expectedMean).toBe(o.mean);
    // and the stratified estimator by itself
    const e = stratifiedEstimate([
      { population: 100, n: 100, mean: 2, sd: 1 },
      { population: 300, n: 10, mean: 4, sd: 2 },
    ]);
    expect(e.mean).toBe(3.5);
    expect(e.variance).toBeCloseTo((0.75 ** 2 * (1 - 10 / 300) * 4) / 10, 15); // a census stratum adds nothing
  });

  it('summarises raw observations per stratum and reports the achieved precision', () => {
    const rows = ['household,value,stratum'];
    for (let i = 0; i < 300; i++) rows.push(`N${i},${1 + (i % 5) * 0.1},north`);
    for (let i = 0; i < 10; i++) rows.push(`S${i},${1 + (i % 2)},south`);
    const obs = parseObservationsCsv(rows.join('\n'));
    const r = recalculate({ previous: prevStrat, observations: obs });
    const north = r.achieved!.groups.find((g) => g.stratum === 'north')!;
    const expected = meanSd(obs.filter((o) => o.stratum === 'north').map((o) => o.value!));
    expect(north).toMatchObject({ n: 300, population: 3300, mean: expected.mean, sd: expected.sd });
    expect(north.precision).toBe(achievedPrecision(300, 3300, expected.mean, expected.sd));
    expect(north.met).toBe(true);
    expect(r.achieved!.groups.find((g) => g.stratum === 'south')!.met).toBe(false);
    expect(r.achieved!.allMet).toBe(false);
    expect(r.design.stratification.strata[0]!.mean).toBe(expected.mean);
  });
  it('needs a population without a previous design', () => {
    expect(err(() => recalculate({ mean: 1, sd: 1, dropoutRate: 0 })).code).toBe('missing_parameter');
  });
  it('rejects an unknown stratum in observations with its line', () => {
    const obs = parseObservationsCsv('household,value,stratum\nA,1,north\nB,2,east\nC,3,north');
    const e = err(() => recalculate({ previous: prevStrat, observations: obs }));
    expect(e.code).toBe('unknown_stratum');
    expect(e.field).toContain(':3');
  });
  it('refuses a stratum column against an unstratified design', () => {
    const obs = parseObservationsCsv('household,value,stratum\nA,1,x\nB,2,x');
    expect(err(() => recalculate({ previous: prevSingle, observations: obs })).code).toBe('unknown_stratum');
  });
  it('needs two observations for an SD', () => {
    const obs = parseObservationsCsv('household,value\nA,1');
    expect(err(() => recalculate({ population: 100, dropoutRate: 0, observations: obs })).code).toBe(
      'too_few_observations',
    );
  });
  it('rejects a file that is not a design', () => {
    expect(err(() => recalculate({ previous: { hello: 1 } as never })).code).toBe('invalid_previous');
  });
});

describe('observations CSV', () => {
  it('accepts any column order, quotes, CRLF and a BOM', () => {
    const o = parseObservationsCsv('\ufeffvalue,"household",note\r\n1.5,"HH,1",x\r\n2,HH2,"multi\nline"\r\n');
    expect(o).toEqual([
      { line: 2, household: 'HH,1', value: 1.5, file: 'observations' },
      { line: 3, household: 'HH2', value: 2, file: 'observations' },
    ]);
  });
  it('names the line and column of a non-numeric value', () => {
    const e = err(() => parseObservationsCsv('household,value\nA,1\nB,2 h\n', 'p1.csv'));
    expect(e.code).toBe('invalid_observation');
    expect(e.field).toBe('p1.csv:3 column 2 (value)');
    expect(e.value).toBe('2 h');
  });
  it('malformed CSV is invalid_observation with the line', () => {
    const e = err(() => parseObservationsCsv('household,value\nA,1\n"B,2\n', 'p1.csv'));
    expect(e.code).toBe('invalid_observation');
    expect(e.field).toBe('p1.csv:3');
  });
  it('names a missing column', () => {
    const e = err(() => parseObservationsCsv('household,hours\nA,1\n', 'p1.csv'));
    expect(e.code).toBe('missing_column');
    expect(e.message).toContain('value');
  });
  it('refuses a household observed twice, naming both lines', () => {
    const e = err(() => parseObservationsCsv('household,value\nA,1\nB,2\nA,3\n'));
    expect(e.code).toBe('duplicate_household');
    expect(e.message).toContain('line 2');
    expect(e.field).toContain(':4');
  });
});

const ceil4 = (x: number) => Math.ceil(x * 1e4 - 1e-9) / 1e4;
const three = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
const rowsOf = (stratum: string, n: number, value: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => `${stratum}-${i},${value(i)},${stratum}`);

describe('recalc never says "met" for what it did not check', () => {
  it('a stratified design needs the stratum column of the observations', () => {
    const obs = parseObservationsCsv('household,value\nA,1\nB,2\nC,3', 'period1.csv');
    const e = err(() => recalculate({ previous: three, observations: obs }));
    expect(e.code).toBe('missing_column');
    expect(e.field).toBe('period1.csv:1');
    expect(e.message).toContain('stratum');
  });

  it('a stratum without observations is "not observed": allMet is false and nothing is said to be met there', () => {
    const csv = ['household,value,stratum', ...rowsOf('lpg', 300, (i) => String(2 + (i % 5) * 0.1))].join('\n');
    const r = recalculate({ previous: three, observations: parseObservationsCsv(csv, 'p.csv') });
    const a = r.achieved!;
    expect(a.groups.map((g) => [g.stratum, g.observed, g.met])).toEqual([
      ['lpg', true, true],
      ['biomass', false, false],
      ['electric', false, false],
    ]);
    expect(a.notObserved).toEqual(['biomass', 'electric']);
    expect(a.allMet).toBe(false);
    expect(a.overall).toBeUndefined();
    expect(r.inputs.strata.map((s) => [s.stratum, s.mean])).toEqual([
      ['lpg', 'observations'],
      ['biomass', 'previous design'],
      ['electric', 'previous design'],
    ]);
  });

  it('--observed values are marked observed, the rest carried over from the previous design', () => {
    const r = recalculate({ previous: three, strata: [{ name: 'biomass', mean: 1.7 }] });
    expect(r.inputs.strata).toEqual([
      { stratum: 'lpg', mean: 'previous design', sd: 'previous design' },
      { stratum: 'biomass', mean: 'observed', sd: 'previous design' },
      { stratum: 'electric', mean: 'previous design', sd: 'previous design' },
    ]);
  });

  it('a stratum whose observations are all 0 gets a precision statement, not an error', () => {
    const csv = [
      'household,value,stratum',
      ...rowsOf('lpg', 200, (i) => String(2 + (i % 5) * 0.1)),
      ...rowsOf('biomass', 150, (i) => String(1.5 + (i % 3) * 0.2)),
      ...rowsOf('electric', 40, () => '0'),
    ].join('\n');
    const r = recalculate({ previous: three, observations: parseObservationsCsv(csv) });
    const el = r.achieved!.groups[2]!;
    expect(el).toMatchObject({
      stratum: 'electric',
      observed: true,
      n: 40,
      mean: 0,
      sd: 0,
      precision: null,
      met: true,
    });
    expect(el.statement).toContain('all 40 observations are 0');
    // the new design keeps the previous values for it, and says why
    expect(r.design.stratification.strata[2]).toMatchObject({ mean: 1.4, sd: 1.1 });
    expect(r.inputs.strata[2]!.note).toContain('mean 0');
  });

  it('an engine error about a stratum names the stratum and where its values came from, not a JSON path', () => {
    const e = err(() => recalculate({ previous: three, strata: [{ name: 'electric', mean: 0.01, sd: 5 }] }));
    expect(e.code).toBe('insufficient_population');
    expect(e.field).toBe('stratum electric');
    expect(e.message).toContain('from --observed');
    expect(e.message).not.toContain('stratification.strata');
  });
});

describe('observations: dropout, signs, semicolons, stratum names', () => {
  it('households marked not completed (empty or NA) give the realised dropout per stratum, used by the new design', () => {
    // n_h: lpg 196, biomass 646, electric 784; electric's 100 rows are fewer than its n_h and carry no mark
    const csv = [
      'household,value,stratum',
      ...rowsOf('lpg', 200, (i) => (i % 10 === 0 ? '' : String(2 + (i % 5) * 0.1))),
      ...rowsOf('biomass', 700, (i) => (i % 5 === 0 ? 'NA' : String(1.5 + (i % 3) * 0.2))),
      ...rowsOf('electric', 100, (i) => String(1 + (i % 4) * 0.3)),
    ].join('\n');
    const r = recalculate({ previous: three, observations: parseObservationsCsv(csv) });
    expect(r.dropout).toMatchObject({ basis: 'marked', designed: 0.08, overall: { sampled: 900, completed: 740 } });
    expect(r.dropout!.strata.map((s) => [s.stratum, s.sampled, s.completed])).toEqual([
      ['lpg', 200, 180],
      ['biomass', 700, 560],
    ]);
    expect(r.dropout!.overall.rate).toBeCloseTo(160 / 900, 12);
    expect(r.achieved!.groups[0]!.n).toBe(180);
    expect(r.design.parameters.dropoutRate).toBe(0.1778);
    expect(r.inputs.dropoutRate).toBe('realised dropout');
    // a typed dropout wins
    expect(
      recalculate({ previous: three, observations: parseObservationsCsv(csv), dropoutRate: 0.1 }).design.parameters
        .dropoutRate,
    ).toBe(0.1);
  });

  it('a stratum with fewer rows than its n_h and no mark is said plainly, never given 0 % dropout', () => {
    // the 15,000-household case: only lpg marks its 9 % non-completed; biomass and electric send completed rows only
    const csv = [
      'household,value,stratum',
      ...rowsOf('lpg', 196, (i) => (i % 11 === 0 ? 'NA' : String(2 + (i % 5) * 0.1))),
      ...rowsOf('biomass', 588, (i) => String(1.2 + (i % 7) * 0.15)),
      ...rowsOf('electric', 713, (i) => String(1 + (i % 4) * 0.3)),
    ].join('\n');
    const r = recalculate({ previous: three, observations: parseObservationsCsv(csv) });
    expect(r.dropout!.strata.map((s) => s.stratum)).toEqual(['lpg']);
    expect(r.dropout!.notCounted.map((x) => [x.stratum, x.rows, x.sampleSize])).toEqual([
      ['biomass', 588, 646],
      ['electric', 713, 784],
    ]);
    expect(r.dropout!.notCounted[0]!.statement).toContain('58 sampled households have no row');
    // they keep the previous 8 % allowance: biomass is not cut to its completed count
    const strata = r.design.stratification.strata;
    expect(strata.map((s) => s.dropoutRate)).toEqual([ceil4(18 / 196), 0.08, 0.08]);
    expect(r.inputs.strata.map((s) => s.dropoutRate)).toEqual([
      'realised dropout',
      'previous design',
      'previous design',
    ]);
    expect(strata[1]!.sampleSize).toBe(Math.ceil(strata[1]!.calculatedSize / 0.92));
  });

  it('more completed observations than n_h are said, not capped; more rows than households are refused', () => {
    const csv = ['household,value,stratum', ...rowsOf('lpg', 250, (i) => String(2 + (i % 5) * 0.1))].join('\n');
    const r = recalculate({ previous: three, observations: parseObservationsCsv(csv) });
    expect(r.dropout!.basis).toBe('design');
    expect(r.dropout!.strata).toEqual([]);
    expect(r.dropout!.notCounted[0]).toMatchObject({ stratum: 'lpg', completed: 250, sampleSize: 196 });
    expect(r.dropout!.notCounted[0]!.statement).toContain('250 completed observations, more than');

    // a design for N = 1,000 (500 / 300 / 200) with 1,453 observations, 588 of them in the 300-household stratum
    const small = computeDesign(stratifiedInput(1000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    expect(small.stratification.strata.map((s) => s.population)).toEqual([500, 300, 200]);
    const big = [
      'household,value,stratum',
      ...rowsOf('lpg', 196 * 2, (i) => String(2 + (i % 5) * 0.1)),
      ...rowsOf('biomass', 588, (i) => String(1.2 + (i % 7) * 0.15)),
      ...rowsOf('electric', 1453 - 392 - 588, (i) => String(1 + (i % 4) * 0.3)),
    ].join('\n');
    const e = err(() => recalculate({ previous: small, observations: parseObservationsCsv(big, 'period.csv') }));
    expect(e.code).toBe('more_observations_than_households');
    expect(e.status).toBe(422);
    expect(e.field).toBe('period.csv (stratum biomass)');
    expect(e.message).toContain('stratum biomass has 588 observation rows, but only 300 households');
  });

  it('a negative value is refused unless signed quantities are allowed', () => {
    const e = err(() => parseObservationsCsv('household,value\nA,1\nB,-2\n', 'p.csv'));
    expect(e).toMatchObject({ code: 'invalid_observation', field: 'p.csv:3 column 2 (value)' });
    expect(e.valid).toContain('--signed');
    expect(parseObservationsCsv('household,value\nA,1\nB,-2\n', 'p.csv', { signed: true })[1]!.value).toBe(-2);
  });

  it('reads a semicolon-separated file with decimal commas', () => {
    const o = parseObservationsCsv('household;value;stratum\nA;2,5;lpg\n"B;1";3;lpg\nC;;lpg\n', 'x.csv');
    expect(o.map((x) => [x.household, x.value, x.stratum])).toEqual([
      ['A', 2.5, 'lpg'],
      ['B;1', 3, 'lpg'],
      ['C', null, 'lpg'],
    ]);
  });

  it('matches stratum names by the rule of the frame: trimmed, ASCII letters case-insensitive, nothing else folded', () => {
    const d = computeDesign(
      stratifiedInput(
        4000,
        [
          { name: 'Straße', weight: 0.5 },
          { name: 'été', weight: 0.5 },
        ],
        { dropoutRate: 0 },
      ),
    );
    const ok = parseObservationsCsv('household,value,stratum\nA,1, STRAßE \nB,2,straße\nC,1,été\nD,2,été');
    expect(recalculate({ previous: d, observations: ok }).achieved!.groups.map((g) => g.n)).toEqual([2, 2]);
    const bad = parseObservationsCsv('household,value,stratum\nA,1,Straße\nB,2,ÉTÉ');
    expect(err(() => recalculate({ previous: d, observations: bad })).code).toBe('unknown_stratum');
  });
});

describe('the realised dropout of observations generated in another order than the design', () => {
  const prev = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
  /** A row for each of n_h sampled households, every `na`-th marked NA (never completed when na = 1). */
  const rows = (stratum: string, nh: number, na: number) =>
    Array.from(
      { length: nh },
      (_, i) => `${stratum}-${i},${i % na === 0 ? 'NA' : (1.2 + (i % 7) * 0.2).toFixed(1)},${stratum}`,
    );
  const nh = (name: string) => prev.stratification.strata.find((s) => s.name === name)!.sampleSize;

  it("the table follows the design's stratum order, whatever order the file lists the strata in", () => {
    const csv = [
      'household,value,stratum',
      ...rows('electric', nh('electric'), 10),
      ...rows('biomass', nh('biomass'), 12),
      ...rows('lpg', nh('lpg'), 9),
    ];
    const r = recalculate({ previous: prev, observations: parseObservationsCsv(csv.join('\n')) });
    expect(r.dropout!.strata.map((x) => x.stratum)).toEqual(['lpg', 'biomass', 'electric']);
    expect(r.achieved!.groups.map((g) => g.stratum)).toEqual(['lpg', 'biomass', 'electric']);
  });

  it('a stratum whose rows are all NA is named as having no completed row: not an invalid 100 % dropout', () => {
    const csv = [
      'household,value,stratum',
      ...rows('lpg', nh('lpg'), 9),
      ...rows('biomass', nh('biomass'), 12),
      ...rows('electric', nh('electric'), 1),
    ];
    const r = recalculate({ previous: prev, observations: parseObservationsCsv(csv.join('\n')) });
    expect(r.dropout!.strata.map((x) => x.stratum)).toEqual(['lpg', 'biomass']);
    expect(r.dropout!.notCounted).toEqual([
      expect.objectContaining({
        stratum: 'electric',
        statement: `stratum electric: none of its ${nh('electric')} rows is completed (every value empty or NA): it had no completed row, so its dropout is not counted and its precision was not checked`,
      }),
    ]);
    expect(r.achieved!.notObserved).toEqual(['electric']);
    // the new design keeps the previous rate for it
    expect(r.design.stratification.strata.find((s) => s.name === 'electric')!.dropoutRate ?? 0.08).toBe(0.08);
  });
});
