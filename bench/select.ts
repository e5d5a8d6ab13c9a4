/**
 * Benchmark of `sample select` (cookstove-sampling/v1) for 10^4, 10^5 and
 * 10^6 households: streamed CSV parsing + frameHash + tickets + selection
 * ("core", the figure the issue bounds at 3 s for 10^6), then writing
 * selection.csv, and the peak RSS of the process. Each size runs in a fresh
 * child process so the peak memory is its own.
 *
 *   node bench/select.ts            # all three sizes
 *   node bench/select.ts 1000000    # one size
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { hashFrame, readFrame, rowsByStratum } from '../src/lib/selection/frame.ts';
import { computeSeed } from '../src/lib/selection/hash.ts';
import { selectFrame } from '../src/lib/selection/select.ts';
import { writeSelectionCsv } from '../src/lib/selection/output.ts';

const STRATA = ['North', 'South', 'East'];

async function generate(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('household_id,stratum,adopter,village,phone\n');
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += `HH-${String(i).padStart(8, '0')},${STRATA[i % 3]},${i % 4 === 0 ? 0 : 1},"Village ${i % 997}, Ward ${i % 13}",+2547${String(i * 7919 % 1e8).padStart(8, '0')}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

async function child(path: string, n: number): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const frame = await readFrame(path, { strata: STRATA });
  const t1 = performance.now();
  const by = rowsByStratum(frame);
  const h = hashFrame(frame, by);
  const t2 = performance.now();
  const seed = computeSeed(h.frameHash, 'ab'.repeat(32));
  const sizes = STRATA.map(() => Math.min(400, Math.floor(n / 3)));
  const sel = await selectFrame(frame, by, seed, sizes);
  const t3 = performance.now();
  const cpu = process.cpuUsage(c0);
  const written = writeSelectionCsv(path + '.selection.csv', path, frame, sel);
  const t4 = performance.now();
  const wcpu = process.cpuUsage(c0);
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ n, rows: frame.rows, read: t1 - t0, hash: t2 - t1, select: t3 - t2, core: t3 - t0, coreCpu: (cpu.user + cpu.system) / 1000, write: t4 - t3, writeCpu: (wcpu.user + wcpu.system - cpu.user - cpu.system) / 1000, written: written.rows, peakRssMB: maxRss / 1e6 }) + '\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1]!, Number(args[2]));
  const sizes = args.length > 0 ? args.map(Number) : [1e4, 1e5, 1e6];
  const dir = mkdtempSync(join(tmpdir(), 'okit-bench-select-'));
  try {
    console.log(`node ${process.version}, ${(await import('node:os')).cpus()[0]?.model ?? 'cpu'} x${(await import('node:os')).cpus().length}`);
    console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log('rows       read ms  hash ms  tickets+select ms  core ms  core CPU ms  write ms  write CPU ms  peak RSS MB');
    for (const n of sizes) {
      const path = join(dir, `frame-${n}.csv`);
      await generate(path, n);
      const out = execFileSync(process.execPath, [import.meta.filename, '--child', path, String(n)], { encoding: 'utf8' });
      const r = JSON.parse(out.trim().split('\n').pop()!);
      const f = (x: number, w: number) => x.toFixed(0).padStart(w);
      console.log(`${String(n).padEnd(9)}${f(r.read, 9)}${f(r.hash, 9)}${f(r.select, 19)}${f(r.core, 9)}${f(r.coreCpu, 13)}${f(r.write, 10)}${f(r.writeCpu, 14)}${r.peakRssMB.toFixed(0).padStart(13)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
