/**
 * Wall time of `oraclekit new demo --yes --no-install --no-git` (target:
 * under 1 s), registration included, against an already-running local
 * daemon in a temporary ORACLEKIT_HOME; the identity, API key and oracle
 * protocol class are made by a first (untimed) run, as on a developer's
 * machine after their first project. Also: the first run itself, and where
 * the time of one run goes (--json timings).
 * Run: node bench/new.ts [runs]   (after npm run build)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantile } from './stats.ts';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin/run.js');
const runs = Number(process.argv[2] ?? 20);
const home = mkdtempSync(join(tmpdir(), 'ok-bench-new-home-'));
const work = mkdtempSync(join(tmpdir(), 'ok-bench-new-work-'));
const env = {
  ...process.env,
  ORACLEKIT_HOME: home,
  ORACLEKIT_DAEMON_PORT: '0',
  CI: '',
  ORACLEKIT_API_KEY: '',
  ORACLEKIT_REGISTRY: '',
  ORACLEKIT_MNEMONIC: '',
  MATRIX_BASE_URL: '',
  NO_COLOR: '1',
};

function run(args: string[]): { ms: number; stdout: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: work, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}
const median = (xs: number[]) => quantile(xs, 0.5);
const p90 = (xs: number[]) => quantile(xs, 0.9);

try {
  run(['daemon', 'start']);
  const first = run(['new', 'first', '--yes', '--no-install', '--no-git']);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    times.push(run(['new', `demo${i}`, '--yes', '--no-install', '--no-git']).ms);
    rmSync(join(work, `demo${i}`), { recursive: true, force: true });
  }
  const j = JSON.parse(run(['new', 'timed', '--yes', '--no-install', '--no-git', '--json']).stdout) as {
    timings: Record<string, number>;
  };
  const m = median(times);
  console.log(`node ${process.version}, ${runs} runs against a running local daemon`);
  console.log(`first run (identity, API key, protocol class made)   ${first.ms.toFixed(0)} ms`);
  console.log(
    `oraclekit new demo --yes --no-install --no-git        median ${m.toFixed(0)} ms, p90 ${p90(times).toFixed(0)} ms (target < 1000 ms) ${m < 1000 ? 'OK' : 'OVER TARGET'}`,
  );
  console.log(
    `inside one run (ms): ${Object.entries(j.timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
} finally {
  spawnSync(process.execPath, [bin, 'daemon', 'stop', '--grace', '1'], { env, stdio: 'ignore' });
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
