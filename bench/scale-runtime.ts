/**
 * The oracle runtime on one and two instances, SQLite and PostgreSQL:
 * tokens/s and time to first token at 200 concurrent streaming
 * turns, split evenly across the instances, against the scripted
 * OpenAI-compatible model server in its own process (bench/model-server.ts,
 * streaming as fast as it can), with the load each turn and each token puts
 * on Redis and PostgreSQL.
 *
 *   npm run build && node bench/scale-runtime.ts [--db sqlite,postgres] [--instances 1,2] [--redis-single]
 * [--redis-no-command-timeout] [--streams 200] [--tokens 500] [--rounds 3] [--tree <checkout>]
 *
 * Instances are child processes running createOracleApp from dist/ (as
 * test/e2e/runtime-cluster.test.ts does): one oracle (one mnemonic), one
 * database — a SQLite file in WAL mode shared by the processes, or a
 * PostgreSQL database passed as `databaseUrl` and ORACLE_DATABASE_URL (the
 * runtime on PostgreSQL, branch s7-rtpg; the bench stops with a clear error
 * when the runtime built in dist/ does not store into it) — and, with two
 * instances, a real redis-server (ORACLE_REDIS_URL). One instance runs
 * without Redis (the single-process default); `--redis-single` adds a
 * configuration "1 + Redis" to separate Redis's cost from the second
 * instance's. `--redis-no-command-timeout` is an experiment: it turns off
 * node-redis's per-command timeout on the instances' cluster clients (private
 * fields), which under load dropped run events it could not write within 5 s
 * — for a `--tree` built before the cluster turned that timeout off itself.
 *
 * Per batch: `--streams` sessions are created (not timed), then as many
 * turns of `--tokens` tokens start at once, turn i on instance i mod n, each
 * read to its end by the client (this process). Redis is read when it has
 * gone quiet before and after the batch: under load an instance's client
 * sends the commands of a turn seconds after the turn's stream ended. Reported per configuration
 * (medians of the rounds, interleaved across configurations): tokens/s
 * (all tokens ÷ the batch's wall time), time to first token p50/p99 (from
 * the request to its first `message` event), the instances' CPU per token
 * (/proc, all instances, the whole turn's work included), Redis commands per
 * token and per turn (INFO commandstats), PostgreSQL transactions, inserted
 * and updated rows and WAL bytes per turn (pg_stat_database), and the CPU of
 * the Redis and PostgreSQL servers. Writes bench/out/scale-runtime.json.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { didFromMnemonic, generateMnemonic, generateSigner, type Signer } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres.ts';
import { startRedis, type RedisServer } from '../test/helpers/redis.ts';
import { instanceUrl } from '../test/helpers/runtime-cluster.ts';
import { cpuUsOf } from './proc.ts';
import {
  loadavg,
  median,
  percentile,
  PgMeter,
  redisDiff,
  redisQuietSnapshot,
  rowsAdded,
  sqliteRows,
  type PgLoad,
} from './scale-infra.ts';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    instances: { type: 'string', default: '1,2' },
    'redis-single': { type: 'boolean', default: false },
    'redis-no-command-timeout': { type: 'boolean', default: false },
    streams: { type: 'string', default: '200' },
    tokens: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    tree: { type: 'string', default: join(import.meta.dirname, '..') },
  },
});
/** The checkout whose dist/ the instances run (another worktree's build, e.g. a branch not merged yet). */
const TREE = resolve(values.tree);
const DBS = values.db.split(',');
for (const d of DBS)
  if (d !== 'sqlite' && d !== 'postgres')
    throw new Error(`--db ${JSON.stringify(d)}: valid are sqlite, postgres (comma-separated)`);
const INSTANCES = values.instances.split(',').map(Number);
for (const n of INSTANCES)
  if (n !== 1 && n !== 2)
    throw new Error(`--instances ${JSON.stringify(values.instances)}: valid are 1, 2 (comma-separated)`);
const STREAMS = Number(values.streams);
const TOKENS = Number(values.tokens);
const ROUNDS = Number(values.rounds);
// the runtime's deferred writes (the run's end, history) land just after the stream ends
const SETTLE_MS = 500;

/** One runtime instance: createOracleApp of dist/, its URL on stdout once it serves. */
const INSTANCE = `
const { createOracleApp } = await import(process.env.T_ENTRY);
const app = createOracleApp({
  config: { name: 'Scale Oracle', model: 'scripted-model' },
  ...(process.env.T_DATABASE_URL ? { databaseUrl: process.env.T_DATABASE_URL } : { dbPath: process.env.T_DB }),
  signingMnemonic: process.env.T_MNEMONIC,
  logger: { info: () => {}, error: (l) => process.stderr.write(l + '\\n') },
});
const url = await app.listen(0, '127.0.0.1');
while (!app.runtime.signingKeyLoaded || app.runtime.status().pending.length > 0) await new Promise((r) => setTimeout(r, 5));
// --redis-no-command-timeout (an experiment, not a setting of the runtime): node-redis 6 gives every command a
// 5 s timeout (an AbortSignal.timeout each) and drops a command still unwritten after it; this turns it off on the
// cluster's clients, reaching into their private fields
const cluster = app.runtime.cluster;
if (cluster && process.env.T_REDIS_NO_TIMEOUT) {
  for (const k of ['client', 'sub', 'adapterSub']) {
    if (!cluster[k]?._commandOptions) throw new Error('--redis-no-command-timeout: the cluster has no ' + k + '._commandOptions in this build');
    cluster[k]._commandOptions.timeout = 0;
  }
}
process.stdout.write(JSON.stringify({ url }) + '\\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
`;

interface Instance {
  url: string;
  child: ChildProcess;
}

async function spawnInstance(cwd: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', INSTANCE], {
    cwd,
    env: {
      PATH: process.env.PATH,
      ...(values['redis-no-command-timeout'] ? { T_REDIS_NO_TIMEOUT: '1' } : {}),
      T_ENTRY: pathToFileURL(join(TREE, 'dist', 'index.js')).href,
      LLM_PROVIDER_API_KEY: 'bench',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { url: (await instanceUrl(child)).url, child };
}

interface Setup {
  name: string;
  instances: Instance[];
  oracleDid: string;
  redis?: RedisServer;
  meter?: PgMeter;
  /** The shared SQLite file (rows counted per turn). */
  sqlite?: string;
  stop(): Promise<void>;
}

async function startSetup(
  db: 'sqlite' | 'postgres',
  n: number,
  withRedis: boolean,
  modelBaseURL: string,
  pg: PostgresServer | undefined,
  index: number,
): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-scale-rt-'));
  const mnemonic = generateMnemonic();
  const env: Record<string, string> = { T_MNEMONIC: mnemonic, LLM_BASE_URL: modelBaseURL };
  let meter: PgMeter | undefined;
  if (db === 'postgres') {
    const name = `scale_runtime_${index}`;
    const url = pg!.createDatabase(name);
    Object.assign(env, { T_DATABASE_URL: url, ORACLE_DATABASE_URL: url });
    meter = new PgMeter(url, pg!.port, name);
  } else env.T_DB = join(dir, 'oracle.db');
  const redis = withRedis ? await startRedis() : undefined;
  if (redis) env.ORACLE_REDIS_URL = redis.url;
  const instances: Instance[] = [];
  // one after the other: the first applies the migrations; cwd is the temp dir, so a runtime that ignored the database
  // URL writes its ./data/oracle.db there
  for (let i = 0; i < n; i++) instances.push(await spawnInstance(dir, env));
  const setup: Setup = {
    name: `${db} × ${n}${n === 1 && redis ? ' + Redis' : ''}`,
    instances,
    oracleDid: didFromMnemonic(mnemonic),
    ...(redis ? { redis } : {}),
    ...(meter ? { meter } : {}),
    ...(env.T_DB ? { sqlite: env.T_DB } : {}),
    async stop() {
      for (const i of instances) {
        if (i.child.exitCode !== null) continue;
        const gone = new Promise((r) => i.child.once('exit', r));
        i.child.kill('SIGTERM');
        await gone;
      }
      await meter?.close();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (meter) {
    const tables = await meter.tables();
    if (tables === 0) {
      await setup.stop();
      throw new Error(
        `--db postgres: the runtime in dist/ created no table in its PostgreSQL database (createOracleApp({ databaseUrl }) / ORACLE_DATABASE_URL not supported by this build: the runtime on PostgreSQL is branch s7-rtpg)`,
      );
    }
  }
  return setup;
}

interface Prepared {
  base: string;
  sessionId: string;
  headers: Record<string, string>;
}

async function prepare(base: string, user: Signer, oracleDid: string): Promise<Prepared> {
  const h = async () => ({
    authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
    'x-auth-type': 'ucan',
    'content-type': 'application/json',
  });
  const r = await fetch(`${base}/sessions`, { method: 'POST', headers: await h(), body: '{}' });
  if (r.status !== 201) throw new Error(`POST /sessions: ${r.status} ${await r.text()}`);
  const { sessionId } = (await r.json()) as { sessionId: string };
  return { base, sessionId, headers: await h() };
}

/**
 * One streaming turn; its first-token time (ms from the request) and its token count; a refused turn: its status and
 * error code.
 */
async function turn(p: Prepared, tokens: number): Promise<{ firstToken: number; tokens: number; refused?: string }> {
  const t0 = performance.now();
  const res = await fetch(`${p.base}/messages/${p.sessionId}`, {
    method: 'POST',
    headers: p.headers,
    body: JSON.stringify({ message: `go ${tokens}`, stream: true }),
  });
  if (res.status !== 200) {
    const text = await res.text();
    let code = text.slice(0, 80);
    try {
      code = (JSON.parse(text) as { code?: string }).code ?? code;
    } catch {
      // not JSON: the text itself
    }
    return { firstToken: NaN, tokens: 0, refused: `${res.status} ${code}` };
  }
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let firstToken = 0;
  let n = 0;
  let carry = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    carry += dec.decode(value, { stream: true });
    const cut = carry.lastIndexOf('\n\n');
    if (cut < 0) continue;
    const got = carry.slice(0, cut).split('event: message\n').length - 1;
    carry = carry.slice(cut + 2);
    if (got > 0 && !firstToken) firstToken = performance.now() - t0;
    n += got;
  }
  if (n !== tokens) throw new Error(`a stream carried ${n} tokens, expected ${tokens}`);
  return { firstToken, tokens: n };
}

interface Result {
  config: string;
  tokensPerS: number;
  wallMs: number;
  ttftP50: number;
  ttftP99: number;
  cpuUsPerToken: number;
  cpuMsPerTurn: number;
  /** turns refused, by status and code */
  refused: Record<string, number>;
  load: string;
  /** Rows added per turn, by table (inserts only; updates do not show). */
  sqliteRowsPerTurn?: Record<string, number>;
  redis?: { perToken: number; perTurn: number; byCommandPerTurn: Record<string, number>; cpuUsPerToken: number };
  pg?: {
    commitsPerTurn: number;
    insertsPerTurn: number;
    updatesPerTurn: number;
    walBytesPerTurn: number;
    cpuUsPerToken: number;
  };
}

const users = await Promise.all(Array.from({ length: STREAMS }, () => generateSigner()));
const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
const round2 = (x: number) => Math.round(x * 100) / 100;

/** One batch; `warm` (the warm-up) skips the PostgreSQL and Redis readings and their waits. */
async function batch(s: Setup, tokens: number, warm = false): Promise<Result> {
  const prepared = await Promise.all(
    users.map((u, i) => prepare(s.instances[i % s.instances.length]!.url, u, s.oracleDid)),
  );
  await settle();
  const pg0 = warm ? undefined : await s.meter?.snapshot();
  const r0 = s.redis && !warm ? await redisQuietSnapshot(s.redis.port) : undefined;
  const rows0 = s.sqlite ? sqliteRows(s.sqlite) : undefined;
  const cpu0 = s.instances.map((i) => cpuUsOf(i.child.pid!));
  const load = loadavg();
  const t0 = performance.now();
  const all = await Promise.all(prepared.map((p) => turn(p, tokens)));
  const wallMs = performance.now() - t0;
  // a refused turn (e.g. 503 redis_unavailable under load) is counted, not measured
  const turns = all.filter((t) => t.refused === undefined);
  const refused: Record<string, number> = {};
  for (const t of all) if (t.refused) refused[t.refused] = (refused[t.refused] ?? 0) + 1;
  // the instances' Redis clients may still be sending what the turns queued
  const r1 = s.redis && !warm ? await redisQuietSnapshot(s.redis.port) : undefined;
  await settle();
  const cpu = s.instances.reduce((a, i, k) => a + cpuUsOf(i.child.pid!) - cpu0[k]!, 0);
  const total = turns.reduce((a, t) => a + t.tokens, 0);
  const ttft = turns.map((t) => t.firstToken);
  const result: Result = {
    config: s.name,
    tokensPerS: Math.round(total / (wallMs / 1000)),
    wallMs: Math.round(wallMs),
    ttftP50: Math.round(median(ttft)),
    ttftP99: Math.round(percentile(ttft, 99)),
    cpuUsPerToken: round2(cpu / total),
    cpuMsPerTurn: round2(cpu / 1000 / turns.length),
    refused,
    load,
  };
  if (s.sqlite && rows0) result.sqliteRowsPerTurn = rowsAdded(rows0, sqliteRows(s.sqlite), turns.length);
  if (s.redis && r0 && r1) {
    const d = redisDiff(r0, r1);
    result.redis = {
      perToken: round2(d.total / total),
      perTurn: round2(d.total / turns.length),
      byCommandPerTurn: Object.fromEntries(Object.entries(d.byCommand).map(([k, v]) => [k, round2(v / turns.length)])),
      cpuUsPerToken: round2(d.cpuUs / total),
    };
    // the events of one loop turn go out as ONE RPUSH (src/runtime/cluster), so the RPUSH count is not the event count;
    // that every event reaches the list is what test/e2e/runtime-cluster-load.test.ts checks
  }
  if (s.meter && pg0) {
    const l: PgLoad = PgMeter.diff(pg0, await s.meter.snapshot());
    const per = (x: number) => round2(x / turns.length);
    result.pg = {
      commitsPerTurn: per(l.xactCommit),
      insertsPerTurn: per(l.tupInserted),
      updatesPerTurn: per(l.tupUpdated),
      walBytesPerTurn: Math.round(l.walBytes / turns.length),
      cpuUsPerToken: round2(l.cpuUs / total),
    };
  }
  return result;
}

function child(script: string): { proc: ChildProcess; ready: Promise<{ baseURL: string }> } {
  const proc = fork(join(ROOT, 'bench', script), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return { proc, ready: new Promise((r) => proc.once('message', (m) => r(m as { baseURL: string }))) };
}

const model = child('model-server.ts');
const { baseURL } = await model.ready;
const pg = DBS.includes('postgres') ? await startPostgres() : undefined;
const setups: Setup[] = [];
try {
  let index = 0;
  for (const db of DBS as ('sqlite' | 'postgres')[]) {
    try {
      for (const n of INSTANCES) {
        setups.push(await startSetup(db, n, n > 1, baseURL, pg, index++));
        if (n === 1 && values['redis-single']) setups.push(await startSetup(db, 1, true, baseURL, pg, index++));
      }
    } catch (e) {
      if (db !== 'postgres' || !/created no table/.test((e as Error).message)) throw e;
      // the SQLite rows still run; the PostgreSQL ones wait for a runtime that stores there
      console.error(`skipped: ${(e as Error).message}`);
    }
  }
  // warm-up (JIT, pools, pages): two short batches per configuration
  for (const s of setups) for (let i = 0; i < 2; i++) await batch(s, 50, true);
  const started = new Date().toISOString();
  const results: Result[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of setups) {
      const x = await batch(s, TOKENS);
      results.push(x);
      console.log(
        `${x.config}: ${x.tokensPerS} tokens/s (${STREAMS} × ${TOKENS} in ${x.wallMs} ms), TTFT p50 ${x.ttftP50} p99 ${x.ttftP99} ms, ${x.cpuUsPerToken} µs CPU/token, ${x.cpuMsPerTurn} ms CPU/turn${Object.keys(x.refused).length ? `, REFUSED ${JSON.stringify(x.refused)}` : ''}${x.sqliteRowsPerTurn ? `, SQLite rows/turn ${JSON.stringify(x.sqliteRowsPerTurn)}` : ''}${x.redis ? `, Redis ${JSON.stringify(x.redis)}` : ''}${x.pg ? `, PG ${JSON.stringify(x.pg)}` : ''}, load ${x.load}`,
      );
    }
  }
  const summary = setups.map((s) => {
    const rs = results.filter((r) => r.config === s.name);
    const m = (f: (r: Result) => number | undefined) => {
      const v = rs.map(f).filter((x) => x !== undefined);
      return v.length ? median(v) : undefined;
    };
    return {
      config: s.name,
      tokensPerS: m((r) => r.tokensPerS),
      rounds: rs.map((r) => r.tokensPerS).join(' / '),
      ttftP50Ms: m((r) => r.ttftP50),
      ttftP99Ms: m((r) => r.ttftP99),
      cpuUsPerToken: m((r) => r.cpuUsPerToken),
      cpuMsPerTurn: m((r) => r.cpuMsPerTurn),
      redisPerToken: m((r) => r.redis?.perToken),
      redisPerTurn: m((r) => r.redis?.perTurn),
      redisCpuUsPerToken: m((r) => r.redis?.cpuUsPerToken),
      pgCommitsPerTurn: m((r) => r.pg?.commitsPerTurn),
      pgInsertsPerTurn: m((r) => r.pg?.insertsPerTurn),
      pgWalBytesPerTurn: m((r) => r.pg?.walBytesPerTurn),
      pgCpuUsPerToken: m((r) => r.pg?.cpuUsPerToken),
      refusedTurns: rs.reduce((a, r) => a + Object.values(r.refused).reduce((x, y) => x + y, 0), 0),
      loads: rs.map((r) => r.load.split(' ')[0]).join(' / '),
    };
  });
  console.table(summary);
  mkdirSync(join(ROOT, 'bench/out'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/out/scale-runtime.json'),
    JSON.stringify(
      {
        node: process.version,
        tree: TREE,
        redisNoCommandTimeout: values['redis-no-command-timeout'],
        started,
        ended: new Date().toISOString(),
        cores: cpus().length,
        streams: STREAMS,
        tokens: TOKENS,
        rounds: ROUNDS,
        summary,
        results,
      },
      null,
      2,
    ),
  );
} finally {
  for (const s of setups) await s.stop();
  await pg?.stop();
  model.proc.send({ type: 'stop' });
}
