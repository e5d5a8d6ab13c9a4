/**
 * `sample report` through the built CLI, and the HTML opened in headless
 * Chromium (/usr/bin/chromium or $CHROMIUM): the tables and the inline SVG
 * chart must render (the page's inline script records each chart's rendered
 * size and series count in data attributes, read back from --dump-dom).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { runCli } from '../helpers/cli.ts';

const run = promisify(execFile);
// jsdom ships no types; only its DOM (typed by lib.dom) is used
const { JSDOM } = createRequire(import.meta.url)('jsdom') as { JSDOM: new (html: string) => { window: { document: Document } } };
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'okit-report-e2e-'));
const p = (n: string): string => join(dir, n);

async function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'okit-chromium-'));
  const { stdout } = await run(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', `--user-data-dir=${profile}`, ...args,
  ], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

describe('sample report', () => {
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `headless Chromium is needed at ${CHROMIUM} (apt-get install -y chromium)`).toBe(true);
    const calc = await runCli(['sample', 'calc', '-N', '400', '--mean', '2.4', '--sd', '1.1', '--dropout', '0.1', '--json']);
    expect(calc.code).toBe(0);
    writeFileSync(p('design-a.json'), calc.stdout);
    writeFileSync(p('design-b.json'), JSON.stringify({ population: 3000, expectedMean: 1.8, expectedSD: 1.3, dropoutRate: 0.2, erCoverage: 0.75, stratification: { enabled: true, strata: [{ name: 'Hills', weight: 0.3 }, { name: 'Plains', weight: 0.7 }] } }));
    writeFileSync(p('frame.csv'), 'household_id,adopter\n' + Array.from({ length: 400 }, (_, i) => `H${i + 1},${i % 3 ? 1 : 0}`).join('\n') + '\n');
    writeFileSync(p('baseline.csv'), 'household_id,value\n' + Array.from({ length: 40 }, (_, i) => `H${i + 1},${(2.4 + Math.cos(i) * 0.9).toFixed(3)}`).join('\n') + '\n');
    const c = await runCli(['sample', 'select', 'commit', '--design', p('design-a.json'), '--frame', p('frame.csv'), '--out', p('commitment.json')]);
    expect(c.code).toBe(0);
    const d = await runCli(['sample', 'select', 'draw', '--commitment', p('commitment.json'), '--frame', p('frame.csv'), '--seed-hex', '5a'.repeat(32), '--out-dir', p('draw')]);
    expect(d.code).toBe(0);
    writeFileSync(p('projects.json'), JSON.stringify({
      title: 'Cookstove programme <2026>',
      projects: [
        {
          projectId: 'KE-001', name: 'Nyeri stoves', design: 'design-a.json', commitment: 'commitment.json', proof: 'draw/proof.json',
          observations: 'baseline.csv', observationsKind: 'baseline',
          meanJustification: 'Kitchen performance test, 40 households, March 2026', sdCalculation: 'Sample SD of the KPT (n - 1)',
          sources: ['KPT 2026|Field report, annex 3|https://example.org/kpt', { label: 'CDM sampling guidelines', citation: 'EB 69 Annex 5' }],
        },
        { projectId: 'KE-002', name: 'Meru stoves', design: 'design-b.json' },
      ],
    }));
  });

  it('writes the HTML and the same content as JSON; the page renders its tables and the SVG charts in Chromium', async () => {
    const r = await runCli(['sample', 'report', '--manifest', p('projects.json'), '--out', p('package.html'), '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(JSON.parse(readFileSync(p('package.json'), 'utf8'))).toEqual(report);
    expect(report.projects.map((x: { projectId: string }) => x.projectId)).toEqual(['KE-001', 'KE-002']);
    expect(report.projects[0].selection.proof.matchesCommitment).toBe(true);
    expect(report.projects[1].parameters.erCoverage).toBe(0.75);

    const dom = new JSDOM(await chromium(['--dump-dom', `file://${p('package.html')}`])).window.document;
    expect(dom.querySelector('h1')!.textContent).toBe('Cookstove programme <2026>');
    expect(dom.querySelectorAll('section.project')).toHaveLength(2);
    const first = dom.querySelector('#project-1')!;
    for (const cls of ['parameters', 'strata', 'observations', 'commitment', 'proof', 'sample']) expect(first.querySelector(`table.${cls}`), cls).not.toBeNull();
    const sampleRows = first.querySelectorAll('table.sample tbody tr');
    expect(sampleRows.length).toBe(report.projects[0].parameters.adjustedSize);
    const params = [...first.querySelectorAll('table.parameters tr')].map((tr) => tr.textContent);
    expect(params.some((t) => t?.includes('ER coverage') && t.includes('0.9 (1 - dropoutRate)'))).toBe(true);
    expect(first.querySelectorAll('ol.sources li')).toHaveLength(2);
    const second = dom.querySelector('#project-2')!;
    expect([...second.querySelectorAll('table.strata tbody tr')].map((tr) => tr.firstElementChild!.textContent)).toEqual(['Hills', 'Plains']);
    const charts = [...dom.querySelectorAll('svg.chart')];
    expect(charts).toHaveLength(2);
    for (const svg of charts) {
      expect(Number(svg.getAttribute('data-rendered-width'))).toBeGreaterThan(300);
      expect(Number(svg.getAttribute('data-rendered-height'))).toBeGreaterThan(150);
      expect(Number(svg.getAttribute('data-paths'))).toBeGreaterThanOrEqual(4);
      expect(svg.querySelectorAll('circle.mark').length).toBeGreaterThanOrEqual(1);
    }

    await chromium([`--screenshot=${p('package.png')}`, '--window-size=1100,1600', `file://${p('package.html')}`]);
    expect(statSync(p('package.png')).size).toBeGreaterThan(20_000);
  });

  it('one project from flags, and errors naming the file and line', async () => {
    const ok = await runCli(['sample', 'report', '--design', p('design-a.json'), '--observations', p('baseline.csv'), '--source', 'KPT 2026', '--out', p('single.html')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/project-1: n = \d+ of N = 400, ER coverage 0\.9; no selection/);
    writeFileSync(p('bad-obs.csv'), 'household_id,value\nH1,1.2\nH2,abc\n');
    const bad = await runCli(['sample', 'report', '--design', p('design-a.json'), '--observations', p('bad-obs.csv'), '--out', p('bad.html')]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/\[invalid_observation\] bad-obs\.csv:3 column 2 \(value\)/);
    const mismatch = await runCli(['sample', 'report', '--design', p('design-b.json'), '--commitment', p('commitment.json'), '--out', p('mm.html')]);
    expect(mismatch.code).toBe(3);
    expect(mismatch.stderr).toMatch(/the commitment is for design sha256:[0-9a-f]+, the project's design is sha256:/);
  });
});
