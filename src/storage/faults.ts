/**
 * What a failure of the database means to the one who asked: a full disk (507 `storage_full`) or a database that
 * cannot be read or written now (503 `storage_unavailable`), told apart from a bug, which stays as it is (a 500
 * `internal_error` that says nothing of its cause). Both backends pass their driver's errors through
 * `storageFault`; a connection lost to PostgreSQL is its own 503 `database_unavailable` (postgres.ts).
 */
import { isOracleKitError, storageError, type OracleKitError } from '../lib/errors.ts';

/** SQLite's primary result code for a full disk or a full database (https://sqlite.org/rescode.html#full). */
const SQLITE_FULL = 13;

/** SQLite's primary result codes of a database that cannot be used now (the extended codes share them). */
const SQLITE_UNAVAILABLE: Record<number, string> = {
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  14: 'SQLITE_CANTOPEN',
  15: 'SQLITE_PROTOCOL',
  26: 'SQLITE_NOTADB',
};

/** errno codes of a file operation (the WAL's fsync) on a full disk, and on a disk that fails. */
const ERRNO_FULL = new Set(['ENOSPC', 'EDQUOT']);
const ERRNO_UNAVAILABLE = new Set(['EIO', 'EROFS']);

/** PostgreSQL's SQLSTATE of a full disk (class 53, insufficient resources). */
const PG_DISK_FULL = '53100';

/** The codes a fault of the database itself carries. */
const FAULT_CODES = new Set(['storage_full', 'storage_unavailable', 'database_unavailable']);

/** Whether an error is a fault of the database itself (as `storageFault` gives it). */
export function isStorageFault(e: unknown): e is OracleKitError {
  return isOracleKitError(e) && FAULT_CODES.has(e.code);
}

/**
 * The fault an error of the database means, or undefined when it is none (a constraint, a syntax error: a bug).
 * A fault already mapped is returned as it is. The message names the cause (SQLITE_FULL, ENOSPC, …), never a path.
 */
export function storageFault(e: unknown): OracleKitError | undefined {
  if (isStorageFault(e)) return e;
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, errcode } = e as { code?: unknown; errcode?: unknown };
  let cause: string | undefined;
  let full = false;
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    const primary = errcode & 0xff;
    if (primary === SQLITE_FULL) [cause, full] = ['SQLITE_FULL', true];
    else cause = SQLITE_UNAVAILABLE[primary];
  } else if (typeof code === 'string') {
    if (ERRNO_FULL.has(code) || code === PG_DISK_FULL) [cause, full] = [code, true];
    else if (ERRNO_UNAVAILABLE.has(code)) cause = code;
  }
  if (cause === undefined) return undefined;
  return full
    ? storageError(
        'storage_full',
        `the disk that holds the database is full (${cause}); nothing was stored. Retry once space is freed`,
        { details: { cause } },
      )
    : storageError(
        'storage_unavailable',
        `the database cannot be read or written now (${cause}); nothing was stored. Retry shortly`,
        { details: { cause } },
      );
}
