/**
 * The daemon's CPU per `POST /v1/sampling`, for A/B comparisons of two builds
 * on a machine other work shares (issue #19 item 7): a fixed number of POSTs
 * at 50 connections (autocannon, `amount`) against the real daemon process
 * (`<tree>/dist/daemon/main.js`, DAEMON_NODE_FLAGS, as bench/registry.ts runs
 * it), after a warm-up, and the daemon's user + system CPU time over them
 * (/proc/<pid>/stat) divided by the requests: it moves far less with the
 * machine's load than req/s does.
 *
 * With `--callgrind` the daemon runs under valgrind's callgrind with
 * instrumentation off until the warm-up is done (`callgrind_control -i on`),
 * then dumped after the measured requests (`callgrind_control -d`): the
 * instructions per request are the same whatever else the machine runs
 * (`callgrind_annotate <file> | head` gives the total).
 *
 *   npm run build && node bench/registry-cpu.ts [--tree <dir with dist/>] [--requests 20000] [--warmup 5000] [--runs 3]
 *   BENCH_DAEMON_FLAGS="--max-semi-space-size=16 --perf-basic-prof" node bench/registry-cpu.ts --perf /tmp/perf.data --runs 1
 *     (then `perf report -i /tmp/perf.data --no-children --sort sym`: where the daemon's CPU goes, kernel included)
 *   node bench/registry-cpu.ts --callgrind --no-oracle --requests 2000 --warmup 2000 --runs 1 [--tree …]
 *
 * (`--no-oracle`: the daemon without its default oracle, which does not serve
 * the POST; under callgrind it shortens the boot.)
 *
 * `--versus <tree>`: A/B in one sitting: both daemons up, rounds alternating (see versus() below), e.g.
 *   taskset -c 0 node bench/registry-cpu.ts --pin --tree /tmp/base --versus . --rounds 10 --requests 10000
 *
 * `--pin`: the daemon on CPU 1 (taskset; run the bench itself with `taskset -c 0`), so that the load generator
 * never shares a CPU with it: the figure then moves far less from run to run.
 *
 * `--idle 3`: three idle seconds between the warm-up and the measured POSTs
 * (the daemon shrinks its heap after one), as between bench/registry.ts's rounds.
 *
 * Compare trees interleaved, e.g. a copy of main's build and this one:
 *   for t in /tmp/base . /tmp/base .; do node bench/registry-cpu.ts --tree $t --runs 1; done
 */
import { DAEMON_NODE_FLAGS, daemonEnv } from '../src/cli/daemon/control.ts';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { cpuUsOf } from './proc.ts';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', default: join(import.meta.dirname, '..') },
    requests: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    callgrind: { type: 'boolean', default: false },
    'no-oracle': { type: 'boolean', default: false },
    idle: { type: 'string', default: '0' },
    out: { type: 'string', default: join(tmpdir(), 'callgrind.registry') },
    perf: { type: 'string' },
    pin: { type: 'boolean', default: false },
    stdout: { type: 'string' },
    log: { type: 'string' },
    versus: { type: 'string' },
    'versus-flags': { type: 'string' },
    'versus-no-oracle': { type: 'boolean', default: false },
    'versus-log': { type: 'string' },
    rounds: { type: 'string', default: '10' },
  },
});
const TREE = resolve(values.tree);
const N = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const VG = values.callgrind;
const NODE_FLAGS =
  process.env.BENCH_DAEMON_FLAGS !== undefined
    ? process.env.BENCH_DAEMON_FLAGS.split(/\s+/).filter(Boolean)
    : DAEMON_NODE_FLAGS;
const designBody = JSON.stringify({
  projectId: 'did:example:bench',
  population: 5000,
  expectedMean: 2.5,
  expectedSD: 1.2,
  dropoutRate: 0.15,
});

/** CPU µs so far of each thread group of a process, by thread name (/proc/<pid>/task/<tid>/comm: the main thread, V8's GC workers, libuv's pool…). */
function threadCpuOf(pid: number): Map<string, number> {
  const m = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/\d+$/, '');
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      m.set(name, (m.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10_000);
    } catch {
      // the thread ended meanwhile
    }
  }
  return m;
}

async function startDaemon(
  home: string,
  tree: string = TREE,
  flags: string[] = NODE_FLAGS,
): Promise<{ url: string; token: string; child: ChildProcess }> {
  const env: NodeJS.ProcessEnv = daemonEnv({ ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0' });
  delete env.ORACLEKIT_DB_SYNCHRONOUS;
  const main = join(tree, 'dist/daemon/main.js');
  if (!existsSync(main)) throw new Error(`no ${main}: build that tree first`);
  const args = [...flags, main];
  // --stdout <file>: the daemon's standard output (e.g. --trace-gc lines with BENCH_DAEMON_FLAGS) to a file
  const out = values.stdout ? openSync(values.stdout, 'w') : 'ignore';
  const child = VG
    ? spawn(
        'valgrind',
        [
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${values.out}.%p`,
          '-q',
          process.execPath,
          ...args,
        ],
        { env, stdio: ['ignore', 'ignore', 'inherit'] },
      )
    : values.pin
      ? spawn('taskset', ['-c', '1', process.execPath, ...args], { env, stdio: ['ignore', out, 'inherit'] })
      : spawn(process.execPath, args, { env, stdio: ['ignore', out, 'inherit'] });
  const disc = join(home, 'state/daemon.json');
  for (let i = 0; i < (VG ? 24_000 : 800) && !existsSync(disc); i++) await new Promise((r) => setTimeout(r, 25));
  const d = JSON.parse(readFileSync(disc, 'utf8'));
  return { url: d.url, token: d.token, child };
}

/** autocannon's options for the POST on daemon `d`, with a member key made through its admin API. */
async function postOptions(d: { url: string; token: string }): Promise<Record<string, unknown>> {
  const keyR = await fetch(d.url + '/admin/v1/keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
  });
  const key = ((await keyR.json()) as { key: string }).key;
  return {
    url: d.url + '/v1/sampling',
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: designBody,
    connections: CONNECTIONS,
    pipelining: 1,
    ...(VG ? { timeout: 600 } : {}),
  };
}

/** The pid valgrind runs node as (valgrind execs into the tool: the same pid). */
async function oneRun(): Promise<{
  cpuUsPerRequest: number;
  threads: Record<string, number>;
  rps: number;
  p99: number;
  requests: number;
  non2xx: number;
  callgrindFile?: string;
}> {
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-bench-cpu-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    join(home, 'config/daemon.json'),
    JSON.stringify({
      rateLimit: { max: 100_000_000, timeWindowMs: 60_000 },
      ...(values['no-oracle'] ? { oracle: { enabled: false } } : {}),
      ...(values.log ? { logLevel: values.log } : {}),
    }),
  );
  const d = await startDaemon(home);
  try {
    const post = await postOptions(d);
    await autocannon({ ...post, amount: WARMUP });
    const pid = d.child.pid!;
    // --idle <s>: the daemon left alone after the warm-up, so that its idle heap shrinking (src/daemon/heap.ts) runs
    // before the measured burst, as between the rounds of bench/registry.ts
    if (Number(values.idle) > 0) await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
    if (VG) {
      // switching instrumentation on takes a while: a /health request every 100 ms meanwhile, so that the daemon's
      // idle heap shrinking (src/daemon/heap.ts: after a second without requests) does not run between the two phases
      const ping = setInterval(() => void fetch(d.url + '/health').catch(() => undefined), 100);
      await new Promise<void>((res, rej) =>
        execFile('callgrind_control', ['-i', 'on', String(pid)], (e) => (e ? rej(e) : res())),
      );
      clearInterval(ping);
    }
    // --perf <file>: `perf record` of the daemon over the measured POSTs (JIT frames named when the daemon runs with
    // --perf-basic-prof: BENCH_DAEMON_FLAGS="--max-semi-space-size=16 --perf-basic-prof")
    const perf = values.perf
      ? spawn('perf', ['record', '-k', 'mono', '-F', '2999', '-g', '-p', String(pid), '-o', values.perf], {
          stdio: ['ignore', 'ignore', 'inherit'],
        })
      : undefined;
    if (perf) await new Promise((r) => setTimeout(r, 500));
    const c0 = cpuUsOf(pid);
    const t0 = threadCpuOf(pid);
    const r = await autocannon({ ...post, amount: N });
    const cpu = cpuUsOf(pid) - c0;
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    const threads: Record<string, number> = {};
    for (const [name, us] of threadCpuOf(pid)) {
      const d = us - (t0.get(name) ?? 0);
      if (d > 0) threads[name] = +(d / r.requests.total).toFixed(1);
    }
    let callgrindFile: string | undefined;
    if (VG) {
      execFileSync('callgrind_control', ['-d', String(pid)], { stdio: 'ignore' });
      const base = values.out.split('/').pop()!;
      const dir = values.out.slice(0, values.out.length - base.length) || '.';
      callgrindFile = readdirSync(dir)
        .filter((f) => f.startsWith(`${base}.${pid}`))
        .map((f) => join(dir, f))
        .sort()
        .pop();
    }
    return {
      cpuUsPerRequest: +(cpu / r.requests.total).toFixed(1),
      threads,
      rps: Math.round(r.requests.average),
      p99: r.latency.p99,
      requests: r.requests.total,
      non2xx: r.non2xx,
      ...(callgrindFile ? { callgrindFile } : {}),
    };
  } finally {
    d.child.kill('SIGTERM');
    await new Promise((r) => d.child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * --versus <tree>: both daemons (--tree's and this one's) up at once, both warmed up, then --rounds rounds of
 * --requests POSTs, alternating between them: whatever else slows the machine down over a minute slows both
 * alike. Prints each round's CPU µs per POST and the medians.
 */
async function versus(): Promise<void> {
  const trees = [TREE, resolve(values.versus!)];
  const daemons: {
    tree: string;
    home: string;
    child: ChildProcess;
    post: Record<string, unknown>;
    figures: number[];
  }[] = [];
  try {
    for (const tree of trees) {
      const home = mkdtempSync(join(tmpdir(), 'oraclekit-bench-cpu-'));
      mkdirSync(join(home, 'config'), { recursive: true });
      // --versus-no-oracle: the second daemon without its default oracle
      const noOracle = values['no-oracle'] || (daemons.length === 1 && values['versus-no-oracle']);
      // --versus-log <level>: the second daemon's log level (e.g. warn: no access lines)
      const logLevel = daemons.length === 1 && values['versus-log'] !== undefined ? values['versus-log'] : values.log;
      writeFileSync(
        join(home, 'config/daemon.json'),
        JSON.stringify({
          rateLimit: { max: 100_000_000, timeWindowMs: 60_000 },
          ...(noOracle ? { oracle: { enabled: false } } : {}),
          ...(logLevel ? { logLevel } : {}),
        }),
      );
      // --versus-flags: the second daemon's node flags (space-separated), to compare settings of one build
      const flags =
        daemons.length === 1 && values['versus-flags'] !== undefined
          ? values['versus-flags'].split(/\s+/).filter(Boolean)
          : NODE_FLAGS;
      const d = await startDaemon(home, tree, flags);
      daemons.push({
        tree:
          tree +
          (flags === NODE_FLAGS ? '' : ` [${flags.join(' ')}]`) +
          (noOracle ? ' (no oracle)' : '') +
          (logLevel !== values.log ? ` (log ${logLevel})` : ''),
        home,
        child: d.child,
        post: await postOptions(d),
        figures: [],
      });
    }
    for (const d of daemons) await autocannon({ ...d.post, amount: WARMUP });
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const d of round % 2 === 0 ? daemons : [...daemons].reverse()) {
        // --idle <s>: each daemon left alone first (its idle heap shrinking, heap.ts, runs after 8 s)
        if (Number(values.idle) > 0) await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
        const c0 = cpuUsOf(d.child.pid!);
        const r = await autocannon({ ...d.post, amount: N });
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${d.tree}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        d.figures.push(Math.round(((cpuUsOf(d.child.pid!) - c0) / r.requests.total) * 10) / 10);
      }
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)]!;
    console.log(
      JSON.stringify(
        {
          requests: N,
          rounds: Number(values.rounds),
          trees: daemons.map((d) => ({ tree: d.tree, median: median(d.figures), all: d.figures })),
        },
        null,
        1,
      ),
    );
  } finally {
    for (const d of daemons) {
      d.child.kill('SIGTERM');
      await new Promise((r) => (d.child.exitCode !== null ? r(undefined) : d.child.once('exit', r)));
      rmSync(d.home, { recursive: true, force: true });
    }
  }
}

if (values.versus) await versus();
else for (let i = 0; i < Number(values.runs); i++) console.log(JSON.stringify({ tree: TREE, ...(await oneRun()) }));
