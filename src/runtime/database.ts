/**
 * The runtime's own database: opened the way the daemon opens its own, and its health as `/ready` reports it.
 *
 * - `openSqliteFile`: the directory refused when other users may write to it (storage/files.ts,
 *   checkDatabaseDir), the file refused when it fails `PRAGMA quick_check` (storage/sqlite.ts). A refusal is a
 *   BootError whose line names the setting that chose the file (dbPath or ORACLE_DB_PATH), what is wrong and what
 *   to do: the runtime does not serve from a file it cannot trust.
 * - `storageHealth`: while the database's last write failed for a fault of its own (a full disk, an unusable file,
 *   PostgreSQL out of reach: storage/faults.ts), a small write tells whether it takes writes again; one probe at a
 *   time, however many ask.
 */
import { BootError } from './boot.ts';
import { checkDatabaseDir } from '../storage/files.ts';
import { connectStorage } from '../storage/open.ts';
import { storageFault } from '../storage/faults.ts';
import { storageError, type OracleKitError } from '../lib/errors.ts';
import type { Storage } from '../storage/storage.ts';

export function openSqliteFile(path: string, synchronous: 'async' | 'FULL' | 'NORMAL', setting: string): Storage {
  try {
    checkDatabaseDir(path, setting);
    return connectStorage({ location: path, synchronous });
  } catch (e) {
    throw new BootError(`[boot-error] ${setting}: ${(e as Error).message}`);
  }
}

/** undefined while the database takes writes, else its fault (storage_full, storage_unavailable, database_unavailable). */
export function storageHealth(db: Storage): () => Promise<OracleKitError | undefined> {
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
  return () => {
    if (db.fault === undefined) return Promise.resolve(undefined);
    return (running ??= probe().finally(() => (running = undefined)));
  };
}
