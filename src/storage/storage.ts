/**
 * The storage seam: what the registry and runtime stores may ask of a
 * database, whatever the backend — SQLite (sqlite.ts, through node:sqlite) or
 * PostgreSQL (postgres.ts). open.ts picks one; docs/storage.md describes the
 * contract.
 *
 * - One owner per database: `openStorage` (open.ts) opens it, applies every
 *   area's migrations, and hands the same object to every store.
 * - Migrations are declared by each area (an ordered, append-only list) and
 *   applied by the one runner (migrate.ts): at open, or later through
 *   `migrate(area, list)` on the same storage (a plugin's tables). Each is
 *   recorded in `schema_version` (area, version, description, applied_at).
 * - `write(fn)`: THE way to change data. Writes arriving together are group
 *   committed (group-commit.ts): one transaction, each write isolated (a
 *   failing write is rolled back alone and its promise rejects), one commit
 *   and one durability barrier for the group. The promise resolves only once
 *   the write is durable; a reply acknowledges it only after that.
 * - `tx(fn)`: atomic read-modify-write inside a write (joins the enclosing
 *   transaction), or an immediate transaction outside one.
 * - `run` / `get` / `all`: statements with positional `?` parameters. Reads
 *   outside a write see committed data.
 * - `durable()`: resolves once everything committed before the call is on
 *   disk (for writes made with `run` outside `write`).
 * - Faults (faults.ts): a full disk rejects with 507 `storage_full`, a database
 *   that cannot be used now with 503 `storage_unavailable` (PostgreSQL out of
 *   reach: `database_unavailable`); `fault` keeps the last one until a commit
 *   succeeds, and `probe()` tells whether the database takes writes again.
 *
 * Statements are asynchronous: a driver that talks to a server cannot answer
 * synchronously. The callbacks of `write`/`tx` are async and await their
 * statements; a statement issued inside them runs in their transaction (the
 * implementation follows the callback's async context), any other statement
 * sees committed data only. A callback should do database work only: the
 * group's transaction stays open while it runs.
 */
import type { OracleKitError } from '../lib/errors.ts';

export interface Migration {
  version: number;
  description: string;
  /** The SQL, or one text per dialect where they differ (docs/storage.md, "PostgreSQL"). */
  sql: string | { sqlite: string; postgres: string };
}

/** A parameter of a statement. */
export type SqlValue = string | number | bigint | null | Uint8Array;

export type Row = Record<string, SqlValue>;

export interface Storage {
  /** Which backend (for the few statements a store must phrase per dialect). */
  readonly dialect: 'sqlite' | 'postgres';
  /** The last fault of the database itself met since the last commit that succeeded; undefined when none. */
  readonly fault: OracleKitError | undefined;
  /**
   * A durable write the size of a real one (rows over several pages, not a header byte): resolves once the database
   * takes such writes (clearing `fault`), else rejects with the fault.
   */
  probe(): Promise<void>;
  /** The bytes free on the disk that holds the database (a SQLite file's); undefined where unknown (PostgreSQL). */
  freeBytes(): Promise<number | undefined>;
  /** Applies an area's migrations not yet recorded in schema_version. */
  migrate(area: string, migrations: Migration[]): Promise<void>;
  /** The last applied migration version of an area (0 when none). */
  schemaVersion(area: string): Promise<number>;
  /** A group-committed write; resolves with fn's result once it is durable. */
  write<T>(fn: () => Promise<T> | T): Promise<T>;
  /** Commits the queued writes now (shutdown); resolves once they are committed. */
  flush(): Promise<void>;
  /** fn in one transaction (joins the enclosing one inside `write`/`tx`). */
  tx<T>(fn: () => Promise<T> | T): Promise<T>;
  /** Whether the caller runs inside a transaction. */
  readonly inTransaction: boolean;
  run(sql: string, params?: SqlValue[]): Promise<{ changes: number }>;
  /** A script of statements without parameters (a migration), in the caller's transaction if it is in one. */
  exec(sql: string): Promise<void>;
  get<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  all<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]>;
  /** Resolves once every commit made before the call is on disk. */
  durable(): Promise<void>;
  /** Runs the pending writes, makes them durable, closes the connection(s). */
  close(): Promise<void>;
}
