/**
 * A real PostgreSQL (Debian's `postgresql` package) for tests: a fresh
 * cluster made by initdb in a temp dir, started by pg_ctl on a free loopback
 * port (and a unix socket in the same dir), trust auth for the loopback only,
 * stopped and removed by stop(). restart(), halt(), kill() and start() serve
 * the fault tests.
 *
 * initdb and the server refuse to run as root; under root (CI, these
 * machines) they run as the `postgres` system user the package creates, and
 * the temp dir is handed to it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './loopback.ts';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url: string;
  port: number;
  /** A new empty database on this server; returns its URL. */
  createDatabase(name: string): string;
  /** Stops the server fast (like a clean restart) and starts it again on the same port. */
  restart(): Promise<void>;
  /** SIGKILLs the postmaster (a crash); start() brings it back with recovery. */
  kill(): void;
  /**
   * Stops the server (fast shutdown: sessions ended, open transactions rolled back) and keeps its data; start() brings
   * it back on the same port.
   */
  halt(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The directory of initdb/pg_ctl: $PG_BIN, else the newest /usr/lib/postgresql/<v>/bin, else PATH. */
function postgresBin(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(base, v, 'bin', 'pg_ctl'))) return join(base, v, 'bin');
  }
  const which = spawnSync('bash', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' });
  return which.status === 0 ? join(which.stdout.trim(), '..') : undefined;
}

/**
 * Whether the PostgreSQL tests run: the server binaries are installed, or
 * this is CI (process.env.CI set), where missing binaries must fail the
 * tests, not skip them.
 */
export function postgresAvailable(): boolean {
  return !!process.env.CI || postgresBin() !== undefined;
}

/** The pids whose parent is `pid` (from /proc; bench/scale-infra.ts uses it too). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** util-linux's runuser: on PATH, or in the sbin directories a minimal PATH (/usr/bin:/bin) leaves out. */
function runuserPath(): string {
  for (const dir of [...(process.env.PATH ?? '').split(':').filter(Boolean), '/usr/sbin', '/sbin']) {
    if (existsSync(join(dir, 'runuser'))) return join(dir, 'runuser');
  }
  return 'runuser';
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  if (!bin)
    throw new Error('PostgreSQL is not installed: run `bash scripts/system-deps.sh` (Debian package postgresql)');
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) => {
    const full = join(bin, cmd);
    const [file, argv] = asRoot ? [runuserPath(), ['-u', 'postgres', '--', full, ...args]] : [full, args];
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-pg-'));
  chmodSync(dir, 0o700);
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=on -c max_connections=200 -c shared_buffers=64MB`;
  const start = async () => {
    run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  };
  await start();
  const psql = (db: string, sql: string) =>
    execFileSync(
      join(bin, 'psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql],
      { encoding: 'utf8' },
    );
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  let stopped = false;
  return {
    url: url('postgres'),
    port,
    createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      psql('postgres', `CREATE DATABASE ${name}`);
      return url(name);
    },
    async restart() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      await start();
    },
    async halt() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    kill() {
      // the postmaster and its children at once, as a machine crash would leave them
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = childrenOf(pid);
      for (const p of [pid, ...children]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    },
    async start() {
      // a killed cluster's processes may take a moment to be reaped before the port and shared memory are free
      for (let i = 0; i < 100; i++) {
        try {
          await start();
          return;
        } catch (e) {
          if (i === 99) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already down (killed by a test)
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The database backends a parameterised suite runs on (`describe.each(BACKENDS)`). */
type Backend = 'sqlite' | 'postgres';
export const BACKENDS: Backend[] = ['sqlite', ...(postgresAvailable() ? (['postgres'] as const) : [])];

/**
 * For the body of `describe.each(BACKENDS)('… on %s', (backend) => …)`: on
 * 'postgres' it starts one PostgreSQL for the suite (beforeAll) and stops it
 * after the suite's other afterAll hooks (registered first, so it runs last).
 * `fresh(prefix)` is a new empty database's URL on it, or undefined on
 * 'sqlite' (the caller's own SQLite path stays the default).
 */
export function backendDatabases(backend: Backend): {
  fresh(prefix: string): string | undefined;
  server(): PostgresServer | undefined;
} {
  let pg: PostgresServer | undefined;
  let n = 0;
  beforeAll(async () => {
    if (backend === 'postgres') pg = await startPostgres();
  }, 120_000);
  afterAll(async () => pg?.stop());
  return {
    fresh(prefix) {
      if (backend !== 'postgres') return undefined;
      if (!pg) throw new Error('backendDatabases: PostgreSQL is not started yet (call fresh() in a hook or a test)');
      return pg.createDatabase(`${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${++n}`);
    },
    server: () => pg,
  };
}
