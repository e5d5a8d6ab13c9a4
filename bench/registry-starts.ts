/**
 * The daemon's CPU and page faults per `POST /v1/sampling` across many
 * starts (issue #19 item 7): some states of a process last its whole life —
 * session 10's "twice as slow for all its rounds", which session 11 traced
 * to SQLite's temp-file journal blocks being mmap'd and unmapped on every
 * write in processes whose heap top started small (bench/README.md,
 * "Issue #19 item 7, session 11"). One run of bench/registry.ts sees one
 * daemon process; this starts `--starts` of them, one after the other, each
 * as bench/registry.ts starts it (dist/daemon/main.js, DAEMON_NODE_FLAGS,
 * daemonEnv, with the same first requests), and measures `--rounds` rounds of `--duration` s at 50
 * connections after a one-second warm-up at 10: per round, the daemon's
 * user + system CPU µs and minor page faults per request (/proc/<pid>/stat).
 *
 *   npm run build && taskset -c 0 node bench/registry-starts.ts --pin [--starts 20] [--rounds 2] [--duration 3] [--tree <dir with dist/>]
 *
 * `--pin`: the daemon on CPU 1 (taskset), the load generator on CPU 0, so
 * that the figures move with the process, not the machine. A start whose
 * page faults per POST stay over 1 after its first round is reported as
 * `mapping`: warm, a POST takes ~0.05.
 */
import { DAEMON_NODE_FLAGS, daemonEnv } from '../src/cli/daemon/control.ts';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { perRequest, procStat } from './proc.ts';

const { values } = parseArgs({
  options: {
    starts: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '3' },
    tree: { type: 'string', default: join(import.meta.dirname, '..') },
    pin: { type: 'boolean', default: false },
  },
});
const TREE = resolve(values.tree);
const STARTS = Number(values.starts);
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const designBody = JSON.stringify({
  projectId: 'did:example:bench',
  population: 5000,
  expectedMean: 2.5,
  expectedSD: 1.2,
  dropoutRate: 0.15,
});

interface Start {
  /** Per round: [CPU µs per POST, page faults per POST]. */
  rounds: Array<[number, number]>;
  mapping: boolean;
}

async function oneStart(): Promise<Start> {
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-starts-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    join(home, 'config/daemon.json'),
    JSON.stringify({ rateLimit: { max: 100_000_000, timeWindowMs: 60_000 } }),
  );
  const argv = [
    ...(values.pin ? ['taskset', '-c', '1'] : []),
    process.execPath,
    ...DAEMON_NODE_FLAGS,
    join(TREE, 'dist/daemon/main.js'),
  ];
  const child = spawn(argv[0]!, argv.slice(1), {
    env: daemonEnv({ ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const disc = join(home, 'state/daemon.json');
    for (let k = 0; k < 400 && !existsSync(disc); k++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 1000));
    const d = JSON.parse(readFileSync(disc, 'utf8')) as { url: string; token: string };
    const keyR = await fetch(d.url + '/admin/v1/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${d.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
    });
    const auth = {
      authorization: `Bearer ${((await keyR.json()) as { key: string }).key}`,
      'content-type': 'application/json',
    };
    // as bench/registry.ts does before its rounds: a domain, one design, one read (the heap's layout at the load's start depends on them)
    const dom = (await (
      await fetch(d.url + '/v1/domains', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'Protocol', metadata: { name: 'bench' } }),
      })
    ).json()) as { id: string };
    await (await fetch(d.url + '/v1/sampling', { method: 'POST', headers: auth, body: designBody })).text();
    await (await fetch(d.url + `/v1/domains/${encodeURIComponent(dom.id)}`, { headers: auth })).text();
    const post = { url: d.url + '/v1/sampling', method: 'POST', headers: auth, body: designBody };
    await autocannon({ ...post, connections: 10, duration: 1 });
    const rounds: Array<[number, number]> = [];
    for (let k = 0; k < ROUNDS; k++) {
      const s0 = procStat(child.pid!);
      const r = await autocannon({ ...post, connections: 50, duration: DURATION });
      const per = perRequest(s0, procStat(child.pid!), r.requests.total);
      rounds.push([per.cpuUs, per.faults]);
    }
    return { rounds, mapping: rounds.slice(1).some(([, f]) => f > 1) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
}

const starts: Start[] = [];
for (let i = 0; i < STARTS; i++) {
  const s = await oneStart();
  starts.push(s);
  process.stderr.write(
    `start ${i + 1}/${STARTS}: ${s.rounds.map(([c, f]) => `${c} µs ${f} faults`).join(' | ')}${s.mapping ? '  <- mapping' : ''}\n`,
  );
}
const last = starts.map((s) => s.rounds.at(-1)![0]).sort((a, b) => a - b);
console.log(
  JSON.stringify(
    {
      tree: TREE,
      pinned: values.pin,
      starts: STARTS,
      mapping: starts.filter((s) => s.mapping).length,
      lastRoundCpuUs: { min: last[0], median: last[Math.floor(last.length / 2)], max: last.at(-1) },
      rounds: starts.map((s) => s.rounds),
    },
    null,
    2,
  ),
);
