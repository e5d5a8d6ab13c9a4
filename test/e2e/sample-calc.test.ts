/** `oraclekit sample calc` and `sample recalc` through the real built CLI. */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { sample } from '../helpers/sample-cli.ts';
import { samplingCases } from '../helpers/spec.ts';

const ref = samplingCases();
const single = ['sample', 'calc', '--population', '8000', '--mean', '3.1', '--sd', '1.7', '--dropout', '0.1'];
const strat = [
  'sample',
  'calc',
  '-N',
  '15000',
  '--mean',
  '2',
  '--sd',
  '1',
  '--dropout',
  '0.08',
  '--stratum',
  'lpg=0.5:2.6:0.9',
  '--stratum',
  'biomass=0.3:1.8:1.2',
  '--stratum',
  'electric=0.2:1.4:1.1',
];
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ok-calc-'));
});

describe('sample calc outputs', () => {
  it('prints a readable table by default', async () => {
    const r = await runCli(single);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/adjustedSize \(households to sample\)\s+486/);
    expect(r.stdout).toMatch(/calculatedSize \(completed interviews\)\s+437/);
    expect(r.stdout).not.toContain('\u001b['); // no colours without a TTY
  });
  it('--json has the record parameters, stratification and intermediates', async () => {
    const r = await runCli([...single, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.parameters).toMatchObject({
      confidence: 0.95,
      precision: 0.05,
      population: 8000,
      calculatedSize: 437,
      adjustedSize: 486,
      dropoutRate: 0.1,
      erCoverage: 0.9,
      erCoverageSource: '1 - dropoutRate',
    });
    expect(j.intermediates).toEqual({
      z: 1.959963984540054,
      cv: 0.5483870967741935,
      n0: 462.09431807725366,
      n_fpc: 436.91210683231105,
    });
    expect(j.stratification).toEqual({ method: 'none', strata: [] });
  });
  it('--format csv is one table (a row per stratum and a total) that keeps the dropout and erCoverage', async () => {
    const r = await runCli([...strat, '--format', 'csv']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(
      'stratum,weight,population,mean,sd,cv,n0,n_fpc,calculatedSize,sampleSize,census,dropoutRate,erCoverage',
    );
    expect(lines[1]).toMatch(/^lpg,0.5,7500,2.6,0.9,.*,180,196,false,0.08,0.92$/);
    expect(lines.at(-1)).toBe('total,1,15000,2,1,,,,1495,1626,false,0.08,0.92');
    // every line has the header's columns: no second table, no comment line
    expect(lines.every((l) => l.split(',').length === 13)).toBe(true);
    const one = await runCli([...strat, '--format', 'csv', '--compare']);
    expect(one.stdout.trim().split('\n')[0]).toBe(
      'allocation,stratum,N_h,n_h (completed),achieved ±% of mean,meets 5 %',
    );
    expect(one.stdout.trim().split('\n')).toHaveLength(10);
    const two = await runCli([...strat, '--format', 'csv', '--compare', '--explain', '--json']);
    expect(two.code).toBe(0); // --json carries everything
    const refused = await runCli([...strat, '--format', 'csv', '--compare', '--explain']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('[conflicting_parameters]');
    expect(refused.stderr).toContain('one of --explain, --compare, --sensitivity at a time with --format csv');
  });
  it('--format markdown gives Markdown tables', async () => {
    const r = await runCli([...strat, '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## Strata');
    expect(r.stdout).toMatch(/\| electric \| 0.2 \| 3000 \| 1.4 \| 1.1 \| .* \| 721 \| 784 \|/);
  });
  it('flags a census stratum', async () => {
    const r = await sample('calc', {
      population: '300',
      mean: '1',
      sd: '0.6',
      dropout: '0',
      stratum: ['big=0.92', 'small=0.08'],
    });
    expect(r.stdout).toMatch(/small\s+0.08\s+24 .* CENSUS/);
  });
  it('--explain shows the steps with their numbers', async () => {
    const r = await sample('calc', { population: '200000', mean: '1', sd: '0.453', dropout: '0.3', explain: true });
    expect(r.stdout).toContain('ceil(315 / (1 − 0.3)) = ceil(315 / (7/10)) = ceil(450)');
    expect(r.stdout).toContain('Levy & Lemeshow');
  });
  it('--compare labels the comparison and --sensitivity marks the information columns', async () => {
    const r = await runCli([...strat, '--compare', '--sensitivity', '--json']);
    const j = JSON.parse(r.stdout);
    expect(j.comparison.label).toMatch(/not a valid design/);
    expect(j.sensitivity.rows).toHaveLength(7);
    const t = await runCli([...strat, '--compare', '--sensitivity']);
    expect(t.stdout).toContain('COMPARISON ONLY');
    expect(t.stdout).toContain('90/10* (info)');
  });
  it('--compare on an unstratified design is a 400-class error', async () => {
    const r = await runCli([...single, '--compare']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--compare');
  });
  it('reads the API body from a file and from stdin; flags override the file', async () => {
    const c = ref.cases.find((x) => x.id === 'P-S02')!;
    const f = join(dir, 's02.json');
    writeFileSync(f, JSON.stringify({ ...c.input, projectId: 'did:ixo:entity:0123456789abcdef0123456789abcdef' }));
    const a = JSON.parse((await sample('calc', { input: f, json: true })).stdout);
    expect(a.parameters.adjustedSize).toBe(1626);
    const b = JSON.parse(
      (await runCli(['sample', 'calc', '--input', '-', '--json'], { input: JSON.stringify(c.input) })).stdout,
    );
    expect(b.stratification.strata.map((s: { sampleSize: number }) => s.sampleSize)).toEqual([196, 646, 784]);
    const o = JSON.parse((await sample('calc', { input: f, dropout: '0', json: true })).stdout);
    expect(o.parameters.adjustedSize).toBe(1495);
  });
  it('reproduces every reference case through the CLI', async () => {
    for (const c of ref.cases) {
      const r = await runCli(['sample', 'calc', '--input', '-', '--json'], { input: JSON.stringify(c.input) });
      expect(r.code, c.id).toBe(0);
      const j = JSON.parse(r.stdout);
      expect([j.parameters.calculatedSize, j.parameters.adjustedSize], c.id).toEqual([
        c.expected.calculatedSize,
        c.expected.adjustedSize,
      ]);
    }
  }, 60_000);
});

describe('sample calc errors: code, field, value, what is valid, exit code per class', () => {
  it('answers every reference error case with its code and class exit code', async () => {
    const exitFor: Record<number, number> = { 400: 3, 409: 4, 422: 5 };
    for (const c of ref.errors) {
      const r = await runCli(['sample', 'calc', '--input', '-', '--json'], { input: JSON.stringify(c.input) });
      expect(r.code, c.id).toBe(exitFor[c.status]);
      expect(r.stdout, c.id).toBe('');
      const body = JSON.parse(r.stderr);
      expect(body, c.id).toMatchObject({ statusCode: c.status, code: c.code });
      expect(body.field, c.id).toBeTruthy();
      expect(body.details.valid, c.id).toBeTruthy();
    }
  }, 60_000);
  it('400: names the flag, the value and what is valid', async () => {
    const r = await sample('calc', { population: '5000', mean: '1', sd: '0.5', dropout: '15' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('[invalid_dropout]');
    expect(r.stderr).toContain('--dropout');
    expect(r.stderr).toContain('15');
    expect(r.stderr).toContain('0.15');
  });
  it('400: a non-number flag value', async () => {
    const r = await sample('calc', { population: '5000', mean: 'three', sd: '0.5', dropout: '0.1', json: true });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'invalid_mean', field: '--mean', details: { value: 'three' } });
  });
  it('400: confidence other than 0.95', async () => {
    const r = await runCli([...single, '--confidence', '0.9']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('confidence_must_be_0.95');
  });
  it('409: weights that do not sum to 1', async () => {
    const r = await sample('calc', {
      population: '5000',
      mean: '1',
      sd: '0.5',
      dropout: '0.1',
      stratum: ['a=0.5', 'b=0.45'],
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('weights_do_not_sum_to_1');
    expect(r.stderr).toContain('0.95');
  });
  it('422: the sizes that did not fit', async () => {
    const r = await sample('calc', { population: '60', mean: '1', sd: '0.5', dropout: '0.25', json: true });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr).details).toMatchObject({ adjustedSize: 71, population: 60 });
  });
  it('409 errors say what is valid once', async () => {
    for (const st of [
      ['a=0.5', 'b=0.45'],
      ['a=0.5', ' A=0.5'],
    ]) {
      const r = await sample(
        'calc',
        { population: '5000', mean: '1', sd: '0.5', dropout: '0.1' },
        st.flatMap((x) => ['--stratum', x]),
      );
      expect(r.code).toBe(4);
      expect(r.stderr.match(/valid:/g), r.stderr).toHaveLength(1);
    }
  });
  it('a repeated single-value flag is refused with repeated_flag, on the fast path and through oclif', async () => {
    const fast = await runCli([...single, '--dropout', '0.2']);
    expect(fast.code).toBe(2);
    expect(fast.stdout).toBe('');
    expect(fast.stderr).toContain('[repeated_flag] --dropout is given twice ("0.1", then "0.2")');
    const json = await runCli([...single, '-N', '9000', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({
      statusCode: 400,
      code: 'repeated_flag',
      field: '--population',
      details: { value: ['8000', '9000'] },
    });
    // --save goes through oclif; the refusal comes before any registry is contacted
    const oclif = await runCli([
      ...single,
      '--dropout',
      '0.2',
      '--save',
      '--project',
      'did:ixo:entity:0123456789abcdef0123456789abcdef',
      '--registry',
      'http://127.0.0.1:9',
      '--json',
    ]);
    expect(oclif.code).toBe(2);
    expect(JSON.parse(oclif.stderr)).toMatchObject({ code: 'repeated_flag', field: '--dropout' });
    const recalc = await sample('recalc', { population: '100', mean: ['1', '2'], sd: '1' });
    expect(recalc.code).toBe(2);
    expect(recalc.stderr).toContain('[repeated_flag] --mean');
    // repeatable flags and repeated booleans stay as they were
    const ok = await runCli([...strat, '--explain', '--explain', '--json']);
    expect(ok.code).toBe(0);
  });
  it('extreme numbers: a census or 422, never exit 1', async () => {
    const big = await sample('calc', { population: '1000', mean: '1', sd: '1e308', dropout: '0.1', json: true });
    expect(big.code).toBe(5);
    expect(JSON.parse(big.stderr)).toMatchObject({
      code: 'insufficient_population',
      details: { calculatedSize: 1000, adjustedSize: 1112 },
    });
    const census = await sample('calc', { population: '1000', mean: '1e-300', sd: '1', dropout: '0' });
    expect(census.code).toBe(0);
    expect(census.stdout).toMatch(/expected mean\s+1e-300/);
    expect(census.stdout).toMatch(/n0 \(infinite population\)\s+> 1.8e308/);
    expect(census.stdout).toContain('census: sample every household');
    const inf = await sample('calc', { population: '1000', mean: '1', sd: '1e309', dropout: '0' });
    expect(inf.code).toBe(3);
    expect(inf.stderr).toContain('[invalid_sd] --sd = "1e309"');
  });
  it('usage errors exit 2', async () => {
    const r = await sample('calc', { 'no-such-flag': true });
    expect(r.code).toBe(2);
  });
  it('a missing file is file_not_found (exit 6), the code every sample command uses', async () => {
    const r = await sample('calc', { input: join(dir, 'nope.json'), json: true });
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'file_not_found', field: '--input' });
    const o = await sample('recalc', { population: '100', dropout: '0', observations: join(dir, 'no.csv') });
    expect(o.code).toBe(6);
    expect(o.stderr).toContain('[file_not_found]');
    const c = await sample('verify', { frame: 'f.csv', commitment: join(dir, 'no.json'), proof: 'p' });
    expect(c.code).toBe(6);
    expect(c.stderr).toContain('[file_not_found]');
    // the error names the flag, the path and what is missing
    expect(c.stderr).toContain(`--commitment ${JSON.stringify(join(dir, 'no.json'))}: no such file; valid:`);
    const d = await sample('select commit', { design: 'nope.json', frame: 'f.csv', out: join(dir, 'c.json') });
    expect(d.code).toBe(6);
    expect(d.stderr).toContain('--design "nope.json": no such file; valid:');
  });
  it('--input accepts the JSON that --json printed, and gives the same design', async () => {
    const first = await runCli([...strat, '--json']);
    const file = join(dir, 'design-out.json');
    writeFileSync(file, first.stdout);
    const again = await sample('calc', { input: file, json: true });
    expect(again.code).toBe(0);
    const { provenance: p1, ...a } = JSON.parse(first.stdout);
    const { provenance: p2, ...b } = JSON.parse(again.stdout);
    expect(b).toEqual(a);
    expect(p2.generatedAt >= p1.generatedAt).toBe(true);
  });
  it('the design JSON carries its provenance: the oraclekit version, the method version and when it was made', async () => {
    const before = new Date().toISOString();
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    const j = JSON.parse((await runCli([...strat, '--json'])).stdout);
    expect(j.provenance).toEqual({
      generator: { name: 'oraclekit', version },
      method: '95/5-relative-cdm-fpc/v1',
      generatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(j.provenance.generatedAt >= before && j.provenance.generatedAt <= new Date().toISOString()).toBe(true);
    const file = join(dir, 'prov.json');
    writeFileSync(file, JSON.stringify(j));
    const r = JSON.parse((await sample('recalc', { previous: file, mean: '2', sd: '1.1', json: true })).stdout);
    expect(r.design.provenance).toMatchObject({ generator: { version }, method: '95/5-relative-cdm-fpc/v1' });
  });
  it('a large population is echoed as typed; beyond 2^53 − 1 it is refused with the value as typed and the bound', async () => {
    const typed = await sample('calc', { population: '1e12', mean: '2', sd: '1', dropout: '0.08' });
    expect(typed.code).toBe(0);
    expect(typed.stdout).toMatch(/population \(N\)\s+1000000000000 \(typed 1e12\)/);
    const plain = await sample('calc', { population: '8000', mean: '2', sd: '1', dropout: '0.08' });
    expect(plain.stdout).not.toContain('typed');
    const recalc = await sample('recalc', { population: '2e6', mean: '2', sd: '1', dropout: '0.1' });
    expect(recalc.stdout).toMatch(/population \(N\)\s+2000000 \(typed 2e6\)/);
    for (const [value, above] of [
      ['12345678901234567890', true],
      ['9007199254740992', true],
      ['1.5', false],
    ] as const) {
      const r = await sample('calc', { population: value, mean: '2', sd: '1', dropout: '0.08', json: true });
      expect(r.code).toBe(3);
      const e = JSON.parse(r.stderr);
      expect(e).toMatchObject({ code: 'invalid_population', field: '--population', details: { value } });
      expect(e.details.valid).toMatch(/^an integer from 1 to 9007199254740991 \(2\^53 − 1/);
      expect(e.message.startsWith(`population (--population) = ${value} is invalid`)).toBe(true);
      expect(e.message.includes('is above the bound')).toBe(above);
    }
    // the same in a JSON --input: the number as the file writes it
    const body = (n: string) => `{"population": ${n}, "expectedMean": 2, "expectedSD": 1, "dropoutRate": 0.1}`;
    const big = await sample('calc', { input: '-', json: true }, [], { input: body('12345678901234567890') });
    expect(big.code).toBe(3);
    expect(JSON.parse(big.stderr)).toMatchObject({
      code: 'invalid_population',
      field: '--input population',
      details: { value: '12345678901234567890' },
    });
    const e12 = await sample('calc', { input: '-' }, [], { input: body('1e12') });
    expect(e12.stdout).toMatch(/population \(N\)\s+1000000000000 \(typed 1e12\)/);
  });

  it('a proportion says what ±5 % of p means in percentage points', async () => {
    const r = await sample('calc', { population: '5000', proportion: '0.7', dropout: '0.1' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('±5 % of p (relative): p = 0.7 ± 0.035, i.e. ±3.5 percentage points');
    expect(r.stdout).not.toContain('of the mean');
  });
  it('insufficient_population names the smallest population that fits', async () => {
    const r = await sample('calc', { population: '1', mean: '3.1', sd: '1.7', dropout: '0.1', json: true });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stderr).details.valid).toContain('a population of at least 57 households');
  });
});

describe('sample recalc', () => {
  const northSouth = () =>
    sample('calc', {
      population: '6000',
      mean: '1.2',
      sd: '0.5',
      dropout: '0.1',
      stratum: ['north=0.55', 'south=0.45'],
      json: true,
    });
  it('reports the new size, the change and the achieved precision', async () => {
    const prev = join(dir, 'prev.json');
    writeFileSync(prev, (await northSouth()).stdout);
    const obs = join(dir, 'obs.csv');
    const rows = ['household,value,stratum'];
    for (let i = 0; i < 260; i++) rows.push(`N${i},${(1 + (i % 7) * 0.1).toFixed(1)},north`);
    for (let i = 0; i < 250; i++) rows.push(`S${i},${(0.5 + (i % 9) * 0.2).toFixed(1)},south`);
    writeFileSync(obs, rows.join('\n'));
    const r = await sample('recalc', { previous: prev, observations: obs, json: true });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.previous.adjustedSize).toBe(545);
    expect(j.change.total.to).toBe(j.design.parameters.adjustedSize);
    expect(j.achieved.groups.map((g: { stratum: string }) => g.stratum)).toEqual(['north', 'south']);
    expect(j.achieved.overall).toMatchObject({ method: 'stratified', n: 510, population: 6000 });
    const t = await sample('recalc', { previous: prev, observations: obs });
    expect(t.stdout).toMatch(/overall \(stratified: Σ W_h x̄_h\)\s+510\s+6000/);
    expect(t.stdout).toMatch(/The sample size goes (up|down) by \d+: 545 → \d+\./);
    expect(t.stdout).toMatch(/Achieved precision (met|did NOT meet)/);
  });
  it('names the line and column of a bad CSV value', async () => {
    const r = await runCli(['sample', 'recalc', '-N', '100', '--dropout', '0', '--observations', '-', '--json'], {
      input: 'household,value\nA,1\nB,n/a\n',
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ code: 'invalid_observation', field: 'stdin:3 column 2 (value)' });
  });
  it('names an unknown stratum with its line', async () => {
    const prev = join(dir, 'prev2.json');
    writeFileSync(prev, (await northSouth()).stdout);
    const r = await runCli(['sample', 'recalc', '--previous', prev, '--observations', '-'], {
      input: 'household,value,stratum\nA,1,north\nB,2,west\n',
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('stdin:3 (stratum)');
    expect(r.stderr).toContain('west');
  });
});

describe('sample recalc says "met" only for what it checked', () => {
  const design = async (name: string) => {
    const file = join(dir, name);
    writeFileSync(file, (await runCli([...strat, '--json'])).stdout);
    return file;
  };
  it('a stratified design with observations that have no stratum column is refused, naming the file', async () => {
    const prev = await design('p-nostratum.json');
    const obs = join(dir, 'nostratum.csv');
    writeFileSync(
      obs,
      ['household,value', ...Array.from({ length: 50 }, (_, i) => `H${i},${2 + (i % 3) * 0.1}`)].join('\n'),
    );
    const r = await sample('recalc', { previous: prev, observations: obs });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('[missing_column]');
    expect(r.stderr).toContain('nostratum.csv:1');
    expect(r.stdout).not.toContain('met');
  });
  it('strata without observations are "not observed", never met: allMet false and exit 5', async () => {
    const prev = await design('p-partial.json');
    const obs = join(dir, 'partial.csv');
    const rows = ['household,value,stratum'];
    for (let i = 0; i < 300; i++) rows.push(`L${i},${2.6 + (i % 3) * 0.05},lpg`);
    writeFileSync(obs, rows.join('\n'));
    const t = await sample('recalc', { previous: prev, observations: obs });
    expect(t.code).toBe(5);
    expect(t.stdout).not.toMatch(/everywhere/);
    expect(t.stdout).toMatch(/biomass\s+0\s+4500\s+not observed\s+not checked/);
    expect(t.stdout).toContain('Not observed, so not checked: biomass, electric');
    expect(t.stdout).toMatch(/biomass: mean previous design, SD previous design \(carried over\)/);
    expect(t.stderr).toContain('[strata_not_observed]');
    const j = await sample('recalc', { previous: prev, observations: obs, json: true });
    expect(j.code).toBe(5);
    const out = JSON.parse(j.stdout);
    expect(out.achieved).toMatchObject({ allMet: false, notObserved: ['biomass', 'electric'] });
    expect(JSON.parse(j.stderr)).toMatchObject({ code: 'strata_not_observed' });
  });
  it('realised dropout from households marked NA, per stratum, in the table and the new design', async () => {
    const prev = await design('p-dropout.json');
    const obs = join(dir, 'dropout.csv');
    const rows = ['household;value;stratum'];
    for (let i = 0; i < 200; i++) rows.push(`L${i};${i % 10 === 0 ? 'NA' : `2,${6 + (i % 3)}`};lpg`);
    // a row for every sampled household (n_h 196 / 646 / 784), the non-completed ones marked
    for (let i = 0; i < 700; i++) rows.push(`B${i};${i % 5 === 0 ? '' : `1,${7 + (i % 3)}`};biomass`);
    for (let i = 0; i < 784; i++) rows.push(`E${i};1,${3 + (i % 3)};electric`);
    writeFileSync(obs, rows.join('\n'));
    const r = await sample('recalc', { previous: prev, observations: obs, json: true });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.dropout.overall).toMatchObject({ sampled: 1684, completed: 1524 });
    expect(j.design.parameters.dropoutRate).toBe(0.0951);
    const t = await sample('recalc', { previous: prev, observations: obs });
    expect(t.stdout).toMatch(/Realised dropout.*designed 8 %/);
    expect(t.stdout).toMatch(/biomass\s+700\s+560\s+20/);
    // the overall row's SD is said to be the population SD the strata imply, not an SD (n-1) of the pooled rows
    expect(t.stdout).toContain(
      "The overall row's SD is the population SD the strata imply, √([Σ (N_h − 1) s_h² + Σ N_h (x̄_h − x̄_st)²] / (N − 1)), not the SD of the pooled rows.",
    );
    // each stratum's sample uses its own realised rate (lpg 10 %, biomass 20 %, electric 0 %), not the overall 9.5 %
    const strata = j.design.stratification.strata;
    expect(strata.map((x: { dropoutRate: number }) => x.dropoutRate)).toEqual([0.1, 0.2, 0]);
    for (const x of strata) expect(x.sampleSize).toBe(Math.ceil(x.calculatedSize / (1 - x.dropoutRate) - 1e-9));
    expect(j.inputs.strata.map((x: { dropoutRate: string }) => x.dropoutRate)).toEqual([
      'realised dropout',
      'realised dropout',
      'realised dropout',
    ]);
    expect(t.stdout).toMatch(/lpg: mean observations, SD observations, dropout 0\.1 \(its realised rate/);
    expect(t.stdout).toMatch(/Strata[\s\S]*dropout[\s\S]*biomass .* 0\.2 /);
    // the new design is a valid --input (its strata's own rates carried) and recomputes to the same sizes
    const next = join(dir, 'next.json');
    writeFileSync(next, JSON.stringify(j.design));
    const again = JSON.parse((await sample('calc', { input: next, json: true })).stdout);
    expect(again.stratification.strata).toEqual(strata);
    // the CSV is one table: the new design's rows with the change, the achieved precision and the realised dropout
    const c = await sample('recalc', { previous: prev, observations: obs, format: 'csv' });
    const lines = c.stdout.trim().split('\n');
    const head = lines[0]!.split(',');
    expect(head).toEqual(
      expect.arrayContaining([
        'dropoutRate',
        'erCoverage',
        'previousSampleSize',
        'achievedPrecision',
        'realisedDropout',
      ]),
    );
    expect(lines).toHaveLength(5);
    expect(lines.every((l) => l.split(',').length === head.length)).toBe(true);
    const row = (name: string) =>
      Object.fromEntries(
        lines
          .find((l) => l.startsWith(`${name},`))!
          .split(',')
          .map((v, i) => [head[i], v]),
      );
    expect(row('biomass')).toMatchObject({
      dropoutRate: '0.2',
      sampled: '700',
      completed: '560',
      realisedDropout: '0.2',
    });
    // the new design's total: the dropout and erCoverage its strata's own rates imply, agreeing with its totals
    const total = row('total');
    expect(total).toMatchObject({ sampled: '1684', completed: '1524' });
    const d = Number(total.dropoutRate);
    expect(Math.abs(Number(total.sampleSize) * (1 - d) - Number(total.calculatedSize))).toBeLessThan(0.01);
    expect(Number(total.erCoverage)).toBeCloseTo(1 - d, 9);
  });
});

describe('help and version', () => {
  it('has help with examples for each command, and a version', async () => {
    const h = await sample('calc', { help: true });
    expect(h.stdout).toContain('EXAMPLES');
    expect(h.stdout).toContain('--stratum');
    const top = await runCli(['--help']);
    expect(top.stdout).toContain('sample');
    const v = await runCli(['--version']);
    expect(v.stdout).toMatch(/^oraclekit\/\d+\.\d+\.\d+/);
    const s = await runCli(['sample', '--help']);
    expect(s.stdout).toContain('sample recalc');
  });
});
