/**
 * The SQLite implementation of the storage seam (storage.ts) and the one
 * module that talks to SQLite (node:sqlite): one connection per database
 * file, WAL journal, foreign keys on, a busy timeout so a second connection
 * waits rather than fails. Migrations (migrate.ts) and the group commit
 * (group-commit.ts) are the shared ones; this module supplies the group's
 * batch commit.
 *
 * Durability. Nothing acknowledged is lost when the process is killed or the
 * machine loses power. synchronous=FULL keeps that promise by fsyncing the
 * WAL inside every COMMIT — on the event loop, which then serves nothing for
 * the length of the fsync. The default here ('async') keeps the same promise
 * without that stall: the connection runs synchronous=NORMAL (COMMIT appends
 * to the WAL without fsync; checkpoints still fsync the WAL before copying it
 * and the database after), and `durable()` fsyncs the WAL file on libuv's
 * thread pool, grouping every commit made before it started. A writer
 * acknowledges only after `await db.durable()`, so an acknowledged write is
 * on disk exactly as with FULL. The difference: a committed write is visible
 * to readers of this process up to one fsync before it is durable (a power
 * loss in that window loses a write nobody was told had succeeded).
 * Autocommit writes and transactions that nobody awaits are made durable in
 * the background by the same grouped fsync.
 *
 * Statements are asynchronous at the seam and synchronous underneath:
 * `run`/`get`/`all` execute at once and return an already-settled promise.
 * One connection serves everything, so while a group or a `tx` holds it
 * (between its BEGIN and its COMMIT, across the awaits of its callbacks) only
 * statements of that callback's async context (AsyncLocalStorage) run on it;
 * any other statement waits for the COMMIT and so never sees a savepoint
 * that may still roll back.
 *
 * Faults. A file that fails `PRAGMA quick_check` is refused when it is opened (`database_corrupt`): a damaged
 * page would otherwise be served, or written over. An error of SQLite or of the WAL's fsync that means a full
 * disk or an unusable file becomes 507 `storage_full` or 503 `storage_unavailable` (faults.ts) and is kept in
 * `fault` until a commit succeeds again.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { DatabaseSync as Database, StatementSync } from 'node:sqlite';
import { closeSync, existsSync, fsync, fsyncSync, openSync } from 'node:fs';
import type { Migration, Row, SqlValue, Storage } from './storage.ts';
import { prepareDatabaseFile } from './files.ts';
import { storageFault } from './faults.ts';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** What a readiness probe writes: more than a page's slack, about what a short turn stores. */
const PROBE_BYTES = 64 * 1024;
import { storageError, type OracleKitError } from '../lib/errors.ts';
import { GroupCommit, type QueuedWrite } from './group-commit.ts';
import { applyMigrations, schemaVersion } from './migrate.ts';
import { loadSqlite } from './node-sqlite.ts';

const { DatabaseSync } = await loadSqlite();

interface SqliteOptions {
  /** Path of the database file, or ':memory:'. */
  path: string;
  /**
   * 'async' (default): synchronous=NORMAL plus `durable()` — an fsync of the
   * WAL off the event loop before a write is acknowledged.
   * 'FULL': SQLite fsyncs inside every COMMIT; `durable()` resolves at once.
   * 'NORMAL': no fsync before acknowledging (a power loss may lose
   * acknowledged writes); `durable()` resolves at once.
   */
  synchronous?: 'async' | 'FULL' | 'NORMAL';
}

export class SqliteStorage implements Storage {
  readonly dialect = 'sqlite' as const;
  private readonly raw: Database;
  readonly path: string;
  private readonly stmts = new Map<string, StatementSync>();
  /** Whether `durable()` must fsync the WAL ('async' mode on a file). */
  private readonly asyncSync: boolean;
  private walFd: number | undefined;
  private syncing = false;
  /** Commits made through this object (noteCommit). */
  private commitSeq = 0;
  /** Commits known to be on disk: covered by a completed fsync. */
  private syncedSeq = 0;
  private waiters: { seq: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  /** fsyncs of the WAL started (for tests and diagnostics). */
  fsyncCount = 0;
  private readonly group = new GroupCommit((batch) => this.commitBatch(batch));
  /** The async context of the callbacks running inside the open transaction. */
  private readonly als = new AsyncLocalStorage<Holder>();
  /** Who holds the connection (a group or a `tx`), undefined when it is free. */
  private holder: Holder | undefined;
  /** Statements and transactions waiting for the connection to be free. */
  private waitingForFree: (() => void)[] = [];
  /** The last fault met (faults.ts) since the last commit that succeeded. */
  fault: OracleKitError | undefined;

  constructor(opts: SqliteOptions) {
    this.path = opts.path;
    prepareDatabaseFile(opts.path); // the directory (0700), the file and its -wal and -shm 0600 (storage/files.ts)
    this.raw = new DatabaseSync(opts.path);
    const mode = opts.synchronous ?? 'async';
    this.asyncSync = mode === 'async' && opts.path !== ':memory:';
    try {
      this.raw.exec('PRAGMA journal_mode = WAL');
      this.raw.exec(`PRAGMA synchronous = ${mode === 'FULL' ? 'FULL' : 'NORMAL'}`);
      this.raw.exec('PRAGMA foreign_keys = ON');
      this.raw.exec('PRAGMA busy_timeout = 5000');
      if (opts.path !== ':memory:') this.checkIntegrity();
    } catch (e) {
      this.raw.close();
      throw e;
    }
  }

  /**
   * `PRAGMA quick_check` (https://sqlite.org/pragma.html#pragma_quick_check): every page readable and well formed,
   * without comparing indexes to their tables — linear in the file's size. A failure, or a file so damaged that the
   * check itself fails (SQLITE_CORRUPT, SQLITE_NOTADB), is `database_corrupt` naming the file and the first
   * problems.
   */
  private checkIntegrity(): void {
    let problems: string[];
    try {
      problems = (this.raw.prepare('PRAGMA quick_check(3)').all() as { quick_check: string }[]).map(
        (r) => r.quick_check,
      );
    } catch (e) {
      const primary = ((e as { errcode?: number }).errcode ?? 0) & 0xff;
      if (primary !== 11 && primary !== 26) throw e; // SQLITE_CORRUPT, SQLITE_NOTADB
      problems = [(e as Error).message];
    }
    if (problems.length === 1 && problems[0] === 'ok') return;
    throw storageError(
      'database_corrupt',
      `the database ${this.path} fails its integrity check (PRAGMA quick_check: ${problems.join('; ').slice(0, 300)}); it is not served. Restore it from a backup, or move it and its -wal and -shm files aside to start with an empty database`,
      { value: this.path, valid: 'a database that passes PRAGMA quick_check', details: { problems } },
    );
  }

  /** A fault of the database (storage_full, storage_unavailable) as faults.ts maps it, kept in `fault`; other errors as they are. */
  private fail(e: unknown): unknown {
    const f = storageFault(e);
    if (f) this.fault = f;
    return f ?? e;
  }

  /**
   * A write the size of a real one made durable: PROBE_BYTES of rows in a scratch table, deleted in the same
   * transaction (the WAL still takes their pages). A header byte (user_version written again) fits in a disk's last
   * few kilobytes when a turn's rows do not: that probe said "ready" while every real write failed. Resolves once
   * the database takes writes (which clears `fault`), else rejects with the fault.
   */
  async probe(): Promise<void> {
    await this.write(async () => {
      await this.exec('CREATE TABLE IF NOT EXISTS storage_probe (data BLOB NOT NULL)');
      await this.run('INSERT INTO storage_probe (data) VALUES (randomblob(?))', [PROBE_BYTES]);
      await this.exec('DELETE FROM storage_probe');
    });
  }

  async freeBytes(): Promise<number | undefined> {
    if (this.path === ':memory:' || this.path === '') return undefined;
    const s = await statfs(dirname(resolve(this.path)));
    return s.bavail * s.bsize;
  }

  /**
   * Resolves once every transaction committed before the call is on disk:
   * at once if a completed fsync already covers them, else after the next
   * fsync of the WAL (on the thread pool) that started after the last of
   * them — one fsync serves every commit made before it started. Rejects if
   * that fsync fails.
   */
  durable(): Promise<void> {
    if (!this.asyncSync) return Promise.resolve();
    const seq = this.commitSeq;
    if (seq <= this.syncedSeq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject: (e) => reject(this.fail(e)) });
      this.startSync();
    });
  }

  /** Whether the caller runs inside the open transaction (a group's or a `tx`'s callback). */
  get inTransaction(): boolean {
    return this.mine();
  }

  /** Whether the caller's async context holds the connection. */
  private mine(): boolean {
    const h = this.holder;
    return h !== undefined && this.als.getStore() === h;
  }

  /** Resolves when nobody holds the connection (FIFO). */
  private whenFree(): Promise<void> {
    return new Promise((resolve) => this.waitingForFree.push(resolve));
  }

  /** Takes the connection for a transaction, waiting for the current holder's COMMIT. */
  private async acquire(): Promise<Holder> {
    while (this.holder !== undefined) await this.whenFree();
    const h: Holder = {};
    this.holder = h;
    return h;
  }

  private releaseConnection(): void {
    this.holder = undefined;
    const waiting = this.waitingForFree;
    this.waitingForFree = [];
    for (const w of waiting) w();
  }

  /** A group-committed write (group-commit.ts); resolves once its group's fsync is done. */
  write<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.group.write(fn);
  }

  /** Commits the queued writes now (shutdown); they still resolve once durable. */
  flush(): Promise<void> {
    return this.group.flush();
  }

  /**
   * A group: one transaction, each write inside its own SAVEPOINT (a failing
   * write is rolled back alone and gets its error), one COMMIT, then one
   * fsync of the WAL for the whole group, off the event loop (`durable()`).
   * A write's promise settles only after that fsync; a kill -9 before the
   * COMMIT loses the group, none of which was acknowledged.
   */
  private async commitBatch(batch: QueuedWrite[]): Promise<void> {
    const closed = () => batch.forEach((b) => b.reject(new Error('the database is closed')));
    if (!this.raw.isOpen) return closed();
    await this.acquire();
    if (!this.raw.isOpen) {
      this.releaseConnection();
      return closed();
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.raw.exec('BEGIN IMMEDIATE');
      for (const b of batch) {
        this.prepare('SAVEPOINT w').run();
        // each write has its own context: a statement its callback left running after it settled waits for the COMMIT
        const holder: Holder = {};
        this.holder = holder;
        try {
          outcomes.push({ ok: true, value: await this.als.run(holder, b.fn) });
        } catch (e) {
          this.prepare('ROLLBACK TO w').run();
          outcomes.push({ ok: false, value: e });
        }
        this.prepare('RELEASE w').run();
      }
      this.raw.exec('COMMIT');
      this.noteCommit();
    } catch (e) {
      if (this.raw.isTransaction) this.raw.exec('ROLLBACK');
      throw this.fail(e);
    } finally {
      this.releaseConnection();
    }
    // a failed write changed nothing: its error goes out now; the others are acknowledged once durable
    batch.forEach((b, i) => !outcomes[i]!.ok && b.reject(outcomes[i]!.value));
    const done = batch.filter((_, i) => outcomes[i]!.ok);
    if (done.length === 0) return;
    this.durable().then(
      () => batch.forEach((b, i) => outcomes[i]!.ok && b.resolve(outcomes[i]!.value)),
      (e: unknown) => done.forEach((b) => b.reject(this.fail(e))),
    );
  }

  /**
   * Counts a commit; it starts an fsync if none is running, so even a write nobody awaits reaches the disk within one
   * fsync.
   */
  private noteCommit(): void {
    this.fault = undefined;
    if (!this.asyncSync) return;
    this.commitSeq++;
    this.startSync();
  }

  private startSync(): void {
    if (this.syncing || this.commitSeq <= this.syncedSeq || !this.raw.isOpen) return;
    if (this.walFd === undefined) {
      // the WAL exists from the first transaction on, and stays until the last connection closes
      const walPath = `${this.path}-wal`;
      if (!existsSync(walPath)) return this.settle(this.commitSeq);
      this.walFd = openSync(walPath, 'r');
    }
    const target = this.commitSeq;
    this.syncing = true;
    this.fsyncCount++;
    fsync(this.walFd, (err) => {
      this.syncing = false;
      if (err) {
        const failed = this.waiters.filter((w) => w.seq <= target);
        this.waiters = this.waiters.filter((w) => w.seq > target);
        for (const w of failed) w.reject(err);
      } else this.settle(target);
      if (!this.raw.isOpen) return this.closeWal();
      this.startSync();
    });
  }

  /** Commits up to seq are on disk: their waiters are released. */
  private settle(seq: number): void {
    this.syncedSeq = Math.max(this.syncedSeq, seq);
    if (this.waiters.length === 0) return;
    const done = this.waiters.filter((w) => w.seq <= this.syncedSeq);
    this.waiters = this.waiters.filter((w) => w.seq > this.syncedSeq);
    for (const w of done) w.resolve();
  }

  private closeWal(): void {
    if (this.walFd !== undefined && !this.syncing) {
      closeSync(this.walFd);
      this.walFd = undefined;
    }
  }

  /** Applies an area's migrations not yet recorded (migrate.ts). */
  migrate(area: string, migrations: Migration[]): Promise<void> {
    return applyMigrations(this, area, migrations);
  }

  schemaVersion(area: string): Promise<number> {
    return schemaVersion(this, area);
  }

  private prepare(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /**
   * A statement runs at once when the connection is free or held by the
   * caller's transaction, and its promise is already settled; otherwise it
   * waits for the holder's COMMIT.
   */
  run(sql: string, params: SqlValue[] = []): Promise<{ changes: number }> {
    if (this.holder !== undefined && !this.mine()) return this.whenFree().then(() => this.run(sql, params));
    try {
      const r = this.prepare(sql).run(...params);
      if (!this.raw.isTransaction) this.noteCommit();
      return Promise.resolve({ changes: Number(r.changes) });
    } catch (e) {
      return Promise.reject(this.fail(e) as Error);
    }
  }

  exec(sql: string): Promise<void> {
    if (this.holder !== undefined && !this.mine()) return this.whenFree().then(() => this.exec(sql));
    try {
      this.raw.exec(sql);
      if (!this.raw.isTransaction) this.noteCommit();
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(this.fail(e) as Error);
    }
  }

  get<T = Row>(sql: string, params: SqlValue[] = []): Promise<T | undefined> {
    if (this.holder !== undefined && !this.mine()) return this.whenFree().then(() => this.get<T>(sql, params));
    try {
      return Promise.resolve(this.prepare(sql).get(...params) as T | undefined);
    } catch (e) {
      return Promise.reject(this.fail(e) as Error);
    }
  }

  all<T = Row>(sql: string, params: SqlValue[] = []): Promise<T[]> {
    if (this.holder !== undefined && !this.mine()) return this.whenFree().then(() => this.all<T>(sql, params));
    try {
      return Promise.resolve(this.prepare(sql).all(...params) as T[]);
    } catch (e) {
      return Promise.reject(this.fail(e) as Error);
    }
  }

  /** Runs fn in a transaction (nested calls join the outer one, e.g. inside `write`). */
  async tx<T>(fn: () => Promise<T> | T): Promise<T> {
    if (this.mine()) return fn();
    const holder = await this.acquire();
    try {
      this.raw.exec('BEGIN IMMEDIATE');
      try {
        const out = await this.als.run(holder, fn);
        this.raw.exec('COMMIT');
        this.noteCommit();
        return out;
      } catch (e) {
        if (this.raw.isTransaction) this.raw.exec('ROLLBACK');
        throw this.fail(e);
      }
    } finally {
      this.releaseConnection();
    }
  }

  /** Closes the connection: queued writes are committed first, and writes still waiting for their fsync get it. */
  async close(): Promise<void> {
    if (this.raw.isOpen) {
      await this.flush();
      while (this.holder !== undefined) await this.whenFree();
    }
    this.stmts.clear();
    if (this.raw.isOpen) {
      // another connection may keep the WAL open, so do not count on the closing checkpoint
      if (this.asyncSync && this.commitSeq > this.syncedSeq && existsSync(`${this.path}-wal`)) {
        this.walFd ??= openSync(`${this.path}-wal`, 'r');
        fsyncSync(this.walFd);
      }
      this.raw.close();
    }
    this.settle(this.commitSeq);
    this.closeWal();
  }
}

/** A transaction's identity: the async context its callbacks run in. */
type Holder = object;
