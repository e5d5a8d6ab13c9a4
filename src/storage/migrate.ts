/**
 * The one migration runner of both backends (`Storage.migrate`). Every area
 * (registry, runtime, credits, …) declares an ordered, append-only list of
 * migrations; those not yet recorded in `schema_version` (area, version,
 * description, applied_at) are applied in order, with their records, in one
 * transaction: all of them or none. On PostgreSQL the transaction first
 * takes an advisory lock, so daemons starting together on one database apply
 * each migration once (the others wait, then find it recorded). On SQLite
 * the transaction holds the one connection, so no statement of a store runs
 * between two migrations.
 */
import type { Migration, Storage } from './storage.ts';

/** The advisory lock of migrations on PostgreSQL (any constant; the registry's row locks use another). */
const MIGRATION_LOCK = 7302417;

const SCHEMA_VERSION = `CREATE TABLE IF NOT EXISTS schema_version (
  area TEXT NOT NULL, version INTEGER NOT NULL, description TEXT NOT NULL,
  applied_at TEXT NOT NULL, PRIMARY KEY (area, version))`;

/** A migration's SQL for a dialect. */
function sqlOf(m: Migration, dialect: Storage['dialect']): string {
  return typeof m.sql === 'string' ? m.sql : m.sql[dialect];
}

/** Applies the migrations of `area` not yet recorded; resolves once they are durable. */
export async function applyMigrations(db: Storage, area: string, migrations: Migration[]): Promise<void> {
  await db.tx(async () => {
    await lock(db);
    await db.exec(SCHEMA_VERSION);
    const current = await versionOf(db, area);
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= current) continue;
      await db.exec(sqlOf(m, db.dialect));
      await db.run('INSERT INTO schema_version (area, version, description, applied_at) VALUES (?, ?, ?, ?)', [
        area,
        m.version,
        m.description,
        new Date().toISOString(),
      ]);
    }
  });
  await db.durable();
}

/** The last applied migration version of an area (0 when none). */
export async function schemaVersion(db: Storage, area: string): Promise<number> {
  await db.tx(async () => {
    await lock(db);
    await db.exec(SCHEMA_VERSION);
  });
  return versionOf(db, area);
}

async function versionOf(db: Storage, area: string): Promise<number> {
  const row = await db.get<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_version WHERE area = ?', [area]);
  return Number(row?.v ?? 0);
}

async function lock(db: Storage): Promise<void> {
  if (db.dialect === 'postgres') await db.get(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}) AS locked`);
}

/**
 * An area's migrations applied lazily, once, on a storage that is already open (a plugin's tables: the plugin
 * context's `migrate`): every caller awaits the same run; after a failure (the database away) the next call tries
 * again.
 */
export function migrateOnce(db: Storage, area: string): (migrations: Migration[]) => Promise<void> {
  let done: Promise<void> | undefined;
  return (migrations) =>
    (done ??= db.migrate(area, migrations).catch((e: unknown) => {
      done = undefined;
      throw e;
    }));
}
