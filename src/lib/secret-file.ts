/**
 * The one way the package writes a file that holds a key (identity.json, the
 * daemon's oracle-key.json and discovery file, a project's .env): a temporary
 * file in the same directory, mode 0600 whatever the umask, fsynced, then
 * renamed over the target — a reader sees the old file or the new one, never
 * a torn one, and never a copy others can read. The directory is created
 * 0700 when missing.
 */
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  rmSync,
  renameSync,
  statSync,
  chmodSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

/**
 * Writes `text` to `path` (0600, atomically). With `exclusive`, the file must not exist yet: an existing one is
 * left alone and the call throws EEXIST (two processes creating the same key: one wins, whole).
 */
export function writeSecretFile(path: string, text: string, o: { exclusive?: boolean } = {}): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (o.exclusive) linkSync(tmp, path);
    else renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true }); // the link's second name, or a temporary file whose rename failed
  }
}

/** Puts a key file's mode back to 0600 when others could read it (a copy restored by hand, a wide umask). */
export function keepSecretFileMode(path: string): void {
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}
