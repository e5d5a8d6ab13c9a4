/**
 * docs/recipes/recalc.R — recalc's observation table with R's survey package, the public-tools check the docs
 * give — run with Rscript on a design and observations generated here, against recalculate's own numbers. R is a
 * Debian package (r-base-core, r-cran-survey, r-cran-jsonlite); where Rscript is not installed the test is skipped
 * and says so.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { computeDesign, type Design } from '../../../../src/lib/sampling/design.ts';
import { parseObservationsCsv, recalculate } from '../../../../src/lib/sampling/recalc.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const SCRIPT = join(import.meta.dirname, '../../../../docs/recipes/recalc.R');
const run = promisify(execFile);
const hasR = (() => {
  try {
    execFileSync('Rscript', ['-e', 'suppressMessages({library(survey); library(jsonlite)})'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasR) console.warn('recalc-r-script: Rscript with survey and jsonlite is not installed; the R recipe is not run');

const dir = mkdtempSync(join(tmpdir(), 'recalc-r-'));

/** Runs the recipe on the design and the CSV text; its table by group, or R's error. */
async function recipe(design: Design, csv: string, name: string) {
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(design));
  writeFileSync(join(dir, `${name}.csv`), csv);
  const { stdout } = await run('Rscript', [SCRIPT, `${name}.json`, `${name}.csv`], { cwd: dir, timeout: 60_000 });
  const rows = stdout.trim().split('\n').slice(1);
  return new Map(
    rows.map((l) => {
      const [group, n, mean, sd, se, precision] = l.split(',');
      return [
        group!,
        { n: Number(n), mean: Number(mean), sd: Number(sd), se: Number(se), precision: Number(precision) },
      ];
    }),
  );
}

const close = (a: number, b: number) => expect(Math.abs(a - b) / Math.abs(b), `${a} vs ${b}`).toBeLessThan(1e-10);

/**
 * household,value,stratum: a formula of the row number, one in 9 not completed (NA), strata in mixed case; no
 * stratum column for the one population "all".
 */
function observations(counts: Record<string, number>, semicolons = false): string {
  const sep = semicolons ? ';' : ',';
  const strata = !('all' in counts);
  const out = [['household', 'value', ...(strata ? ['stratum'] : [])].join(sep)];
  let k = 0;
  for (const [stratum, count] of Object.entries(counts))
    for (let i = 0; i < count; i++) {
      k++;
      const v = (0.4 + ((k * 37) % 101) / 40 + stratum.length / 10).toFixed(2);
      out.push(
        [
          `H${k}`,
          k % 9 === 0 ? 'NA' : semicolons ? v.replace('.', ',') : v,
          ...(strata ? [i % 7 === 0 ? stratum.toUpperCase() : stratum] : []),
        ].join(sep),
      );
    }
  return out.join('\n') + '\n';
}

function expectSame(design: Design, csv: string, table: Awaited<ReturnType<typeof recipe>>): void {
  const res = recalculate({ previous: design, observations: parseObservationsCsv(csv, 'obs.csv') });
  for (const g of res.achieved!.groups) {
    const w = table.get(g.stratum)!;
    expect(w.n, g.stratum).toBe(g.n);
    close(g.mean!, w.mean);
    close(g.sd!, w.sd);
    close(g.precision!, w.precision);
  }
  const o = res.achieved!.overall;
  if (o) {
    const w = table.get('overall')!;
    expect(w.n).toBe(o.n);
    close(o.mean, w.mean);
    close(Math.sqrt(o.variance), w.se);
    close(o.precision, w.precision);
  } else expect(table.has('overall')).toBe(false);
}

describe.skipIf(!hasR)("docs/recipes/recalc.R reproduces recalc's observation table with R's survey", () => {
  it('a stratified design: every stratum and the stratified overall, to 10 significant digits', async () => {
    const design = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    const csv = observations({ lpg: 196, biomass: 646, electric: 784 });
    expectSame(design, csv, await recipe(design, csv, 'stratified'));
  }, 60_000);

  it('a semicolon file with decimal commas, and a design of one population', async () => {
    const design = computeDesign({ population: 8000, expectedMean: 3.1, expectedSD: 1.7, dropoutRate: 0.1 });
    const csv = observations({ all: 300 }, true);
    const table = await recipe(design, csv, 'simple');
    expect([...table.keys()]).toEqual(['all']);
    expectSame(design, csv, table);
  }, 60_000);

  it('more rows than households in a stratum: refused by both', async () => {
    const design = computeDesign(stratifiedInput(1000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
    const csv = observations({ lpg: 392, biomass: 588, electric: 100 });
    expect(() => recalculate({ previous: design, observations: parseObservationsCsv(csv, 'obs.csv') })).toThrow(
      /biomass/,
    );
    await expect(recipe(design, csv, 'too-many')).rejects.toThrow(/stratum biomass: 588 rows for 300 households/);
  }, 60_000);
});
