/**
 * The registry on one and two instances, SQLite and PostgreSQL:
 * requests/s and p99 of POST /v1/sampling through real daemon processes
 * (dist/daemon/main.js: auth, rate limit, zod, logging, every acknowledged
 * write durable), 50 connections in all,
 * split evenly across the instances (one autocannon per daemon, run at the
 * same time, requests summed).
 *
 *   npm run build && node bench/scale-registry.ts [--db sqlite,postgres] [--instances 1,2] [--duration 5] [--rounds 3]
 * [--connections 50]
 *
 * Per database, two daemons are started on it once (SQLite: one file in WAL
 * mode, two processes; PostgreSQL: a fresh cluster from Debian's package,
 * started by test/helpers/postgres.ts, one database); "1 instance" drives
 * only the first (the second idles). Rounds are interleaved across the
 * configurations, so the machine's load hits them alike; medians reported.
 *
 * Per configuration: req/s (sum over the instances), p99 (the larger of the
 * instances' p99s: an upper bound of the p99 of all requests), the daemons'
 * CPU per request (both processes, /proc), and on PostgreSQL the server's
 * load per request (pg_stat_database commits and inserted rows, WAL bytes,
 * the CPU of all its processes). Writes bench/out/scale-registry.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no types
import autocannon from 'autocannon';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres.ts';
import { cpuUsOf } from './proc.ts';
import { loadavg, median, PgMeter, type PgLoad, type PgSnapshot } from './scale-infra.ts';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    instances: { type: 'string', default: '1,2' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
  },
});
const DBS = values.db.split(',');
const INSTANCES = values.instances.split(',').map(Number);
for (const d of DBS)
  if (d !== 'sqlite' && d !== 'postgres')
    throw new Error(`--db ${JSON.stringify(d)}: valid are sqlite, postgres (comma-separated)`);
for (const n of INSTANCES)
  if (n !== 1 && n !== 2)
    throw new Error(`--instances ${JSON.stringify(values.instances)}: valid are 1, 2 (comma-separated)`);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);

interface Daemon {
  url: string;
  token: string;
  child: ChildProcess;
}

async function startDaemon(home: string, env: Record<string, string>): Promise<Daemon> {
  mkdirSync(join(home, 'config'), { recursive: true });
  writeFileSync(
    join(home, 'config/daemon.json'),
    JSON.stringify({ rateLimit: { max: 100_000_000, timeWindowMs: 60_000 } }),
  );
  const full: NodeJS.ProcessEnv = { ...process.env, ORACLEKIT_HOME: home, ORACLEKIT_DAEMON_PORT: '0', ...env };
  delete full.ORACLEKIT_DB_SYNCHRONOUS;
  const child = spawn(process.execPath, [join(ROOT, 'dist/daemon/main.js')], {
    env: full,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const disc = join(home, 'state/daemon.json');
  for (let i = 0; i < 800 && !existsSync(disc); i++) {
    if (child.exitCode !== null) throw new Error(`daemon exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const d = JSON.parse(readFileSync(disc, 'utf8')) as { url: string; token: string };
  return { url: d.url, token: d.token, child };
}

interface Backend {
  db: 'sqlite' | 'postgres';
  daemons: Daemon[];
  headers: Record<string, string>;
  meter?: PgMeter;
  /**
   * The meter's last snapshot: the next measurement's "before" (nothing touches this database between two
   * measurements).
   */
  last?: PgSnapshot;
  stop(): Promise<void>;
}

async function startBackend(db: 'sqlite' | 'postgres', pg: PostgresServer | undefined): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), `oraclekit-scale-${db}-`));
  let env: Record<string, string>;
  let meter: PgMeter | undefined;
  if (db === 'postgres') {
    const url = pg!.createDatabase('scale_registry');
    env = { ORACLEKIT_DATABASE_URL: url };
    meter = new PgMeter(url, pg!.port, 'scale_registry');
  } else {
    mkdirSync(join(dir, 'data'), { mode: 0o700 });
    env = { ORACLEKIT_DB: join(dir, 'data/registry.db') };
  }
  // one after the other: the first applies the migrations
  const daemons = [await startDaemon(join(dir, 'a'), env), await startDaemon(join(dir, 'b'), env)];
  const a = daemons[0]!;
  const keyR = await fetch(a.url + '/admin/v1/keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ did: 'did:example:bench', roles: ['member'] }),
  });
  if (keyR.status !== 201 && keyR.status !== 200) throw new Error(`admin key: ${keyR.status} ${await keyR.text()}`);
  const key = ((await keyR.json()) as { key: string }).key;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // the key made through A authenticates at B (one database)
  for (const d of daemons) {
    const r = await fetch(d.url + '/v1/sampling', { method: 'POST', headers, body: designBody });
    if (r.status !== 201) throw new Error(`${db}: POST /v1/sampling on ${d.url}: ${r.status} ${await r.text()}`);
  }
  return {
    db,
    daemons,
    headers,
    ...(meter ? { meter } : {}),
    async stop() {
      for (const d of daemons) {
        d.child.kill('SIGTERM');
        if (d.child.exitCode === null) await new Promise((r) => d.child.once('exit', r));
      }
      await meter?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const designBody = JSON.stringify({
  projectId: 'did:example:bench',
  population: 5000,
  expectedMean: 2.5,
  expectedSD: 1.2,
  dropoutRate: 0.15,
});

interface Result {
  config: string;
  rps: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  daemonCpuUsPerReq: number;
  load: string;
  pg?: {
    commitsPerReq: number;
    insertsPerReq: number;
    updatesPerReq: number;
    walBytesPerReq: number;
    pgCpuUsPerReq: number;
  };
}

async function drive(b: Backend, instances: number, duration: number, connections: number) {
  const used = b.daemons.slice(0, instances);
  const per = Math.floor(connections / instances);
  return Promise.all(
    used.map((d, i) =>
      autocannon({
        url: d.url + '/v1/sampling',
        method: 'POST',
        headers: b.headers,
        body: designBody,
        connections: i === 0 ? connections - per * (instances - 1) : per,
        duration,
        pipelining: 1,
      }),
    ),
  );
}

async function measure(b: Backend, instances: number): Promise<Result> {
  const config = `${b.db} × ${instances}`;
  const pg0 = b.last ?? (await b.meter?.snapshot());
  const load = loadavg();
  const cpu0 = b.daemons.map((d) => cpuUsOf(d.child.pid!));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const rs: any[] = await drive(b, instances, DURATION, CONNECTIONS);
  const cpu = b.daemons.reduce((a, d, i) => a + cpuUsOf(d.child.pid!) - cpu0[i]!, 0);
  const requests = rs.reduce((a, r) => a + r.requests.total, 0);
  const ok = rs.reduce((a, r) => a + r['2xx'], 0);
  const result: Result = {
    config,
    rps: Math.round(rs.reduce((a, r) => a + r.requests.average, 0)),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    requests,
    non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    daemonCpuUsPerReq: Math.round(cpu / Math.max(1, requests)),
    load,
  };
  if (b.meter && pg0) {
    b.last = await b.meter.snapshot();
    const l: PgLoad = PgMeter.diff(pg0, b.last);
    const per = (x: number) => Math.round((x / Math.max(1, ok)) * 100) / 100;
    result.pg = {
      commitsPerReq: per(l.xactCommit),
      insertsPerReq: per(l.tupInserted),
      updatesPerReq: per(l.tupUpdated),
      walBytesPerReq: Math.round(l.walBytes / Math.max(1, ok)),
      pgCpuUsPerReq: Math.round(l.cpuUs / Math.max(1, ok)),
    };
  }
  console.log(
    `${config}: ${result.rps} req/s, p99 ${result.p99} ms, daemons ${result.daemonCpuUsPerReq} µs CPU/req${result.pg ? `, PG ${JSON.stringify(result.pg)}` : ''}, non-2xx ${result.non2xx}, errors ${result.errors}, load ${load}`,
  );
  return result;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'dist/daemon/main.js'))) throw new Error('run `npm run build` first');
  const pg = DBS.includes('postgres') ? await startPostgres() : undefined;
  const backends: Backend[] = [];
  try {
    for (const db of DBS as ('sqlite' | 'postgres')[]) backends.push(await startBackend(db, pg));
    // warm-up (JIT, pools, pages), not reported
    for (const b of backends) for (const n of INSTANCES) await drive(b, n, 2, 10);
    const results: Result[] = [];
    const started = new Date().toISOString();
    for (let round = 0; round < ROUNDS; round++)
      for (const b of backends) for (const n of INSTANCES) results.push(await measure(b, n));
    const configs = [...new Set(results.map((r) => r.config))];
    const m = (rs: Result[], f: (r: Result) => number) => median(rs.map(f));
    const summary = configs.map((config) => {
      const rs = results.filter((r) => r.config === config);
      const pgs = rs.map((r) => r.pg).filter((x) => x !== undefined);
      return {
        config,
        rps: m(rs, (r) => r.rps),
        rpsRounds: rs.map((r) => r.rps).join(' / '),
        p99Ms: m(rs, (r) => r.p99),
        daemonCpuUsPerReq: m(rs, (r) => r.daemonCpuUsPerReq),
        non2xx: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
        ...(pgs.length
          ? {
              pgCommitsPerReq: median(pgs.map((p) => p.commitsPerReq)),
              pgInsertsPerReq: median(pgs.map((p) => p.insertsPerReq)),
              pgWalBytesPerReq: median(pgs.map((p) => p.walBytesPerReq)),
              pgCpuUsPerReq: median(pgs.map((p) => p.pgCpuUsPerReq)),
            }
          : {}),
        loads: rs.map((r) => r.load.split(' ')[0]).join(' / '),
      };
    });
    console.table(summary);
    const out = {
      node: process.version,
      started,
      ended: new Date().toISOString(),
      cores: (await import('node:os')).cpus().length,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      rounds: ROUNDS,
      summary,
      results,
    };
    mkdirSync(join(ROOT, 'bench/out'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/out/scale-registry.json'), JSON.stringify(out, null, 2));
  } finally {
    for (const b of backends) await b.stop();
    await pg?.stop();
  }
}

await main();
