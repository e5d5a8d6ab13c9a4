/**
 * The runtime's own database: opened the way the daemon opens its own, and its health as `/ready` reports it.
 *
 * - `openSqliteFile`: the directory refused when other users may write to it (storage/files.ts,
 *   checkDatabaseDir), the file refused when it fails `PRAGMA quick_check` (storage/sqlite.ts). A refusal is a
 *   BootError whose line names the setting that chose the file (dbPath or ORACLE_DB_PATH), what is wrong and what
 *   to do: the runtime does not serve from a file it cannot trust.
 * - `storageHealth`: the truth of the last real write and of the disk. Ready needs both: the disk that holds a
 *   SQLite file has at least ORACLE_READY_MIN_FREE_BYTES free (a disk that fills is reported before writes fail),
 *   and, while the last real write failed for a fault of the database's own (a full disk, an unusable file,
 *   PostgreSQL out of reach: storage/faults.ts), a probe the size of a real write (storage's `probe`) must succeed
 *   before it says ready again; one probe at a time, however many ask.
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
