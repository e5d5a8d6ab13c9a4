/**
 * A small tmpfs the test mounts itself (mount(8), as root — CI runs as root) to hold a database on a disk that
 * really fills: `fill()` writes a file until the kernel answers ENOSPC, `free()` deletes it. `tmpfsUnavailable` says
 * why mounting is not permitted here (not root, a container without CAP_SYS_ADMIN), for the suite to skip with it;
 * a suite mounts in its beforeAll and unmounts in its afterAll, so a suite filtered out leaves no mount behind.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  /** The mount point (mode 0700: the runtime refuses a directory other users may write to). */
  dir: string;
  /** Fills the file system to its last byte, then gives `leaveBytes` back; returns the bytes the filler holds. */
  fill(leaveBytes?: number): number;
  /** Deletes what fill() wrote. */
  free(): void;
  unmount(): void;
}

function mount(sizeKiB: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return dir;
}

function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  rmSync(dir, { recursive: true, force: true });
}

/** Why a tmpfs cannot be mounted here (a probe is mounted and unmounted at once), or undefined when it can. */
export const tmpfsUnavailable: string | undefined = (() => {
  try {
    unmount(mount(64));
    return undefined;
  } catch (e) {
    const why = String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim();
    return `a tmpfs cannot be mounted here (${why || 'mount failed'}); the full-disk tests need root`;
  }
})();

export function mountTmpfs(sizeKiB: number): Tmpfs {
  const dir = mount(sizeKiB);
  const filler = join(dir, 'filler');
  return {
    dir,
    fill(leaveBytes = 0) {
      const fd = openSync(filler, 'a');
      let written = 0;
      try {
        // tmpfs allocates whole pages: once a page cannot be had, a write of one byte more fails too
        for (const size of [1 << 20, 1 << 16, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x5a);
          for (;;) {
            try {
              const n = writeSync(fd, chunk);
              written += n;
              if (n < size) break;
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
              break;
            }
          }
        }
        if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
      } finally {
        closeSync(fd);
      }
      return written - leaveBytes;
    },
    free() {
      rmSync(filler, { force: true });
    },
    unmount() {
      unmount(dir);
    },
  };
}
