/**
 * Benchmark of `oraclekit sample select draw`: the whole
 * command — process start-up, parsing the commitment, verifying the beacon's
 * BLS signature, reading and hashing the frame, the tickets, the order, and
 * writing selection.csv and proof.json — on a generated frame of 3 strata,
 * side by side with bench/select-minimal.mjs (read the same CSV, 10^6
 * HMAC-SHA256 tickets with node:crypto, sort), interleaved in one run.
 * Target at 10^6: at most 1.2× the minimal script.
 *
 *   npm run build && node bench/select.ts                # 10^6 households, 5 rounds
 *   node bench/select.ts 1000000 7                       # size, rounds
 *   node bench/select.ts --phases 1000000                # in process, per phase (no start-up)
 *   BENCH_BIN=/path/to/other/bin/run.js node bench/select.ts   # time another build instead of this one
 *   BENCH_BEFORE=/path/to/other/bin/run.js node bench/select.ts  # before and after in one run, interleaved
 *
 * The beacon is a real quicknet round (test/fixtures/drand-rounds.json); the
 * commitment for it is made in process with the library's commitSelection,
 * its clock set before the round, as `sample select commit` made it then.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { knownChain, roundTime } from '../src/lib/beacon/drand.ts';
import { computeDesign } from '../src/lib/sampling/design.ts';
import { loadDesign } from '../src/lib/selection/design.ts';
import { hashFrame, readFrame, rowsByStratum } from '../src/lib/selection/frame.ts';
import { computeSeed } from '../src/lib/selection/hash.ts';
import { writeSelectionCsv } from '../src/lib/selection/output.ts';
import { selectFrame } from '../src/lib/selection/select.ts';
import { commitSelection } from '../src/lib/selection/workflow.ts';
import { quantile } from './stats.ts';

const ROOT = join(import.meta.dirname, '..');
const STRATA = ['North', 'South', 'East'];
const ROUND = (
  JSON.parse(readFileSync(join(ROOT, 'test/fixtures/drand-rounds.json'), 'utf8')) as {
    quicknet: { round: number; randomness: string; signature: string }[];
  }
).quicknet.find((r) => r.round === 32254977)!;

async function generate(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('household_id,stratum,adopter,village,phone\n');
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += `HH-${String(i).padStart(8, '0')},${STRATA[i % 3]},${i % 4 === 0 ? 0 : 1},"Village ${i % 997}, Ward ${i % 13}",+2547${String((i * 7919) % 1e8).padStart(8, '0')}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

function design(n: number) {
  return computeDesign({
    population: n,
    expectedMean: 2,
    expectedSD: 1.2,
    dropoutRate: 0.1,
    stratification: {
      enabled: true,
      // each stratum's share of the generated frame (row i is in stratum i % 3), so the design's N_h are the frame's
      strata: STRATA.map((name, i) => ({ name, weight: Math.ceil((n - i) / 3) / n })),
    },
  });
}

const median = (xs: number[]): number => quantile(xs, 0.5);

/** Wall time of a child process, and its CPU time (all threads) reported by bench/cpu-usage.mjs. */
function time(args: string[], env: Record<string, string> = {}): { ms: number; cpu: number; out: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', join(ROOT, 'bench/cpu-usage.mjs'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    maxBuffer: 1 << 26,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, cpu: Number([...r.stderr.matchAll(/cpu-usage-ms (\d+)/g)].pop()?.[1] ?? NaN), out: r.stdout };
}

async function sideBySide(n: number, rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'okit-bench-select-'));
  try {
    const frame = join(dir, 'frame.csv');
    await generate(frame, n);
    const chain = knownChain('quicknet')!;
    const now = new Date((roundTime(chain, ROUND.round) - 600) * 1000);
    const { commitment } = await commitSelection({
      design: loadDesign(design(n)),
      framePath: frame,
      chain,
      round: ROUND.round,
      delaySeconds: 0,
      now,
    });
    writeFileSync(join(dir, 'commitment.json'), JSON.stringify(commitment));
    writeFileSync(
      join(dir, 'round.json'),
      JSON.stringify({ round: ROUND.round, randomness: ROUND.randomness, signature: ROUND.signature }),
    );
    const seed = computeSeed(commitment.frame.frameHash, ROUND.randomness);
    const bin = process.env.BENCH_BIN ?? join(ROOT, 'bin/run.js');
    const before = process.env.BENCH_BEFORE;
    const draw = (k: number, b = bin) => [
      b,
      'sample',
      'select',
      'draw',
      '--commitment',
      join(dir, 'commitment.json'),
      '--frame',
      frame,
      '--beacon',
      join(dir, 'round.json'),
      '--out-dir',
      join(dir, `out-${k}`),
    ];
    const minimal = [join(ROOT, 'bench/select-minimal.mjs'), frame, seed];
    console.log(
      `node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}, load average before ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      `frame: ${n.toLocaleString('en')} households, 3 strata, ${(readFileSync(frame).length / 1e6).toFixed(1)} MB; selection.csv written each run; draw = ${bin}`,
    );
    // warm the page cache and V8's compile cache, as a second run would be
    time(draw(-1));
    time(minimal);
    if (before) time(draw(-2, before));
    const a: { ms: number; cpu: number }[] = [];
    const b: { ms: number; cpu: number }[] = [];
    const c: { ms: number; cpu: number }[] = [];
    for (let k = 0; k < rounds; k++) {
      if (before) {
        c.push(time(draw(k + 1000, before)));
        rmSync(join(dir, `out-${k + 1000}`), { recursive: true, force: true });
      }
      a.push(time(draw(k)));
      b.push(time(minimal));
      rmSync(join(dir, `out-${k}`), { recursive: true, force: true });
    }
    const show = (name: string, xs: { ms: number; cpu: number }[]) =>
      console.log(
        `${name}  wall ${xs.map((x) => x.ms.toFixed(0)).join(' ')} ms, median ${median(xs.map((x) => x.ms)).toFixed(0)} ms;  CPU median ${median(xs.map((x) => x.cpu)).toFixed(0)} ms`,
      );
    if (before) show(`before (${before})`, c);
    show('oraclekit sample select draw ', a);
    show('minimal script (node:crypto) ', b);
    const ma = median(a.map((x) => x.ms));
    const mb = median(b.map((x) => x.ms));
    console.log(
      `ratio draw / minimal: wall ${(ma / mb).toFixed(2)}, CPU ${(median(a.map((x) => x.cpu)) / median(b.map((x) => x.cpu))).toFixed(2)} (target <= 1.2)${before ? `; before / minimal: wall ${(median(c.map((x) => x.ms)) / mb).toFixed(2)}` : ''}; load average after ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function phases(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'okit-bench-select-'));
  try {
    const path = join(dir, 'frame.csv');
    await generate(path, n);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const frame = await readFrame(path, { strata: STRATA });
    const t1 = performance.now();
    const by = rowsByStratum(frame);
    const h = hashFrame(frame, by);
    const t2 = performance.now();
    const seed = computeSeed(h.frameHash, ROUND.randomness);
    const sizes = design(n).stratification.strata.map((s) => s.sampleSize);
    const sel = await selectFrame(frame, by, seed, sizes);
    const t3 = performance.now();
    const written = await writeSelectionCsv(join(dir, 'selection.csv'), path, frame, sel);
    const t4 = performance.now();
    const cpu = process.cpuUsage(c0);
    console.log(
      `${n} households in process: read ${(t1 - t0).toFixed(0)} ms, frameHash ${(t2 - t1).toFixed(0)} ms, tickets+order ${(t3 - t2).toFixed(0)} ms, write ${(t4 - t3).toFixed(0)} ms (${written.rows} rows); total ${(t4 - t0).toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args[0] === '--phases') await phases(Number(args[1] ?? 1e6));
else await sideBySide(Number(args[0] ?? 1e6), Number(args[1] ?? 5));
