/**
 * The one place that chooses the backend of a database (docs/storage.md,
 * "Choosing the backend"), for the daemon and the runtime alike: a
 * `postgres://` or `postgresql://` URL opens PostgreSQL (postgres.ts),
 * anything else is the path of a SQLite file (sqlite.ts). `openStorage`
 * applies every area's migrations before the storage is handed out;
 * `connectStorage` is the same choice for a caller that applies its
 * migrations later (the runtime, which is built synchronously and migrates
 * before it serves). Before a SQLite file opens, its directory is checked
 * (files.ts, `checkDatabaseDir`). `pickLocation` decides between a URL and a
 * path that two settings name.
 */
import { OracleKitError, showValue } from '../lib/errors.ts';
import { PostgresStorage } from './postgres.ts';
import { checkDatabaseDir } from './files.ts';
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

/** A database location and the setting that named it. */
export interface NamedLocation {
  location: string;
  setting: string;
}

/**
 * Of a PostgreSQL URL and a SQLite path that two settings name, the one to open (the URL checked); undefined when
 * neither is named. Both named is invalid_config: which database holds the data must not depend on a precedence rule.
 */
export function pickLocation(
  url: NamedLocation | undefined,
  path: NamedLocation | undefined,
): NamedLocation | undefined {
  if (url && path)
    throw new OracleKitError({
      status: 400,
      code: 'invalid_config',
      message: `${url.setting} = ${showValue(redact(url.location))} and a SQLite path (${showValue(path.location)}) are both set: one database holds the data; keep one of them`,
      field: url.setting,
      value: redact(url.location),
      valid: `either a postgres:// URL (${url.setting}) or a SQLite file (${path.setting}), not both`,
    });
  if (url) checkPostgresUrl(url.location, url.setting);
  return url ?? path;
}

/**
 * The storage of `location` (a SQLite path or a PostgreSQL URL), opened, with no migration applied yet. A SQLite
 * file's directory is refused when other users may write to it (`setting` names what chose it).
 */
export function connectStorage(o: StorageLocation): Storage {
  if (!isPostgresUrl(o.location)) {
    checkDatabaseDir(o.location, o.setting);
    return new SqliteStorage({ path: o.location, ...(o.synchronous ? { synchronous: o.synchronous } : {}) });
  }
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
