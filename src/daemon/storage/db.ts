/**
 * The one module that talks to SQLite (node:sqlite). Every area of the daemon
 * (registry, runtime, …) declares its own ordered list of migrations; they are
 * applied at open inside a transaction and recorded in `schema_version`
 * (area, version, applied_at).
 *
 * Pragmas: WAL journal; synchronous=FULL, because the registry promises that
 * nothing acknowledged is lost when the process is killed or the machine loses
 * power (NORMAL in WAL mode can lose the last transactions on power loss);
 * foreign keys on; a busy timeout so a second connection waits, not fails.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export interface OpenOptions {
  /** Path of the database file, or ':memory:'. */
  path: string;
  /** Migrations per area, applied in order. */
  migrations: Record<string, Migration[]>;
  /** Override synchronous (tests of throughput only). */
  synchronous?: 'FULL' | 'NORMAL';
}

export type Row = Record<string, SQLInputValue>;

export class Database {
  readonly raw: DatabaseSync;
  readonly path: string;
  private readonly stmts = new Map<string, StatementSync>();

  constructor(opts: OpenOptions) {
    this.path = opts.path;
    if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
    this.raw = new DatabaseSync(opts.path);
    this.raw.exec('PRAGMA journal_mode = WAL');
    this.raw.exec(`PRAGMA synchronous = ${opts.synchronous ?? 'FULL'}`);
    this.raw.exec('PRAGMA foreign_keys = ON');
    this.raw.exec('PRAGMA busy_timeout = 5000');
    this.migrate(opts.migrations);
  }

  private migrate(all: Record<string, Migration[]>): void {
    this.raw.exec(`CREATE TABLE IF NOT EXISTS schema_version (
      area TEXT NOT NULL, version INTEGER NOT NULL, description TEXT NOT NULL,
      applied_at TEXT NOT NULL, PRIMARY KEY (area, version))`);
    for (const [area, migrations] of Object.entries(all)) {
      const current = this.schemaVersion(area);
      const sorted = [...migrations].sort((a, b) => a.version - b.version);
      for (const m of sorted) {
        if (m.version <= current) continue;
        this.transaction(() => {
          this.raw.exec(m.sql);
          this.run('INSERT INTO schema_version (area, version, description, applied_at) VALUES (?, ?, ?, ?)', [
            area,
            m.version,
            m.description,
            new Date().toISOString(),
          ]);
        });
      }
    }
  }

  schemaVersion(area: string): number {
    const row = this.get<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_version WHERE area = ?', [area]);
    return row?.v ?? 0;
  }

  private prepare(sql: string): StatementSync {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.raw.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  run(sql: string, params: SQLInputValue[] = []): { changes: number; lastInsertRowid: number } {
    const r = this.prepare(sql).run(...params);
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }

  get<T = Row>(sql: string, params: SQLInputValue[] = []): T | undefined {
    return this.prepare(sql).get(...params) as T | undefined;
  }

  all<T = Row>(sql: string, params: SQLInputValue[] = []): T[] {
    return this.prepare(sql).all(...params) as T[];
  }

  /** Runs fn in a transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    if (this.raw.isTransaction) return fn();
    this.raw.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.raw.exec('COMMIT');
      return out;
    } catch (e) {
      this.raw.exec('ROLLBACK');
      throw e;
    }
  }

  close(): void {
    this.stmts.clear();
    if (this.raw.isOpen) this.raw.close();
  }
}

export function openDatabase(opts: OpenOptions): Database {
  return new Database(opts);
}
