/**
 * Cold start of `oraclekit sample calc --json …` against `node -e 0` on the
 * same machine, interleaved, as a ratio of medians. Target: at most 3×.
 * Run: node bench/cold-start.ts [runs]   (after npm run build)
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { quantile } from './stats.ts';

const root = join(import.meta.dirname, '..');
const runs = Number(process.argv[2] ?? 40);
const calc = [
  join(root, 'bin/run.js'),
  'sample',
  'calc',
  '--population',
  '8000',
  '--mean',
  '3.1',
  '--sd',
  '1.7',
  '--dropout',
  '0.1',
  '--json',
];

function time(args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const median = (xs: number[]) => quantile(xs, 0.5);

// warm the OS cache and the V8 compile cache, as a user's second run would be
for (let i = 0; i < 3; i++) {
  time(['-e', '0']);
  time(calc);
}
const base: number[] = [];
const cli: number[] = [];
for (let i = 0; i < runs; i++) {
  base.push(time(['-e', '0']));
  cli.push(time(calc));
}
const b = median(base);
const c = median(cli);
console.log(`node ${process.version}, ${runs} interleaved runs each`);
console.log(`node -e 0                          median ${b.toFixed(1)} ms`);
console.log(`oraclekit sample calc --json ...   median ${c.toFixed(1)} ms`);
console.log(`ratio ${(c / b).toFixed(2)}x (target <= 3x) ${c / b <= 3 ? 'OK' : 'OVER TARGET'}`);
