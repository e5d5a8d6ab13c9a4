/**
 * `sample report` through the built CLI: it re-runs every check and fails
 * (exit 10/11) on a forged or foreign proof unless --allow-failed; the HTML
 * opened in headless Chromium (/usr/bin/chromium or $CHROMIUM) at 1200 px
 * and printed to PDF; the independent Python recipe of the package run with
 * python3 on the same files.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { runCli } from '../helpers/cli.ts';
import { drawFlags, sample, selectionFiles } from '../helpers/sample-cli.ts';
import { commitForRealRound, QUICKNET, roundJson } from '../helpers/real-rounds.ts';
import { loadDesign } from '../../src/lib/selection/design.ts';
import { fakeChain } from '../unit/lib/beacon/fake-drand.ts';

const run = promisify(execFile);
// jsdom ships no types; only its DOM (typed by lib.dom) is used
const { JSDOM } = createRequire(import.meta.url)('jsdom') as {
  JSDOM: new (html: string) => { window: { document: Document } };
};
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'okit-report-e2e-'));
const F = selectionFiles(dir);
const { p } = F;
let publishedAt = '';

async function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'okit-chromium-'));
  const { stdout } = await run(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      ...args,
    ],
    { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

const report = (args: string[]) => sample('report', {}, args, { timeoutMs: 60_000 });

describe('sample report', () => {
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `headless Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
    const calc = await sample('calc', { population: '400', mean: '2.4', sd: '1.1', dropout: '0.1', json: true });
    expect(calc.code).toBe(0);
    writeFileSync(p('design-a.json'), calc.stdout);
    writeFileSync(
      p('design-b.json'),
      JSON.stringify({
        population: 3000,
        expectedMean: 1.8,
        expectedSD: 1.3,
        dropoutRate: 0.2,
        erCoverage: 0.75,
        stratification: {
          enabled: true,
          strata: [
            { name: 'Hills', weight: 0.3 },
            { name: 'Plains', weight: 0.7 },
          ],
        },
      }),
    );
    writeFileSync(
      p('frame.csv'),
      'household_id,adopter\n' + Array.from({ length: 400 }, (_, i) => `H${i + 1},${i % 3 ? 1 : 0}`).join('\n') + '\n',
    );
    writeFileSync(
      p('baseline.csv'),
      'household_id,value\n' +
        Array.from({ length: 40 }, (_, i) => `H${i + 1},${(2.4 + Math.cos(i) * 0.9).toFixed(3)}`).join('\n') +
        '\n',
    );
    // a baseline that says the Meru design is too small: CVs far above the assumed 0.72
    writeFileSync(
      p('baseline-b.csv'),
      'household,value,stratum\n' +
        Array.from(
          { length: 60 },
          (_, i) => `B${i},${(0.2 + (i % 6) ** 2 * 0.3).toFixed(2)},${i % 2 ? 'Hills' : 'plains'}`,
        ).join('\n') +
        '\n',
    );
    const c = await commitForRealRound({
      design: loadDesign(JSON.parse(calc.stdout)),
      framePath: p('frame.csv'),
      out: p('commitment.json'),
    });
    publishedAt = c.publishedAt.toISOString();
    writeFileSync(p('round.json'), roundJson(QUICKNET));
    const d = await sample('select draw', drawFlags(F, { 'out-dir': p('draw') }));
    expect(d.code).toBe(0);
    writeFileSync(
      p('projects.json'),
      JSON.stringify({
        title: 'Cookstove programme <2026>',
        projects: [
          {
            projectId: 'KE-001',
            name: 'Nyeri stoves',
            design: 'design-a.json',
            commitment: 'commitment.json',
            proof: 'draw/proof.json',
            selection: 'draw/selection.csv',
            frame: 'frame.csv',
            publishedAt,
            observations: 'baseline.csv',
            observationsKind: 'baseline',
            meanJustification: 'Kitchen performance test, 40 households, March 2026',
            sdCalculation: 'Sample SD of the KPT (n - 1)',
            sources: [
              'KPT 2026|Field report, annex 3|https://example.org/kpt',
              { label: 'CDM sampling guidelines', citation: 'EB 69 Annex 5' },
            ],
          },
          { projectId: 'KE-002', name: 'Meru stoves', design: 'design-b.json', observations: 'baseline-b.csv' },
        ],
      }),
    );
  });

  it('writes the HTML and the same content as JSON; every check passes; it renders in Chromium at 1200 px and prints to PDF', async () => {
    const r = await report(['--manifest', p('projects.json'), '--out', p('package.html'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const pkg = JSON.parse(r.stdout);
    expect(JSON.parse(readFileSync(p('package.json'), 'utf8'))).toEqual(pkg);
    expect(pkg.failures).toEqual([]);
    // what made the package, with which method, and when: in the JSON and on the page
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8'));
    expect(pkg.generator).toEqual({ name: 'oraclekit', version });
    expect(pkg.spec).toMatchObject({ samplingMethod: '95/5-relative-cdm-fpc/v1', selection: 'cookstove-sampling/v1' });
    expect(Date.now() - Date.parse(pkg.generatedAt)).toBeLessThan(120_000);
    expect(pkg.projects.map((x: { projectId: string; verdict: string }) => [x.projectId, x.verdict])).toEqual([
      ['KE-001', 'verified'],
      ['KE-002', 'design only'],
    ]);
    expect(pkg.projects[0].checks.map((c: { check: string }) => c.check)).toEqual(
      expect.arrayContaining([
        'design',
        'commitment',
        'beacon.signature',
        'published before round',
        'seed',
        'tickets',
        'selection.csv',
        'frame',
      ]),
    );
    expect(pkg.projects[1].erCoverage).toEqual({
      fraction: 0.75,
      percent: '75 %',
      source: 'given as an input of the design (erCoverage)',
      basis: 'design',
    });
    // the Meru baseline says its strata are too small
    expect(
      pkg.projects[1].findings
        .filter((f: { severity: string }) => f.severity === 'warning')
        .map((f: { message: string }) => f.message),
    ).toEqual([
      expect.stringMatching(
        /^stratum Hills: the design is too small for its own supporting data — CV assumed 0\.7222, observed [\d.]+ \(30 baseline observations\)/,
      ),
      expect.stringMatching(/^stratum Plains: the design is too small/),
    ]);

    const html = readFileSync(p('package.html'), 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(
      `Generated ${pkg.generatedAt} by oraclekit ${version}. Sizes by method 95/5-relative-cdm-fpc/v1`,
    );
    const dom = new JSDOM(await chromium(['--dump-dom', `file://${p('package.html')}`])).window.document;
    expect(dom.querySelector('h1')!.textContent).toBe('Cookstove programme <2026>');
    // no check failed, but the findings are the headline: never a bare "No check failed"
    expect(dom.querySelector('section.allgood')).toBeNull();
    expect(dom.querySelector('section.findings-top')!.textContent).toBe(
      "No check failed, but 2 findings below need the verifier's decision.",
    );
    // the design findings are summed up at the top too (amber), after the failures
    expect([...dom.querySelectorAll('section.findings-top li')].map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^KE-002 stratum Hills: the design is too small/),
      expect.stringMatching(/^KE-002 stratum Plains: the design is too small/),
    ]);
    expect(dom.querySelectorAll('section.project')).toHaveLength(2);
    const first = dom.querySelector('#project-1')!;
    for (const cls of [
      'checks',
      'explain',
      'parameters',
      'strata',
      'observations',
      'comparison',
      'commitment',
      'proof',
      'sample',
      'replacements',
    ])
      expect(first.querySelector(`table.${cls}`), cls).not.toBeNull();
    expect(first.querySelectorAll('table.sample tbody tr').length).toBe(pkg.projects[0].parameters.adjustedSize);
    expect(first.querySelectorAll('table.replacements tbody tr').length).toBe(pkg.projects[0].parameters.adjustedSize);
    expect(first.querySelector('pre.python')!.textContent).toContain('hmac.new(seed');
    const params = [...first.querySelectorAll('table.parameters tr')].map((tr) => tr.textContent);
    expect(
      params.some(
        (t) => t?.includes('ER coverage') && t.includes('90 % — 1 − dropout rate (0.1); no erCoverage was given'),
      ),
    ).toBe(true);
    expect(first.querySelectorAll('ol.sources li')).toHaveLength(2);
    const second = dom.querySelector('#project-2')!;
    expect(
      [...second.querySelectorAll('table.strata tbody tr')].map((tr) => tr.firstElementChild!.textContent),
    ).toEqual(['Hills', 'Plains']);
    expect(second.querySelectorAll('ul.findings li.warning')).toHaveLength(2);
    const charts = [...dom.querySelectorAll('svg.chart')];
    expect(charts).toHaveLength(2);
    expect(charts[0]!.querySelectorAll('path.series')).toHaveLength(4);
    expect([...charts[1]!.querySelectorAll('path.series')].map((s) => s.getAttribute('data-population'))).toEqual([
      '900',
      '2100',
    ]);

    await chromium([`--screenshot=${p('package.png')}`, '--window-size=1200,2400', `file://${p('package.html')}`]);
    expect(statSync(p('package.png')).size).toBeGreaterThan(20_000);
    await chromium(['--no-pdf-header-footer', `--print-to-pdf=${p('package.pdf')}`, `file://${p('package.html')}`]);
    const pdf = readFileSync(p('package.pdf'), 'latin1');
    expect(pdf.startsWith('%PDF-')).toBe(true);
    expect((pdf.match(/\/Type\s*\/Page\b/g) ?? []).length).toBeGreaterThanOrEqual(3);
    // printed: every page says its number and the project it belongs to (the front page names both)
    const { stdout: text } = await run('pdftotext', ['-layout', p('package.pdf'), '-'], { timeout: 60_000 });
    const feet = text.split('\f').filter((page) => page.trim() !== '');
    const foot = feet.map((page) => page.trim().split('\n').at(-1)!.trim().replace(/\s+/g, ' '));
    expect(foot[0]).toBe(`KE-001, KE-002 — Cookstove programme <2026> page 1 of ${feet.length}`);
    const owner = foot.slice(1).map((f) => /^(KE-00\d) — /.exec(f)?.[1]);
    expect(owner).toEqual([...owner].sort());
    expect(new Set(owner)).toEqual(new Set(['KE-001', 'KE-002']));
    foot.forEach((f, i) => expect(f.endsWith(`page ${i + 1} of ${feet.length}`)).toBe(true));
    // the project's conclusion box is on one of its own pages
    const conclusion = feet.findIndex((page) => page.includes("Verifier's conclusion — KE-002"));
    expect(owner[conclusion - 1]).toBe('KE-002');
  });

  it("the package's Python recipe re-derives the same selection and observation table with the standard library, on the files as the manifest names them", async () => {
    const pkg = JSON.parse(readFileSync(p('package.json'), 'utf8'));
    writeFileSync(p('recipe.py'), pkg.projects[0].method.python);
    const { stdout } = await run('python3', ['recipe.py', 'package.json'], { cwd: dir, timeout: 60_000 });
    const proof = JSON.parse(readFileSync(p('draw/proof.json'), 'utf8'));
    expect(stdout).toContain(
      `all sample: ${proof.strata[0].sample.map((s: { household_id: string }) => s.household_id).join(' ')}\n`,
    );
    expect(stdout).toContain(
      'OK: frame file, frameHash, seed, sample and replacement order of every stratum recomputed\n',
    );
    // the baseline observations' table, compared with the package's
    const g = pkg.projects[0].supporting.observations.stats[0];
    expect(stdout).toContain(`all n = ${g.n} of N = ${g.population} `);
    expect(stdout).toMatch(/OK: the package's observation table recomputed from baseline\.csv\n$/);
  });

  it('the Commands box names the paths that were really used, and each command it gives runs as given', async () => {
    const pkg = JSON.parse(readFileSync(p('package.json'), 'utf8'));
    const cmds: string[] = pkg.projects[0].method.commands;
    expect(cmds).toEqual([
      '# in the folder of ' + p('projects.json') + ': the paths are the ones it gives, relative to that folder',
      'oraclekit sample calc --input design-a.json --explain   # recomputes the design from its own record: the sizes above',
      `oraclekit sample verify --frame frame.csv --commitment commitment.json --proof draw/proof.json --selection draw/selection.csv --published-at ${publishedAt}`,
      'oraclekit sample report --manifest projects.json --out package.html',
    ]);
    // run each one in the manifest's folder, as the box says (the report into a fresh folder)
    for (const line of cmds.filter((l) => l.startsWith('oraclekit '))) {
      const args = line
        .replace(/\s+#.*$/, '')
        .split(' ')
        .slice(1);
      if (args[1] === 'report') args.splice(args.indexOf('package.html'), 1, p('again/package.html'));
      mkdirSync(p('again'), { recursive: true });
      const r = await runCli(args, { cwd: dir, timeoutMs: 60_000 });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    // one project from flags: the paths exactly as typed, relative ones kept relative
    const one = await runCli(
      [
        'sample',
        'report',
        '--design',
        'design-a.json',
        '--commitment',
        'commitment.json',
        '--proof',
        'draw/proof.json',
        '--selection',
        'draw/selection.csv',
        '--published-at',
        publishedAt,
        '--out',
        'flags.html',
        '--json',
      ],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout).projects[0].method.commands.at(-1)).toBe(
      `oraclekit sample report --design design-a.json --commitment commitment.json --proof draw/proof.json --selection draw/selection.csv --published-at ${publishedAt} --out package.html`,
    );
  });

  it('a forged beacon signature or a swapped sample ID: red at the top and exit 10; --allow-failed exits 0 and still shows it', async () => {
    const forged = JSON.parse(readFileSync(p('draw/proof.json'), 'utf8'));
    const f = fakeChain({ seed: 9 }).sign(QUICKNET.round);
    Object.assign(forged.randomness, { signature: f.signature, randomness: f.randomness });
    writeFileSync(p('proof-forged.json'), JSON.stringify(forged));
    const base = ['--design', p('design-a.json'), '--commitment', p('commitment.json'), '--published-at', publishedAt];
    const r = await report([...base, '--proof', p('proof-forged.json'), '--out', p('forged.html')]);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      /^FAILED project-1 \[beacon\.signature\] proof\.randomness\.signature does not verify for round 32254977/m,
    );
    expect(r.stderr).toMatch(
      /check\(s\) failed; shown in red at the top of the package\. Exit 10; --allow-failed to exit 0\./,
    );
    const html = readFileSync(p('forged.html'), 'utf8');
    expect(html.indexOf('<section class="failures">')).toBeLessThan(html.indexOf('<section class="project"'));
    expect(html).toMatch(/<li><strong>project-1 \[beacon\.signature\]<\/strong>/);
    const allowed = await report([
      ...base,
      '--proof',
      p('proof-forged.json'),
      '--out',
      p('forged2.html'),
      '--allow-failed',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toMatch(/--allow-failed: exit 0/);

    const swapped = JSON.parse(readFileSync(p('draw/proof.json'), 'utf8'));
    const inSample = new Set(swapped.strata[0].sample.map((x: { household_id: string }) => x.household_id));
    swapped.strata[0].sample[2].household_id = ['H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'H7'].find((h) => !inSample.has(h));
    writeFileSync(p('proof-swapped.json'), JSON.stringify(swapped));
    const s = await report([...base, '--proof', p('proof-swapped.json'), '--out', p('swapped.html')]);
    expect(s.code).toBe(10);
    expect(s.stderr).toMatch(/FAILED project-1 \[tickets\] stratum all rank 3: household "H\d" has ticket/);
  });

  it('a proof for another commitment, a commitment for another design: exit 10 (no longer "NO" with exit 0)', async () => {
    const other = JSON.parse(readFileSync(p('commitment.json'), 'utf8'));
    other.committedAt = '2026-09-16T14:00:00.000Z';
    writeFileSync(p('commitment-other.json'), JSON.stringify(other));
    const r = await report([
      '--design',
      p('design-a.json'),
      '--commitment',
      p('commitment-other.json'),
      '--proof',
      p('draw/proof.json'),
      '--published-at',
      publishedAt,
      '--out',
      p('other.html'),
      '--json',
    ]);
    expect(r.code).toBe(10);
    const pkg = JSON.parse(r.stdout);
    expect(pkg.failures.map((x: { check: string }) => x.check)).toEqual(['commitment']);
    expect(pkg.projects[0].selection.proof.matchesCommitment).toBe(false);
    const m = await report([
      '--design',
      p('design-b.json'),
      '--commitment',
      p('commitment.json'),
      '--out',
      p('mm.html'),
    ]);
    expect(m.code).toBe(10);
    expect(m.stderr).toMatch(
      /FAILED project-1 \[commitment\.designId\] the commitment is for design sha256:[0-9a-f]+; this project's design is sha256:/,
    );
  });

  it('without the publication time the randomness is untrusted: exit 11', async () => {
    const r = await report([
      '--design',
      p('design-a.json'),
      '--commitment',
      p('commitment.json'),
      '--proof',
      p('draw/proof.json'),
      '--out',
      p('untrusted.html'),
    ]);
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^UNTRUSTED project-1 \[published before round\]/m);
  });

  it('one project from flags, and errors naming the file and line', async () => {
    const ok = await report([
      '--design',
      p('design-a.json'),
      '--observations',
      p('baseline.csv'),
      '--source',
      'KPT 2026',
      '--out',
      p('single.html'),
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/project-1: n = \d+ of N = 400, ER coverage 90 %; no selection; design only/);
    writeFileSync(p('bad-obs.csv'), 'household_id,value\nH1,1.2\nH2,abc\n');
    const bad = await report([
      '--design',
      p('design-a.json'),
      '--observations',
      p('bad-obs.csv'),
      '--out',
      p('bad.html'),
    ]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/\[invalid_observation\] bad-obs\.csv:3 column 2 \(value\)/);
    const when = await report([
      '--design',
      p('design-a.json'),
      '--published-at',
      '16/09/2026',
      '--out',
      p('when.html'),
    ]);
    expect(when.code).toBe(3);
    expect(when.stderr).toMatch(/\[invalid_published_at\] /);
  });
});
