/**
 * The storage seam: what the registry and runtime stores may ask of a
 * database, whatever the backend. src/storage/db.ts is the one implementation
 * (SQLite through node:sqlite); PostgreSQL (issue #17) plugs in here by
 * implementing the same interface. docs/storage.md describes the contract.
 *
 * The contract, backend-free:
 * - One owner per database: `openDatabase` (src/storage/db.ts) opens it,
 *   applies every area's migrations, and hands the same object to every store.
 * - Migrations are declared by each area (an ordered, append-only list) and
 *   applied by storage: at open, or later through `migrate(area, list)` on the
 *   same connection (a plugin's tables). Each is recorded in `schema_version`
 *   (area, version, description, applied_at).
 * - `write(fn)`: THE way to change data. Writes arriving together are group
 *   committed: one transaction, each write isolated (a failing write is rolled
 *   back alone and its promise rejects), one commit and one durability barrier
 *   for the group. The promise resolves only once the write is durable; a
 *   reply acknowledges it only after that.
 * - `tx(fn)`: atomic read-modify-write inside a write (joins the enclosing
 *   transaction), or an immediate transaction outside one.
 * - `run` / `get` / `all`: statements with positional `?` parameters. Reads
 *   outside a write see committed data.
 * - `durable()`: resolves once everything committed before the call is on
 *   disk (for writes made with `run` outside `write`).
 * - `onRollback(fn)`: stores that cache committed rows drop their caches when
 *   a group (or part of it) rolls back.
 *
 * Statements are synchronous in this version: node:sqlite is, and the
 * registry's hot paths would pay a promise per statement for nothing. A
 * backend whose driver is asynchronous (PostgreSQL) needs `run`/`get`/`all`
 * to return promises and the stores' write functions to await them; every
 * statement of every store already goes through this interface inside
 * `write`/`tx` (no store touches a driver, a pragma or a connection), so that
 * change is confined to the stores' bodies (docs/storage.md, "PostgreSQL").
 */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** A parameter of a statement. */
export type SqlValue = string | number | bigint | null | Uint8Array;

export type Row = Record<string, SqlValue>;

export interface Storage {
  /** Which backend (for the few statements a store must phrase per dialect). */
  readonly dialect: 'sqlite';
  /** Applies an area's migrations not yet recorded in schema_version. */
  migrate(area: string, migrations: Migration[]): void;
  /** The last applied migration version of an area (0 when none). */
  schemaVersion(area: string): number;
  /** A group-committed write; resolves with fn's result once it is durable. */
  write<T>(fn: () => T): Promise<T>;
  /** Commits the queued writes now (shutdown). */
  flush(): void;
  /** fn in one transaction (joins the enclosing one inside `write`/`tx`). */
  tx<T>(fn: () => T): T;
  /** Whether a transaction is open on this connection (a cache must not fill from uncommitted rows). */
  readonly inTransaction: boolean;
  run(sql: string, params?: SqlValue[]): { changes: number; lastInsertRowid: number };
  get<T = Row>(sql: string, params?: SqlValue[]): T | undefined;
  all<T = Row>(sql: string, params?: SqlValue[]): T[];
  /** Resolves once every commit made before the call is on disk. */
  durable(): Promise<void>;
  /** Registers a listener called when a write's changes are rolled back. */
  onRollback(fn: () => void): void;
  /** Runs the pending writes, makes them durable, closes the connection. */
  close(): void;
}
