/**
 * GET /v1/domains/:did on the real daemon process, measured so that the
 * machine's other load does not move the figure: the daemon's own CPU time
 * per request (user + system from /proc/<pid>/stat over a fixed number of
 * requests), or — with --callgrind — the instructions it executes per request
 * under valgrind's callgrind (counters zeroed after the warm-up, dumped after
 * the measured requests). Several built checkouts (--tree, each with
 * `npm run build` done) are measured in one sitting, their rounds
 * interleaved, each daemon with the same node flags.
 *
 *   npm run build && node bench/registry-get-cpu.ts --tree /path/to/other/checkout --tree . [--requests 20000] [--rounds 3]
 *   node bench/registry-get-cpu.ts --tree ... --tree . --callgrind [--requests 3000]
 *   node bench/registry-get-cpu.ts --tree . --tree . --flags=--max-semi-space-size=16 '--flags=<other flags>'
 *
 * Each daemon is left idle for --idle-ms (2000) before each of its measured
 * rounds, as bench/registry.ts leaves it while the other routes run, so its
 * idle-time work (heap.ts's shrinking) happens as it does there.
 *
 * The client is autocannon in this process (10 connections, keep-alive, a
 * fixed number of requests); each daemon runs in its own temp ORACLEKIT_HOME
 * with the rate limit raised out of the way, as in bench/registry.ts.
 */
import { DAEMON_NODE_FLAGS, daemonEnv } from '../src/cli/daemon/control.ts';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', multiple: true, default: ['.'] },
    requests: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    callgrind: { type: 'boolean', default: false },
    'idle-ms': { type: 'string', default: '2000' },
    flags: { type: 'string', multiple: true },
  },
});
const CALLGRIND = values.callgrind;
const REQUESTS = Number(values.requests ?? (CALLGRIND ? 3000 : 20_000));
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const IDLE_MS = Number(values['idle-ms']);
const NODE_FLAGS =
  process.env.BENCH_DAEMON_FLAGS !== undefined
    ? process.env.BENCH_DAEMON_FLAGS.split(/\s+/).filter(Boolean)
    : DAEMON_NODE_FLAGS;
/** --flags, one per --tree in order: that daemon's node flags instead of NODE_FLAGS (space-separated; '' for none). */
const flagsOf = (i: number): string[] =>
  values.flags?.[i] !== undefined ? values.flags[i]!.split(/\s+/).filter(Boolean) : NODE_FLAGS;

interface Daemon {
  tree: string;
  flags: string[];
  home: string;
  child: ChildProcess;
  url: string;
  get: { url: string; headers: Record<string, string> };
}

/**
 * CPU time of a process so far, in µs: the scheduler's own account of each of
 * its threads (/proc/<pid>/task/<tid>/schedstat, ns on the CPU), exact where
 * /proc/<pid>/stat's utime + stime are sampled in 10 ms clock ticks — which a
 * busy machine (the run queue 5–10 deep on 2 cores) turns into noise. Threads
 * that ended between two readings drop out, so a figure can only be low.
 */
function cpuUsOf(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended
    }
  }
  return ns / 1000;
}

async function start(tree: string, flags: string[]): Promise<Daemon> {
  const main = join(tree, 'dist/daemon/main.js');
  if (!existsSync(main)) throw new Error(`${tree}: run \`npm run build\` there first`);
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-getcpu-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    join(home, 'config/daemon.json'),
    JSON.stringify({ rateLimit: { max: 100_000_000, timeWindowMs: 60_000 } }),
  );
  const env: NodeJS.ProcessEnv = daemonEnv({ ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0' });
  const args = [...flags, main];
  const child = CALLGRIND
    ? spawn(
        'valgrind',
        [
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${join(home, 'callgrind.out.%p')}`,
          '-q',
          process.execPath,
          ...args,
        ],
        { env, stdio: ['ignore', 'ignore', 'inherit'] },
      )
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const disc = join(home, 'state/daemon.json');
  // under valgrind on a loaded machine the boot takes minutes
  for (let i = 0; i < (CALLGRIND ? 12_000 : 1200) && !existsSync(disc) && child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(disc)) {
    child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true });
    throw new Error(`${tree}: the daemon did not start`);
  }
  const d = JSON.parse(readFileSync(disc, 'utf8')) as { url: string; token: string };
  const keyR = await fetch(d.url + '/admin/v1/keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
  });
  const key = ((await keyR.json()) as { key: string }).key;
  const headers = { authorization: `Bearer ${key}` };
  const dom = (await (
    await fetch(d.url + '/v1/domains', {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'Protocol', metadata: { name: 'bench' } }),
    })
  ).json()) as { id: string };
  return {
    tree,
    flags,
    home,
    child,
    url: d.url,
    get: { url: d.url + `/v1/domains/${encodeURIComponent(dom.id)}`, headers },
  };
}

async function drive(d: Daemon, amount: number): Promise<void> {
  const r = await autocannon({ ...d.get, connections: CONNECTIONS, amount, pipelining: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${d.tree}: ${r.non2xx} non-2xx, ${r.errors} errors`);
}

/** Instructions (Ir) of the daemon over `amount` GETs: zero callgrind's counters, drive, dump, read the dump's totals. */
async function instructions(d: Daemon, amount: number): Promise<number> {
  const pid = String(d.child.pid);
  // instrumentation is off through the boot and the warm-up (--instr-atstart=no: a faster start), on from here
  execFileSync('callgrind_control', ['-i', 'on', pid], { stdio: 'ignore' });
  execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
  await drive(d, amount);
  const before = new Set(readdirSync(d.home));
  execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' });
  let total = 0;
  for (const f of readdirSync(d.home)) {
    if (!f.startsWith('callgrind.out.') || before.has(f)) continue;
    const m = /^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(join(d.home, f), 'utf8'));
    if (m) total += Number(m[1]);
    rmSync(join(d.home, f));
  }
  return total;
}

async function main(): Promise<void> {
  const trees = values.tree.map((t) => resolve(t));
  const daemons: Daemon[] = [];
  try {
    for (const [i, t] of trees.entries()) daemons.push(await start(t, flagsOf(i)));
    // warm-up (JIT, caches), not measured
    for (const d of daemons) await drive(d, CALLGRIND ? 2000 : 20_000);
    const label = (d: Daemon) => d.tree + (d.flags.join(' ') === NODE_FLAGS.join(' ') ? '' : ` [${d.flags.join(' ')}]`);
    const figures = new Map<string, number[]>(daemons.map((d) => [label(d), []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const d of daemons) {
        // idle first, as a daemon is between bench/registry.ts's rounds (its idle-time work, e.g. heap.ts, runs)
        await new Promise((r) => setTimeout(r, IDLE_MS));
        let perRequest: number;
        if (CALLGRIND) perRequest = (await instructions(d, REQUESTS)) / REQUESTS;
        else {
          const cpu0 = cpuUsOf(d.child.pid!);
          await drive(d, REQUESTS);
          perRequest = (cpuUsOf(d.child.pid!) - cpu0) / REQUESTS;
        }
        figures.get(label(d))!.push(Math.round(perRequest * 10) / 10);
        console.error(
          `round ${round + 1} ${label(d)}: ${perRequest.toFixed(1)} ${CALLGRIND ? 'instructions' : 'CPU µs'} per GET`,
        );
      }
    }
    const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) * q)]!;
    const median = (v: number[]) => quantile(v, 0.5);
    const out = {
      measure: CALLGRIND
        ? 'instructions per GET (callgrind, all threads)'
        : 'daemon CPU µs per GET (schedstat, all threads)',
      requests: REQUESTS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      daemonNodeFlags: NODE_FLAGS,
      idleMsBeforeEachRound: IDLE_MS,
      // the other load only ever adds CPU time (caches, the other hyper-thread), so the lower quartile is the steadier figure
      trees: [...figures].map(([tree, all]) => ({
        tree,
        median: median(all),
        lowerQuartile: quantile(all, 0.25),
        all,
      })),
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    for (const d of daemons) {
      d.child.kill('SIGTERM');
      await new Promise((r) => (d.child.exitCode !== null ? r(undefined) : d.child.once('exit', r)));
      rmSync(d.home, { recursive: true, force: true });
    }
  }
}

await main();
