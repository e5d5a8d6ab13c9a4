/**
 * The runtime's own database: where it is, opened through storage's one picker as the daemon opens its own, and its
 * health as `/ready` reports it.
 *
 * - `openRuntimeDatabase`: `databaseUrl` (PostgreSQL) or `dbPath` (SQLite) from the options, else
 *   ORACLE_DATABASE_URL / ORACLE_DB_PATH; naming both is invalid_config (storage/open.ts, pickLocation). A SQLite
 *   file's directory is refused when other users may write to it (storage/files.ts, checkDatabaseDir) and the file
 *   when it fails `PRAGMA quick_check` (storage/sqlite.ts). A refusal is a BootError whose line names the setting
 *   that chose the file, what is wrong and what to do: the runtime does not serve from a file it cannot trust.
 * - `storageHealth`: the truth of the last real write and of the disk. Ready needs both: the disk that holds a
 *   SQLite file has at least ORACLE_READY_MIN_FREE_BYTES free (a disk that fills is reported before writes fail),
 *   and, while the last real write failed for a fault of the database's own (a full disk, an unusable file,
 *   PostgreSQL out of reach: storage/faults.ts), a probe the size of a real write (storage's `probe`) must succeed
 *   before it says ready again; one probe at a time, however many ask.
 */
import { BootError, type BootLogger } from './boot.ts';
import { connectStorage, pickLocation, redact, type NamedLocation } from '../storage/open.ts';
import { storageFault } from '../storage/faults.ts';
import { storageError, type OracleKitError } from '../lib/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { RuntimeEnv } from './settings.ts';
import { envValue } from '../lib/env.ts';

export interface DatabaseOptions {
  dbPath?: string;
  databaseUrl?: string;
  dbSynchronous?: 'async' | 'FULL' | 'NORMAL';
}

/** Opens the runtime's own database (migrated later, before the host serves); PostgreSQL is named in the boot lines. */
export function openRuntimeDatabase(
  o: DatabaseOptions,
  env: Record<string, string | undefined>,
  settings: RuntimeEnv,
  log: BootLogger,
): Storage {
  const named = (location: string | undefined, setting: string): NamedLocation | undefined =>
    location === undefined ? undefined : { location, setting };
  // the options win over the environment; ORACLE_DB_PATH counts as named only when the environment sets it
  const picked = pickLocation(named(o.databaseUrl, 'databaseUrl'), named(o.dbPath, 'dbPath')) ??
    pickLocation(
      named(settings.ORACLE_DATABASE_URL, 'ORACLE_DATABASE_URL'),
      named(envValue(env, 'ORACLE_DB_PATH'), 'ORACLE_DB_PATH'),
    ) ?? { location: settings.ORACLE_DB_PATH, setting: 'ORACLE_DB_PATH' };
  const synchronous = o.dbSynchronous ?? settings.ORACLE_DB_SYNCHRONOUS ?? 'async';
  let db: Storage;
  try {
    db = connectStorage({ ...picked, synchronous });
  } catch (e) {
    throw new BootError(`[boot-error] ${picked.setting}: ${(e as Error).message}`);
  }
  if (db.dialect === 'postgres') log.info(`[boot] database: PostgreSQL ${redact(picked.location)}`);
  return db;
}

/** undefined while the database takes writes, else its fault (storage_full, storage_unavailable, database_unavailable). */
export function storageHealth(db: Storage, o: { minFreeBytes: number }): () => Promise<OracleKitError | undefined> {
  let running: Promise<OracleKitError | undefined> | undefined;
  const probe = async (): Promise<OracleKitError | undefined> => {
    try {
      await db.probe();
      return undefined;
    } catch (e) {
      return (
        storageFault(e) ??
        db.fault ??
        storageError('storage_unavailable', 'the database does not take writes now; retry shortly')
      );
    }
  };
  const lowSpace = async (): Promise<OracleKitError | undefined> => {
    if (o.minFreeBytes <= 0) return undefined;
    const free = await db.freeBytes().catch(() => undefined);
    if (free === undefined || free >= o.minFreeBytes) return undefined;
    return storageError(
      'storage_full',
      `the disk that holds the database has ${free} bytes free, under ORACLE_READY_MIN_FREE_BYTES (${o.minFreeBytes}); free space on it`,
      { details: { cause: 'low_free_space', freeBytes: free, minFreeBytes: o.minFreeBytes } },
    );
  };
  return async () => {
    const low = await lowSpace();
    if (low) return low;
    if (db.fault === undefined) return undefined;
    return (running ??= probe().finally(() => (running = undefined)));
  };
}
