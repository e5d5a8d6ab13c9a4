/**
 * Registry throughput: requests/s and p99 latency of POST /v1/sampling and
 * GET /v1/domains/:did on the real daemon process (dist/daemon/main.js, as
 * shipped: auth, rate limit, zod, pino logging to its file, SQLite with every
 * acknowledged write fsynced), next to a bare fastify route doing the same HTTP work in
 * the same run, at 50 connections over loopback (autocannon), and — the
 * target since issue #19 item 7 — next to the minimal durable route
 * (bench/registry-durable.ts: fastify, JSON body, the same INSERT through
 * the same group commit and fsync; no auth, zod or rate limit): POST >= 0.7×
 * that route with p99 <= 10 ms. Then the idle daemon's RSS (target < 120 MB). Then the POST again
 * with SQLite's own fsync inside COMMIT (synchronous=FULL), and twice more
 * with bench/registry-floor.ts preloaded: without SQLite (the design computed,
 * nothing stored) and with the registry's work skipped (the stack floor: the
 * best ratio any POST route of this stack can reach here).
 *
 *   npm run build && node bench/registry.ts [--rounds 3] [--duration 5] [--connections 50] [--only durable] [--no-round-warmup] [--durable-keep-shapes]
 *
 * `--durable-keep-shapes`: the minimal durable route also keeps the samples
 * the daemon keeps so that idle spells do not cost its inline caches
 * (src/daemon/heap.ts, "Hidden classes across a shrink"; bench/registry-durable.ts).
 *
 * `--only durable` runs the daemon's POST and the durable route only (and the
 * RSS figures).
 *
 * `cpuUsPerRequest` and `faultsPerRequest` are the serving process's CPU time
 * and minor page faults per request (/proc/<pid>/stat), for the daemon and
 * the durable route. Warm, a POST takes ~0.05 page faults; a figure near 1 or
 * more means memory mapped and unmapped on every request, as SQLite's
 * temp-file journals did under the daemon's malloc settings (bench/README.md,
 * "Issue #19 item 7, session 11").
 *
 * Every measured round follows a one-second warm-up of its own route (10
 * connections, not reported), for every route alike. Without it each of the
 * daemon's rounds began right after its idle heap shrink (src/daemon/heap.ts
 * shrinks after 8 idle seconds, and the daemon sat idle through the other
 * routes' rounds, 10 s and more), so its POST rounds measured the young
 * generation growing back and a full collection, not the route at 50
 * connections. `--no-round-warmup` measures that way again; what a burst
 * right after the shrink costs is in bench/README.md ("session 9").
 * BENCH_DAEMON_FLAGS (space-separated) replaces the daemon's node
 * flags (DAEMON_NODE_FLAGS) to compare settings, e.g. BENCH_DAEMON_FLAGS=
 * (none) or BENCH_DAEMON_FLAGS=--max-semi-space-size=16. The daemon gets the
 * shipped environment too (daemonEnv: glibc's malloc settings); GLIBC_TUNABLES=
 * (empty) runs it with glibc's defaults instead.
 *
 * The daemon runs in its own temp ORACLEKIT_HOME (its DB file on the same
 * disk as the OS temp dir); the bare server runs in a child process too, so
 * neither shares the event loop with autocannon.
 */
import { DAEMON_NODE_FLAGS, daemonEnv } from '../src/cli/daemon/control.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { perRequest, procStat } from './proc.ts';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    log: { type: 'string' },
    only: { type: 'string' },
    'no-round-warmup': { type: 'boolean', default: false },
    'durable-keep-shapes': { type: 'boolean', default: false },
  },
});
const ONLY_DURABLE = values.only === 'durable';
/** The daemon's node flags: as shipped, or BENCH_DAEMON_FLAGS to compare settings. */
const NODE_FLAGS =
  process.env.BENCH_DAEMON_FLAGS !== undefined
    ? process.env.BENCH_DAEMON_FLAGS.split(/\s+/).filter(Boolean)
    : DAEMON_NODE_FLAGS;
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const ROUND_WARMUP = !values['no-round-warmup'];

/** The bare route serves the same bytes as the daemon (captured first), so the ratio measures our stack, not payload size. */
const BARE = (postReply: string, getReply: string) => `
import Fastify from 'fastify';
const app = Fastify({ logger: false });
const POST_REPLY = ${JSON.stringify(postReply)};
const GET_REPLY = ${JSON.stringify(getReply)};
app.post('/bare', async (req, reply) => reply.code(201).type('application/json; charset=utf-8').send(POST_REPLY));
app.get('/bare/:id', async (req, reply) => reply.type('application/json; charset=utf-8').send(GET_REPLY));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(String(app.server.address().port) + '\\n');
`;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

async function startBare(postReply: string, getReply: string): Promise<{ url: string; child: ChildProcess }> {
  const file = join(ROOT, 'bench/.bare-server.mjs');
  writeFileSync(file, BARE(postReply, getReply));
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'], cwd: ROOT });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  rmSync(file);
  return { url: `http://127.0.0.1:${port}`, child };
}

async function startDaemon(
  home: string,
  opts: { synchronous?: 'FULL'; skip?: 'sqlite' | 'write' } = {},
): Promise<{ url: string; token: string; child: ChildProcess }> {
  const { synchronous, skip } = opts;
  const env: NodeJS.ProcessEnv = daemonEnv({ ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0' });
  delete env.ORACLEKIT_DB_SYNCHRONOUS;
  if (synchronous) env.ORACLEKIT_DB_SYNCHRONOUS = synchronous;
  rmSync(join(home, 'state/daemon.json'), { force: true });
  if (skip) env.BENCH_SKIP = skip;
  const flags = skip
    ? [...NODE_FLAGS, '--import', pathToFileURL(join(ROOT, 'bench/registry-floor.ts')).href]
    : NODE_FLAGS;
  const child = spawn(process.execPath, [...flags, join(ROOT, 'dist/daemon/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const disc = join(home, 'state/daemon.json');
  for (let i = 0; i < 400 && !existsSync(disc); i++) await new Promise((r) => setTimeout(r, 25));
  const d = JSON.parse(readFileSync(disc, 'utf8'));
  return { url: d.url, token: d.token, child };
}

/** The minimal durable route (bench/registry-durable.ts) over its own database file in `home`, storing `record`. */
async function startDurable(home: string, record: string): Promise<{ url: string; child: ChildProcess }> {
  const file = join(home, 'durable-record.json');
  writeFileSync(file, record);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.ORACLEKIT_DB_SYNCHRONOUS;
  if (values['durable-keep-shapes']) env.BENCH_DURABLE_KEEP_SHAPES = '1';
  const child = spawn(process.execPath, [join(ROOT, 'bench/registry-durable.ts'), join(home, 'durable.db'), file], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: ROOT,
  });
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}`, child };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AcOptions = Record<string, any>;

interface Result {
  name: string;
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) of the serving process per request, µs: less sensitive to the machine's load than req/s. */
  cpuUs?: number;
  /** Minor page faults of the serving process per request: ~0.05 when warm; more means memory mapped and unmapped per request (bench/README.md, "session 11"). */
  faults?: number;
}

async function run(name: string, opts: AcOptions, pid?: number): Promise<Result> {
  // each round measures its route warm: one second at 10 connections first, not reported (see the header)
  if (ROUND_WARMUP) await autocannon({ ...opts, connections: 10, duration: 1 });
  const s0 = pid ? procStat(pid) : undefined;
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, pipelining: 1, ...opts });
  const per = pid && s0 ? perRequest(s0, procStat(pid), r.requests.total) : {};
  return { name, rps: Math.round(r.requests.average), p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, ...per };
}

const DURABLE = 'minimal durable POST (same INSERT, group commit, fsync)';
const SKIP_SQLITE = 'POST /v1/sampling without SQLite';
const SKIP_WRITE = 'POST /v1/sampling, registry work skipped (stack floor)';

const designBody = JSON.stringify({
  projectId: 'did:example:bench',
  population: 5000,
  expectedMean: 2.5,
  expectedSD: 1.2,
  dropoutRate: 0.15,
});

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/daemon/main.js'))) throw new Error('run `npm run build` first');
  const home = mkdtempSync(join(tmpdir(), 'oraclekit-bench-'));
  mkdirSync(join(home, 'config'), { recursive: true });
  const cfg: Record<string, unknown> = { rateLimit: { max: 100_000_000, timeWindowMs: 60_000 } };
  if (values.log) cfg.logLevel = values.log;
  writeFileSync(join(home, 'config/daemon.json'), JSON.stringify(cfg));
  const daemon = await startDaemon(home);
  let bare: { url: string; child: ChildProcess } | undefined;
  let durable: { url: string; child: ChildProcess } | undefined;
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMb(daemon.child.pid!);
    const keyR = await fetch(daemon.url + '/admin/v1/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
    });
    const key = ((await keyR.json()) as { key: string }).key;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const dom = (await (
      await fetch(daemon.url + '/v1/domains', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'Protocol', metadata: { name: 'bench' } }),
      })
    ).json()) as { id: string };
    const postReply = await (
      await fetch(daemon.url + '/v1/sampling', { method: 'POST', headers: auth, body: designBody })
    ).text();
    const getReply = await (
      await fetch(daemon.url + `/v1/domains/${encodeURIComponent(dom.id)}`, { headers: auth })
    ).text();
    bare = await startBare(postReply, getReply);
    durable = await startDurable(home, postReply);

    const results: Result[] = [];
    const post = { url: daemon.url + '/v1/sampling', method: 'POST', headers: auth, body: designBody };
    const get = { url: daemon.url + `/v1/domains/${encodeURIComponent(dom.id)}`, headers: auth };
    const barePost = {
      url: bare.url + '/bare',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: designBody,
    };
    const bareGet = { url: bare.url + `/bare/${encodeURIComponent(dom.id)}` };
    const durablePost = {
      url: durable.url + '/durable',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: designBody,
    };
    // warm-up (JIT, caches), not reported
    for (const o of [post, get, barePost, bareGet, durablePost])
      await autocannon({ ...o, connections: 10, duration: 1 });
    // interleaved rounds: the machine's noise hits both sides alike; medians reported
    for (let round = 0; round < ROUNDS; round++) {
      if (!ONLY_DURABLE) results.push(await run('bare POST', barePost));
      results.push(await run(DURABLE, durablePost, durable.child.pid));
      results.push(await run('POST /v1/sampling', post, daemon.child.pid));
      if (ONLY_DURABLE) continue;
      results.push(await run('bare GET', bareGet));
      results.push(await run('GET /v1/domains/:did', get));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const afterRss = rssMb(daemon.child.pid!);
    await new Promise((r) => setTimeout(r, 10_000));
    const afterRss12s = rssMb(daemon.child.pid!);
    daemon.child.kill('SIGTERM');
    await new Promise((r) => daemon.child.once('exit', r));

    // the same POST with synchronous=FULL (SQLite's fsync inside COMMIT, on the event loop): what the
    // shipped fsync off the event loop (storage/db.ts) saves
    const normal = ONLY_DURABLE ? undefined : await startDaemon(home, { synchronous: 'FULL' });
    if (normal) {
      try {
        const auth2 = { ...auth };
        await autocannon({
          url: normal.url + '/v1/sampling',
          method: 'POST',
          headers: auth2,
          body: designBody,
          connections: 10,
          duration: 1,
        });
        for (let round = 0; round < ROUNDS; round++)
          results.push(
            await run('POST /v1/sampling (synchronous=FULL)', {
              url: normal.url + '/v1/sampling',
              method: 'POST',
              headers: auth2,
              body: designBody,
            }),
          );
      } finally {
        normal.child.kill('SIGTERM');
        await new Promise((r) => normal.child.once('exit', r));
      }
    }

    // where the POST's time goes: the same POST without SQLite (design computed, record built and
    // stringified; no insert, COMMIT or fsync), then with the registry's work skipped altogether (the
    // stack floor) — bench/registry-floor.ts, preloaded; each interleaved with more rounds of the bare POST
    for (const [skip, name] of ONLY_DURABLE
      ? []
      : ([
          ['sqlite', SKIP_SQLITE],
          ['write', SKIP_WRITE],
        ] as const)) {
      const d = await startDaemon(home, { skip });
      try {
        const o = { url: d.url + '/v1/sampling', method: 'POST', headers: auth, body: designBody };
        await autocannon({ ...o, connections: 10, duration: 1 });
        for (let round = 0; round < ROUNDS; round++) {
          results.push(await run('bare POST', barePost));
          results.push(await run(name, o));
        }
      } finally {
        d.child.kill('SIGTERM');
        await new Promise((r) => d.child.once('exit', r));
      }
    }

    const median = (name: string, f: (r: Result) => number) => {
      const v = results
        .filter((r) => r.name === name)
        .map(f)
        .sort((a, b) => a - b);
      return v[Math.floor(v.length / 2)]!;
    };
    const names = [...new Set(results.map((r) => r.name))];
    const summary = names.map((name) => ({
      name,
      rps: median(name, (r) => r.rps),
      p99: median(name, (r) => r.p99),
      cpuUsPerRequest: median(name, (r) => r.cpuUs ?? NaN),
      faultsPerRequest: median(name, (r) => r.faults ?? NaN),
      non2xx: results.filter((r) => r.name === name).reduce((a, r) => a + r.non2xx, 0),
      // each round's figures, in order: [req/s, p99 ms]
      rounds: results.filter((r) => r.name === name).map((r) => [r.rps, r.p99]),
    }));
    const rps = (n: string) => summary.find((x) => x.name === n)?.rps ?? NaN;
    const spreadOf = (n: string) => {
      const v = results.filter((r) => r.name === n).map((r) => r.rps);
      return {
        route: n,
        slowest: Math.min(...v),
        fastest: Math.max(...v),
        ratio: Math.round((Math.max(...v) / Math.min(...v)) * 100) / 100,
      };
    };
    const ratio = (route: string, bare: string) => Math.round((rps(route) / rps(bare)) * 100) / 100;
    const out = {
      node: process.version,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      rounds: ROUNDS,
      roundWarmup: ROUND_WARMUP,
      durableKeepsShapes: values['durable-keep-shapes'],
      summary,
      daemonNodeFlags: NODE_FLAGS,
      ratios: {
        postSamplingToDurable: ratio('POST /v1/sampling', DURABLE),
        postSampling: ratio('POST /v1/sampling', 'bare POST'),
        postSamplingFull: ratio('POST /v1/sampling (synchronous=FULL)', 'bare POST'),
        postSamplingNoSqlite: ratio(SKIP_SQLITE, 'bare POST'),
        postSamplingStackFloor: ratio(SKIP_WRITE, 'bare POST'),
        getDomain: ratio('GET /v1/domains/:did', 'bare GET'),
      },
      rssMb: { idleAfterStart: idleRss, idleAfterLoad: afterRss, idle12sAfterLoad: afterRss12s },
      targets: { postToDurable: 0.7, postP99Ms: 10, rssMb: 120 },
      // the machine's own steadiness over the run: the slowest and fastest rounds of a route whose work never
      // changes (the bare POST; the durable route with --only durable). On these VMs it has moved by 3× within
      // one run; a spread over 1.5 means the ratios above say more about the machine than about the daemon.
      machineSpread: spreadOf(ONLY_DURABLE ? DURABLE : 'bare POST'),
    };
    console.table(out.summary.map(({ rounds: _, ...row }) => row));
    console.log(JSON.stringify(out, null, 2));
    if (out.machineSpread.ratio > 1.5) {
      console.error(
        `[bench] the machine's speed moved under this run: ${out.machineSpread.route} between ${out.machineSpread.slowest} and ${out.machineSpread.fastest} req/s (${out.machineSpread.ratio}×); run it again on a steadier spell`,
      );
    }
  } finally {
    if (daemon.child.exitCode === null) daemon.child.kill('SIGTERM');
    bare?.child.kill('SIGTERM');
    durable?.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
