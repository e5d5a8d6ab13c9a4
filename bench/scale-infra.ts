/**
 * What bench/scale-registry.ts and bench/scale-runtime.ts share: the CPU
 * account of processes (/proc), the load of a real PostgreSQL
 * (pg_stat_database, WAL bytes, its processes' CPU) and of a real
 * redis-server (INFO commandstats, INFO cpu), read before and after a
 * measured batch. The servers themselves are started by test/helpers
 * (postgres.ts, redis.ts), as the tests start them.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import postgres from 'postgres';
import { childrenOf } from '../test/helpers/postgres.ts';
import { cpuUsOf } from './proc.ts';

/** The postmaster listening on `port` (its command line carries `-p <port>`). */
function postmasterOf(port: number): number {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      if (argv[0]?.endsWith('/postgres') && argv.includes('-p') && argv[argv.indexOf('-p') + 1] === String(port))
        return Number(d);
    } catch {
      // exited while we looked
    }
  }
  throw new Error(`no postmaster on port ${port}`);
}

export interface PgSnapshot {
  xactCommit: number;
  tupInserted: number;
  tupUpdated: number;
  tupDeleted: number;
  walBytes: number;
  /** CPU µs of every process of the cluster, by pid (backends come and go). */
  cpu: Map<number, number>;
}

export interface PgLoad {
  xactCommit: number;
  tupInserted: number;
  tupUpdated: number;
  tupDeleted: number;
  walBytes: number;
  cpuUs: number;
}

/**
 * Reads the cluster's counters for one database. A backend flushes its
 * statistics when it goes idle, but at most once a second; one that flushed
 * less than a second ago tries again 10 s later (PostgreSQL 15's
 * PGSTAT_IDLE_INTERVAL), so a snapshot waits 10.5 s for the counters of the
 * work before it to be complete (read 1.2 s after, they missed 8–19 % of it).
 */
export class PgMeter {
  private readonly sql: postgres.Sql;
  private readonly postmaster: number;
  private readonly database: string;
  constructor(url: string, port: number, database: string) {
    this.database = database;
    this.sql = postgres(url, { max: 1, onnotice: () => {} });
    this.postmaster = postmasterOf(port);
  }
  async snapshot(): Promise<PgSnapshot> {
    await new Promise((r) => setTimeout(r, 10_500));
    await this.sql`SELECT pg_stat_clear_snapshot()`;
    const [row] = await this.sql<
      { xact_commit: string; tup_inserted: string; tup_updated: string; tup_deleted: string; lsn: string }[]
    >`
      SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS lsn
      FROM pg_stat_database WHERE datname = ${this.database}`;
    const cpu = new Map<number, number>();
    for (const p of [this.postmaster, ...childrenOf(this.postmaster)]) cpu.set(p, cpuUsOf(p));
    return {
      xactCommit: Number(row!.xact_commit),
      tupInserted: Number(row!.tup_inserted),
      tupUpdated: Number(row!.tup_updated),
      tupDeleted: Number(row!.tup_deleted),
      walBytes: Number(row!.lsn),
      cpu,
    };
  }
  /** Tables in the database's public schema (0 until something migrated it). */
  async tables(): Promise<number> {
    const [row] = await this.sql<
      { n: string }[]
    >`SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'public'`;
    return Number(row!.n);
  }
  /** after − before; the meter's own statements (one transaction per snapshot) are subtracted. */
  static diff(a: PgSnapshot, b: PgSnapshot): PgLoad {
    let cpuUs = 0;
    for (const [pid, us] of b.cpu) cpuUs += us - (a.cpu.get(pid) ?? 0);
    return {
      xactCommit: b.xactCommit - a.xactCommit - 2,
      tupInserted: b.tupInserted - a.tupInserted,
      tupUpdated: b.tupUpdated - a.tupUpdated,
      tupDeleted: b.tupDeleted - a.tupDeleted,
      walBytes: b.walBytes - a.walBytes,
      cpuUs,
    };
  }
  close(): Promise<void> {
    return this.sql.end({ timeout: 1 });
  }
}

export interface RedisSnapshot {
  /** calls per command, lower-case name */
  calls: Record<string, number>;
  cpuUs: number;
  /** connections accepted so far (a client that reconnects mid-batch shows here) */
  connections: number;
}

/** INFO commandstats and INFO cpu of the redis-server on `port` (redis-cli, as installed with redis-server). */
export function redisSnapshot(port: number): RedisSnapshot {
  const out = execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'INFO', 'all'], { encoding: 'utf8' });
  const calls: Record<string, number> = {};
  let cpu = 0;
  let connections = 0;
  for (const line of out.split(/\r?\n/)) {
    const k = /^total_connections_received:(\d+)/.exec(line);
    if (k) connections = Number(k[1]);
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line);
    if (m) calls[m[1]!] = Number(m[2]);
    const c = /^used_cpu_(sys|user):([\d.]+)/.exec(line);
    if (c) cpu += Number(c[2]) * 1e6;
  }
  return { calls, cpuUs: Math.round(cpu), connections };
}

/**
 * A snapshot once Redis has gone quiet (no command but our INFO for 300 ms):
 * under load an instance's client sends its queued commands seconds after the
 * streams they belong to ended, so a snapshot taken at once misses most of them.
 */
export async function redisQuietSnapshot(port: number, maxMs = 60_000): Promise<RedisSnapshot> {
  let prev = redisSnapshot(port);
  for (const t0 = Date.now(); Date.now() - t0 < maxMs;) {
    await new Promise((r) => setTimeout(r, 300));
    const next = redisSnapshot(port);
    // heartbeats (a lease renewal every few seconds) are the only commands left when quiet
    if (redisDiff(prev, next).total <= 2) return next;
    prev = next;
  }
  throw new Error(`Redis on port ${port} did not go quiet in ${maxMs} ms`);
}

/**
 * Commands run between two snapshots (INFO not counted), by command, and in all; connections accepted (redis-cli's own
 * included).
 */
export function redisDiff(
  a: RedisSnapshot,
  b: RedisSnapshot,
): { total: number; byCommand: Record<string, number>; cpuUs: number; connections: number } {
  const byCommand: Record<string, number> = {};
  let total = 0;
  for (const [cmd, n] of Object.entries(b.calls)) {
    // our own INFOs are not the load
    if (cmd === 'info') continue;
    const d = n - (a.calls[cmd] ?? 0);
    if (d > 0) {
      byCommand[cmd] = d;
      total += d;
    }
  }
  // redis-cli's own connection for the second INFO
  return { total, byCommand, cpuUs: b.cpuUs - a.cpuUs, connections: b.connections - a.connections - 1 };
}

/** Rows per table of a SQLite file (read-only; WAL lets it read while the instances write). */
export function sqliteRows(path: string): Record<string, number> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const out: Record<string, number> = {};
    for (const { name } of db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[]) {
      out[name] = Number((db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n);
    }
    return out;
  } finally {
    db.close();
  }
}

/** Rows added per table between two counts, divided by `per` (tables that did not grow left out). */
export function rowsAdded(a: Record<string, number>, b: Record<string, number>, per: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [t, n] of Object.entries(b))
    if (n > (a[t] ?? 0)) out[t] = Math.round(((n - (a[t] ?? 0)) / per) * 100) / 100;
  return out;
}

/** The load average over 1, 5 and 15 minutes (what `uptime` prints). */
export function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((s.length * p) / 100) - 1)] ?? NaN;
}

export const median = (xs: number[]): number => percentile(xs, 50);
