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
 *   node bench/registry-cpu.ts --callgrind --no-oracle --requests 2000 --warmup 2000 --runs 1 [--tree …]
 *
 * (`--no-oracle`: the daemon without its default oracle, which does not serve
 * the POST; under callgrind it shortens the boot.)
 *
 * `--idle 3`: three idle seconds between the warm-up and the measured POSTs
 * (the daemon shrinks its heap after one), as between bench/registry.ts's rounds.
 *
 * Compare trees interleaved, e.g. a copy of main's build and this one:
 *   for t in /tmp/base . /tmp/base .; do node bench/registry-cpu.ts --tree $t --runs 1; done
 */
import { DAEMON_NODE_FLAGS } from '../src/cli/daemon/control.ts';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';

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
  },
});
const TREE = resolve(values.tree);
const N = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const VG = values.callgrind;
const NODE_FLAGS = process.env.BENCH_DAEMON_FLAGS !== undefined ? process.env.BENCH_DAEMON_FLAGS.split(/\s+/).filter(Boolean) : DAEMON_NODE_FLAGS;
const designBody = JSON.stringify({ projectId: 'did:example:bench', population: 5000, expectedMean: 2.5, expectedSD: 1.2, dropoutRate: 0.15 });

function cpuUsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

async function startDaemon(home: string): Promise<{ url: string; token: string; child: ChildProcess }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0' };
  delete env.ORACLEKIT_DB_SYNCHRONOUS;
  const main = join(TREE, 'dist/daemon/main.js');
  if (!existsSync(main)) throw new Error(`no ${main}: build that tree first`);
  const args = [...NODE_FLAGS, main];
  const child = VG
    ? spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${values.out}.%p`, '-q', process.execPath, ...args], { env, stdio: ['ignore', 'ignore', 'inherit'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const disc = join(home, 'state/daemon.json');
  for (let i = 0; i < (VG ? 24_000 : 800) && !existsSync(disc); i++) await new Promise((r) => setTimeout(r, 25));
  const d = JSON.parse(readFileSync(disc, 'utf8'));
  return { url: d.url, token: d.token, child };
}

/** The pid valgrind runs node as (valgrind execs into the tool: the same pid). */
async function oneRun(): Promise<{ cpuUsPerRequest: number; requests: number; non2xx: number; callgrindFile?: string }> {
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-bench-cpu-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(join(home, 'config/daemon.json'), JSON.stringify({ rateLimit: { max: 100_000_000, timeWindowMs: 60_000 }, ...(values['no-oracle'] ? { oracle: { enabled: false } } : {}) }));
  const d = await startDaemon(home);
  try {
    const keyR = await fetch(d.url + '/admin/v1/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
    });
    const key = ((await keyR.json()) as { key: string }).key;
    const post = { url: d.url + '/v1/sampling', method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: designBody, connections: CONNECTIONS, pipelining: 1, ...(VG ? { timeout: 600 } : {}) };
    await autocannon({ ...post, amount: WARMUP });
    const pid = d.child.pid!;
    // --idle <s>: the daemon left alone after the warm-up, so that its idle heap shrinking (src/daemon/heap.ts) runs
    // before the measured burst, as between the rounds of bench/registry.ts
    if (Number(values.idle) > 0) await new Promise((r) => setTimeout(r, Number(values.idle) * 1000));
    if (VG) {
      // switching instrumentation on takes a while: a /health request every 100 ms meanwhile, so that the daemon's
      // idle heap shrinking (src/daemon/heap.ts: after a second without requests) does not run between the two phases
      const ping = setInterval(() => void fetch(d.url + '/health').catch(() => undefined), 100);
      await new Promise<void>((res, rej) => execFile('callgrind_control', ['-i', 'on', String(pid)], (e) => (e ? rej(e) : res())));
      clearInterval(ping);
    }
    const c0 = cpuUsOf(pid);
    const r = await autocannon({ ...post, amount: N });
    const cpu = cpuUsOf(pid) - c0;
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
    return { cpuUsPerRequest: +(cpu / r.requests.total).toFixed(1), requests: r.requests.total, non2xx: r.non2xx, ...(callgrindFile ? { callgrindFile } : {}) };
  } finally {
    d.child.kill('SIGTERM');
    await new Promise((r) => d.child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
}

for (let i = 0; i < Number(values.runs); i++) console.log(JSON.stringify({ tree: TREE, ...(await oneRun()) }));
