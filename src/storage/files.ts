/**
 * The modes of a database's files. A database holds the registry's records
 * and the SHA-256 of every API key, so its file and SQLite's `-wal` and
 * `-shm` beside it are the owner's alone (0600) whatever the umask or the
 * directory — `ORACLEKIT_DB` may point into a shared one — and a directory
 * that other users may write to is refused: they could swap the files, or
 * create a `-wal` before SQLite does and read everything written to it.
 *
 * `prepareDatabaseFile` runs when a SQLite storage opens (src/storage/sqlite.ts), before
 * SQLite opens the file; `checkDatabaseDir` when the one picker
 * (src/storage/open.ts, connectStorage) opens a SQLite file, for the daemon,
 * which exits with its message, and for the runtime, a `[boot-error]` line.
 */
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { storageError } from '../lib/errors.ts';

/** The mode of a database file and of its -wal and -shm (SQLite gives those the database file's mode). */
const DB_FILE_MODE = 0o600;
/** The mode of a database directory the daemon creates. */
const DB_DIR_MODE = 0o700;

const SIDE_FILES = ['', '-wal', '-shm', '-journal'];

/**
 * Creates the directory (0700) when absent and refuses one that other users
 * may write to (mode o+w, sticky or not) with `insecure_database_dir`,
 * naming the directory, its mode, the setting that chose it and the fix.
 * The picker (open.ts) calls it before a SQLite file opens, for the daemon
 * (ORACLEKIT_DB) and the runtime (ORACLE_DB_PATH) alike.
 */
export function checkDatabaseDir(path: string, setting = 'ORACLEKIT_DB'): void {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: DB_DIR_MODE });
  const mode = statSync(dir).mode & 0o7777;
  if ((mode & 0o002) !== 0) {
    throw storageError(
      'insecure_database_dir',
      `the database directory ${dir} is writable by other users (mode ${mode.toString(8).padStart(4, '0')}); refusing to keep the database there. Run \`chmod o-w ${dir}\`, or point ${setting} at a file in a directory of your own (e.g. mode 0700)`,
      {
        field: setting,
        value: path,
        valid: 'a database in a directory not writable by other users',
        details: { dir, mode: mode.toString(8).padStart(4, '0') },
      },
    );
  }
}

/**
 * Before SQLite opens `path`: creates its directory (0700) when absent, the
 * file itself with mode 0600 when absent (so SQLite's -wal and -shm get 0600
 * too), and takes group and other bits away from the files that exist (a
 * database created before this rule was 0644). Symbolic links are left as
 * they are.
 */
export function prepareDatabaseFile(path: string): void {
  if (path === ':memory:' || path === '' || path.startsWith('file:')) return;
  mkdirSync(dirname(path), { recursive: true, mode: DB_DIR_MODE });
  closeSync(openSync(path, 'a', DB_FILE_MODE));
  for (const suffix of SIDE_FILES) {
    let st;
    try {
      st = lstatSync(path + suffix);
    } catch {
      continue;
    }
    if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(path + suffix, st.mode & 0o700);
  }
}
