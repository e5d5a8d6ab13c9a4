/**
 * The sampling engine alone, as the daemon calls it per POST /v1/sampling
 * (issue #19 item 7): CPU time and heap allocated per design, for the bench
 * body of bench/registry.ts and for a stratified one. In process, no HTTP.
 *
 *   node bench/design-engine.ts [--tree <dir with src/>] [--calls 200000]
 *
 * Allocation is measured as the growth of the used heap over 10,000 calls
 * with a young generation large enough that no collection runs in between
 * (the script re-runs itself with --min/--max-semi-space-size=128). `--tree`
 * times another checkout's engine (before/after).
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: join(import.meta.dirname, '..') },
    calls: { type: 'string', default: '200000' },
    child: { type: 'boolean', default: false },
  },
});

if (!values.child) {
  const r = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--min-semi-space-size=128',
      '--max-semi-space-size=128',
      import.meta.filename,
      '--child',
      '--tree',
      resolve(values.tree),
      '--calls',
      values.calls,
    ],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}

type Engine = { computeDesign(x: unknown): unknown };
const engine = (await import(pathToFileURL(join(values.tree, 'src/lib/sampling/design.ts')).href)) as Engine;
const gc = (globalThis as { gc?: () => void }).gc!;
const CALLS = Number(values.calls);

const bodies = {
  'bench body (unstratified, dropout 0.15)': {
    projectId: 'did:example:bench',
    population: 5000,
    expectedMean: 2.5,
    expectedSD: 1.2,
    dropoutRate: 0.15,
  },
  'three strata, dropout 0.07': {
    population: 12000,
    expectedMean: 2.5,
    expectedSD: 1.2,
    dropoutRate: 0.07,
    stratification: {
      enabled: true,
      strata: [
        { name: 'north', weight: 0.5 },
        { name: 'south', weight: 0.3, sd: 1.5 },
        { name: 'east', weight: 0.2 },
      ],
    },
  },
};

const rows = [];
let sink: unknown;
for (const [name, body] of Object.entries(bodies)) {
  for (let i = 0; i < CALLS / 2; i++) sink = engine.computeDesign(body); // warm-up: optimised code
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) sink = engine.computeDesign(body);
  const us = Number(process.hrtime.bigint() - t0) / CALLS / 1000;
  gc();
  const h0 = v8.getHeapStatistics().used_heap_size;
  for (let i = 0; i < 10_000; i++) sink = engine.computeDesign(body);
  const bytes = (v8.getHeapStatistics().used_heap_size - h0) / 10_000;
  rows.push({ body: name, usPerDesign: Math.round(us * 100) / 100, bytesPerDesign: Math.round(bytes) });
}
void sink;
console.table(rows);
console.log(JSON.stringify({ tree: values.tree, calls: CALLS, rows }));
