/**
 * The one place that chooses the backend of a database (docs/storage.md,
 * "Choosing the backend"), for the daemon and the runtime alike: a
 * `postgres://` or `postgresql://` URL opens PostgreSQL (postgres.ts),
 * anything else is the path of a SQLite file (sqlite.ts). `openStorage`
 * applies every area's migrations before the storage is handed out;
 * `connectStorage` is the same choice for a caller that applies its
 * migrations later (the runtime, which is built synchronously and migrates
 * before it serves).
 */
import { OracleKitError, showValue } from '../lib/errors.ts';
import { PostgresStorage } from './postgres.ts';
import { SqliteStorage } from './sqlite.ts';
import type { Migration, Storage } from './storage.ts';

interface StorageLocation {
  /** The path of a SQLite file (or ':memory:'), or a postgres:// / postgresql:// URL. */
  location: string;
  /** SQLite only: durability (sqlite.ts, SqliteOptions.synchronous). */
  synchronous?: 'async' | 'FULL' | 'NORMAL';
  /** The setting the location came from, named in errors (e.g. ORACLEKIT_DATABASE_URL). */
  setting?: string;
  /** PostgreSQL only: connections of the pool. */
  max?: number;
}

interface OpenStorageOptions extends StorageLocation {
  /** Migrations per area, applied in order. */
  migrations: Record<string, Migration[]>;
}

/** Whether a location names a PostgreSQL database (by its scheme). */
function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Checks a PostgreSQL URL: scheme postgres:// or postgresql://, parseable,
 * with a database name. Throws invalid_config naming the setting and the
 * value (without its password).
 */
export function checkPostgresUrl(url: string, setting = 'databaseUrl'): void {
  const bad = (why: string) =>
    new OracleKitError({
      status: 400,
      code: 'invalid_config',
      message: `${setting} = ${showValue(redact(url))} is not a PostgreSQL URL: ${why}`,
      field: setting,
      value: redact(url),
      valid: 'postgres://user[:password]@host[:port]/database (or postgresql://)',
    });
  if (!isPostgresUrl(url)) throw bad('the scheme must be postgres:// or postgresql://');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad('it does not parse as a URL');
  }
  if (!u.hostname && !u.searchParams.get('host')) throw bad('it names no host');
  if (u.pathname.replace(/^\//, '') === '') throw bad('it names no database');
}

/** The URL with its password replaced by "***" (for errors and logs). */
export function redact(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/** The storage of `location` (a SQLite path or a PostgreSQL URL), opened, with no migration applied yet. */
export function connectStorage(o: StorageLocation): Storage {
  if (!isPostgresUrl(o.location))
    return new SqliteStorage({ path: o.location, ...(o.synchronous ? { synchronous: o.synchronous } : {}) });
  checkPostgresUrl(o.location, o.setting);
  return new PostgresStorage({ url: o.location, ...(o.max ? { max: o.max } : {}) });
}

/** Opens the database at `location` (a SQLite path or a PostgreSQL URL) and applies every area's migrations. */
export async function openStorage(o: OpenStorageOptions): Promise<Storage> {
  const db = connectStorage(o);
  try {
    for (const [area, list] of Object.entries(o.migrations)) await db.migrate(area, list);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}
