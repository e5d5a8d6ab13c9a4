/**
 * The PostgreSQL implementation of the storage seam (src/storage/storage.ts),
 * through the `postgres` driver (porsager): one pool per process, owned here.
 *
 * - Statements: `?` placeholders become `$1…$n` (outside quoted text), once
 *   per text; each runs as a prepared statement of its connection (one round
 *   trip instead of two: see `query`). A statement issued inside a
 *   `write`/`tx` callback runs on that callback's transaction
 *   (AsyncLocalStorage), any other on the pool (committed data).
 * - Group commit (group-commit.ts): the writes queued together run in ONE
 *   transaction on one connection of the pool, each inside its own SAVEPOINT
 *   (a failing write is rolled back alone and its promise rejects), then one
 *   COMMIT. With `synchronous_commit = on` (PostgreSQL's default) a returned
 *   COMMIT is durable, so `write` resolves after COMMIT and `durable()` at
 *   once.
 * - Migrations: the shared runner (migrate.ts), each in its own transaction
 *   under an advisory lock, so daemons starting together on one database
 *   apply each migration once.
 * - A server that cannot be reached (refused, reset, shut down) is an
 *   OracleKitError 503 `database_unavailable`; the pool reconnects by itself
 *   on the next statement once the server is back.
 */
import { backoffMs } from '../lib/backoff.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import postgres from 'postgres';
import { isOracleKitError, OracleKitError } from '../lib/errors.ts';
import type { Migration, Row, SqlValue, Storage } from './storage.ts';
import { GroupCommit, type QueuedWrite } from './group-commit.ts';
import { applyMigrations, schemaVersion } from './migrate.ts';
import { storageFault } from './faults.ts';

type Conn = postgres.Sql | postgres.TransactionSql;

/**
 * A transaction's state: `gone` once its connection closed (the driver
 * rejected `begin`), `lost` resolves then.
 *
 * Why: postgres 3.4.9 writes a statement issued on a transaction's connection
 * after that connection closed from a setImmediate with no socket
 * (connection.js nextWrite: "Cannot read properties of null (reading
 * 'write')"), an uncaught TypeError that ended the daemon when PostgreSQL
 * stopped under load. Its begin() and savepoint() issue such a statement
 * themselves — ROLLBACK [TO] when the callback rejects, COMMIT / RELEASE when
 * it resolves — so once the connection is gone the callbacks here never
 * settle (`HOLD`): `begin` has already rejected (it races the connection's
 * close), which is what the caller sees; the pending callback of that one
 * transaction is garbage of the outage.
 */
interface TxState {
  gone: boolean;
  lost: Promise<void>;
}

/** A promise that never settles (see TxState). */
const HOLD = <T>(): Promise<T> => new Promise<T>(() => {});

/**
 * How long a connection-class error waits for its connection's close before it is taken for an error of a live
 * connection.
 */
const CLOSE_WAIT_MS = 2000;

/** `?` → `$n`, outside single-quoted literals and double-quoted identifiers. */
export function toPositional(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | undefined;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = undefined;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') out += `$${++n}`;
    else out += ch;
  }
  return out;
}

/** Distinct statement texts prepared per connection, at most (beyond: run unprepared). */
const MAX_PREPARED = 1000;

/**
 * SQLSTATEs after which a write is run again: a deadlock between two daemons'
 * groups (40P01: the victim's savepoint rolled back) or a serialization
 * failure (40001). The write is retried in the NEXT group, after this group's
 * COMMIT released the locks its other writes hold (retrying in the same group
 * would meet the same deadlock).
 */
const RETRY = new Set(['40P01', '40001']);
const MAX_RETRIES = 50;

function retryable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRY.has(code);
}

/** Error codes of the driver and of the server meaning "the database is not reachable now". */
const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

function isUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (UNAVAILABLE.has(code) || code === 'database_unavailable');
}

/**
 * What a message may say of the server: `PostgreSQL at host:port/database` —
 * never the user or the password of the URL.
 */
function serverOf(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get('host') || 'localhost';
    return `PostgreSQL at ${host}:${u.port || '5432'}/${decodeURIComponent(u.pathname.replace(/^\//, ''))}`;
  } catch {
    return 'PostgreSQL';
  }
}

interface PostgresOptions {
  /** postgres://user@host:port/database */
  url: string;
  /** Connections of the pool (default 10). */
  max?: number;
}

export class PostgresStorage implements Storage {
  readonly dialect = 'postgres' as const;
  private readonly sql: postgres.Sql;
  private readonly als = new AsyncLocalStorage<{ conn: Conn; tx: TxState }>();
  private readonly group = new GroupCommit((batch) => this.commitBatch(batch));
  /** Statement texts seen (as given → with `$n`), run as prepared statements (`query`). */
  private readonly texts = new Map<string, string>();

  /** `PostgreSQL at host:port/database`, named in errors (serverOf). */
  readonly server: string;
  /** The last fault met (database_unavailable, storage_full, …) since the last group that committed. */
  fault: OracleKitError | undefined;

  constructor(o: PostgresOptions) {
    this.server = serverOf(o.url);
    this.sql = postgres(o.url, {
      max: o.max ?? 10,
      onnotice: () => {},
      // COUNT/SUM/bigint columns read back as numbers, as from SQLite
      types: {
        int8: { to: 20, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
      },
      connect_timeout: 5,
      // seconds before a connection tries again after a failed connect; the driver's default grows as 3^tries / 100
      // up to 20 s (shared by the pool), so a server back after a few seconds' outage was used again only after up
      // to 20 s more. Here: 50 ms doubling to 1 s, with jitter — what a client retrying a 503 finds
      backoff: (tries: number) => backoffMs(tries, { baseMs: 50, maxMs: 1000, jitter: 0.5 }) / 1000,
    });
  }

  /**
   * A fault of the connection → 503 database_unavailable naming the server
   * (never the password); any other error as it is. A COMMIT whose reply was
   * lost with the connection may have been applied: the write is refused
   * all the same (never acknowledged without a returned COMMIT), and a retry
   * with the same Idempotency-Key replays it instead of writing it twice.
   */
  private mapError(e: unknown): unknown {
    let fault = storageFault(e);
    if (!fault && isUnavailable(e) && !isOracleKitError(e)) {
      const cause = (e as { code: string }).code;
      fault = new OracleKitError({
        status: 503,
        code: 'database_unavailable',
        message: `the database (${this.server}) is unreachable (${cause}); retry shortly`,
        details: { cause },
      });
    }
    if (fault) this.fault = fault;
    return fault ?? e;
  }

  /**
   * A small write committed (a transaction id taken): resolves once the server answers and commits (which clears
   * `fault`), else rejects with the fault.
   */
  async probe(): Promise<void> {
    await this.write(() => this.get('SELECT txid_current() AS x'));
  }

  /** The server's disk is not this process's to see: its own monitoring (and a write's 507) tells. */
  async freeBytes(): Promise<number | undefined> {
    return undefined;
  }

  private conn(): Conn {
    const st = this.als.getStore();
    // never a statement on a transaction whose connection closed (TxState)
    if (st?.tx.gone) throw this.mapError(Object.assign(new Error('connection closed'), { code: 'CONNECTION_CLOSED' }));
    return st?.conn ?? this.sql;
  }

  get inTransaction(): boolean {
    return this.als.getStore() !== undefined;
  }

  /**
   * A statement of the caller's connection. A text seen before (the stores'
   * statements are a fixed set) is rewritten once and run as a named prepared
   * statement: the driver parses and describes it once per connection, then
   * sends Bind/Execute only — one round trip, where an unprepared statement
   * with parameters costs two (Parse/Describe, then Bind/Execute). Texts past
   * the cache's bound run unprepared, so a store building texts freely cannot
   * grow the server's per-connection statements without limit.
   */
  private query(sql: string, params: SqlValue[]): postgres.PendingQuery<postgres.Row[]> {
    let text = this.texts.get(sql);
    let prepare = true;
    if (text === undefined) {
      text = toPositional(sql);
      if (this.texts.size < MAX_PREPARED) this.texts.set(sql, text);
      else prepare = false;
    }
    return this.conn().unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare });
  }

  async run(sql: string, params: SqlValue[] = []): Promise<{ changes: number }> {
    try {
      const r = await this.query(sql, params);
      return { changes: r.count };
    } catch (e) {
      throw this.mapError(e);
    }
  }

  async exec(sql: string): Promise<void> {
    try {
      await this.conn().unsafe(sql).simple();
    } catch (e) {
      throw this.mapError(e);
    }
  }

  async get<T = Row>(sql: string, params: SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async all<T = Row>(sql: string, params: SqlValue[] = []): Promise<T[]> {
    try {
      const r = await this.query(sql, params);
      return [...r] as T[];
    } catch (e) {
      throw this.mapError(e);
    }
  }

  /**
   * `sql.begin` with a TxState: `body` gets it; the state turns `gone` when
   * the driver rejects the transaction because its connection closed.
   */
  private begin<T>(body: (t: postgres.TransactionSql, tx: TxState) => Promise<T>): Promise<T> {
    let markLost: () => void = () => {};
    const tx: TxState = { gone: false, lost: new Promise<void>((r) => (markLost = r)) };
    const p = this.sql.begin((t) => body(t, tx)) as Promise<T>;
    p.catch(() => {
      tx.gone = true;
      markLost();
    });
    return p;
  }

  /**
   * What a transaction's callback does with an error: a connection-class
   * error whose connection closed (now or within CLOSE_WAIT_MS) → never
   * settle (TxState); anything else → rethrown, and the driver rolls back.
   */
  private async settle<T>(tx: TxState, e: unknown): Promise<T> {
    if (isUnavailable(e)) {
      let timer: NodeJS.Timeout | undefined;
      const closed = await Promise.race([
        tx.lost.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), CLOSE_WAIT_MS))),
      ]);
      clearTimeout(timer);
      if (closed) return HOLD<T>();
    }
    throw e;
  }

  /**
   * Runs `fn` inside the transaction `t`: its statements on `t`; never settles once `t`'s connection is gone (TxState).
   */
  private async inside<T>(t: Conn, tx: TxState, fn: () => Promise<T> | T): Promise<T> {
    let value: T;
    try {
      value = await this.als.run({ conn: t, tx }, async () => fn());
    } catch (e) {
      return this.settle<T>(tx, e);
    }
    // resolving makes the driver write RELEASE / COMMIT: not on a closed connection
    return tx.gone ? HOLD<T>() : value;
  }

  async tx<T>(fn: () => Promise<T> | T): Promise<T> {
    if (this.als.getStore()) return fn();
    for (let tries = 0; ; tries++) {
      try {
        return await this.begin((t, tx) => this.inside(t, tx, fn));
      } catch (e) {
        if (retryable(e) && tries < MAX_RETRIES) continue; // the whole transaction rolled back: run it again
        throw this.mapError(e);
      }
    }
  }

  write<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.group.write(fn);
  }

  flush(): Promise<void> {
    return this.group.flush();
  }

  /** Groups committed by `write` (for tests and diagnostics). */
  get groupCount(): number {
    return this.group.groups;
  }

  /**
   * A group on one connection of the pool. A deadlock victim (RETRY) runs
   * again in the NEXT group, after this group's COMMIT released the locks its
   * other writes hold (retrying in the same group would meet the same
   * deadlock).
   */
  private async commitBatch(batch: QueuedWrite[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown; retry?: boolean }[] = [];
    try {
      await this.begin(async (t, tx) => {
        for (const b of batch) {
          if (tx.gone) return HOLD<void>(); // no SAVEPOINT on a closed connection (TxState)
          try {
            const value = await t.savepoint((s) => this.inside(s, tx, b.fn));
            outcomes.push({ ok: true, value });
          } catch (e) {
            if (isUnavailable(e)) return this.settle<void>(tx, e); // the connection is gone: the whole group fails
            outcomes.push({ ok: false, value: e, retry: retryable(e) && b.tries < MAX_RETRIES });
          }
        }
        if (tx.gone) return HOLD<void>(); // no COMMIT on a closed connection
      });
    } catch (e) {
      throw this.mapError(e);
    }
    // COMMIT returned: with synchronous_commit = on the group is durable
    this.fault = undefined;
    batch.forEach((b, i) => {
      const o = outcomes[i]!;
      if (o.ok) b.resolve(o.value);
      else if (o.retry) this.group.enqueue({ ...b, tries: b.tries + 1 });
      else b.reject(o.value);
    });
  }

  /** A returned COMMIT is on disk (synchronous_commit = on). */
  durable(): Promise<void> {
    return Promise.resolve();
  }

  migrate(area: string, migrations: Migration[]): Promise<void> {
    return applyMigrations(this, area, migrations);
  }

  schemaVersion(area: string): Promise<number> {
    return schemaVersion(this, area);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.sql.end({ timeout: 5 });
  }
}
