/**
 * The one place that chooses the backend of a database (docs/storage.md,
 * "Choosing the backend"): a `postgres://` or `postgresql://` URL opens
 * PostgreSQL (src/storage/postgres.ts), anything else is the path of a
 * SQLite file (src/storage/db.ts). Either way every area's migrations are
 * applied before the storage is handed out.
 */
import { OracleKitError, showValue } from '../lib/errors.ts';
import { openDatabase } from './db.ts';
import { PostgresStorage } from './postgres.ts';
import type { Migration, Storage } from './storage.ts';

interface OpenStorageOptions {
  /** The path of a SQLite file (or ':memory:'), or a postgres:// / postgresql:// URL. */
  location: string;
  /** Migrations per area, applied in order. */
  migrations: Record<string, Migration[]>;
  /** SQLite only: durability (src/storage/db.ts, OpenOptions.synchronous). */
  synchronous?: 'async' | 'FULL' | 'NORMAL';
  /** The setting the location came from, named in errors (e.g. ORACLEKIT_DATABASE_URL). */
  setting?: string;
  /** PostgreSQL only: connections of the pool. */
  max?: number;
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

/** Opens the database at `location` (SQLite path or PostgreSQL URL) and applies every area's migrations. */
export async function openStorage(o: OpenStorageOptions): Promise<Storage> {
  if (!isPostgresUrl(o.location)) {
    return openDatabase({
      path: o.location,
      migrations: o.migrations,
      ...(o.synchronous ? { synchronous: o.synchronous } : {}),
    });
  }
  checkPostgresUrl(o.location, o.setting);
  const db = new PostgresStorage({ url: o.location, ...(o.max ? { max: o.max } : {}) });
  try {
    for (const [area, list] of Object.entries(o.migrations)) await db.migrate(area, list);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return db;
}
