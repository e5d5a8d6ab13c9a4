/**
 * The discovery file: {pid, host, port, url, version, token, started, oracle?}, written
 * by the daemon after listen, atomically (temp file in the same directory,
 * fsync, rename) with mode 0600 in a 0700 state directory, and removed on a
 * graceful exit. The token authenticates the local admin (key management);
 * only the user who can read this file has it.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { discoveryPath, stateDir } from './paths.ts';
import { writeSecretFile } from './secret-file.ts';
import { parseJsonFile } from './json-file.ts';
import { z } from 'zod';

const DiscoverySchema = z.looseObject({
  pid: z.number().int(),
  host: z.string(),
  port: z.number().int(),
  url: z.string(),
  version: z.string(),
  token: z.string(),
  started: z.string(),
  /** The default oracle (absent when the daemon hosts none): its HTTP API, its socket.io origin and its DID. */
  oracle: z.object({ url: z.string(), wsUrl: z.string(), did: z.string() }).optional(),
});
export type Discovery = z.infer<typeof DiscoverySchema>;

export function readDiscovery(env = process.env): Discovery | undefined {
  const p = discoveryPath(env);
  let text: string;
  try {
    text = readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
  const r = parseJsonFile(p, text, DiscoverySchema);
  return r.ok ? r.value : undefined; // a foreign file counts as absent (writes are atomic, so none is torn)
}

export function writeDiscovery(d: Discovery, env = process.env): void {
  writeSecretFile(discoveryPath(env), JSON.stringify(d, null, 2) + '\n');
}

/** Removes the discovery file if it still names this pid (never another daemon's). */
export function removeDiscovery(pid: number, env = process.env): void {
  const d = readDiscovery(env);
  if (d && d.pid !== pid) return;
  rmSync(discoveryPath(env), { force: true });
}

export function forceRemoveDiscovery(env = process.env): void {
  rmSync(discoveryPath(env), { force: true });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isDaemonProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('daemon/main');
  } catch {
    return true; // no /proc: trust the pid
  }
}

/**
 * One daemon per state directory: an exclusive lock file (O_EXCL) holding the
 * pid, taken before listen and released at exit. A lock whose pid is dead (or
 * is not a daemon any more) is stale and taken over.
 */
export function acquireLock(env = process.env): void {
  const dir = stateDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const p = join(dir, 'daemon.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(p, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let other = 0;
      try {
        other = Number(readFileSync(p, 'utf8').trim());
      } catch {
        /* removed meanwhile */
      }
      if (other > 0 && other !== process.pid && isDaemonProcess(other))
        // the exit code that tells the CLI which spawned us to wait for that daemon, however slowly it starts
        throw Object.assign(new Error(`a daemon is already running or starting (pid ${other})`, { cause: e }), {
          exitCode: DAEMON_EXIT_ANOTHER,
        });
      rmSync(p, { force: true });
    }
  }
  throw new Error('could not take the daemon lock');
}

export function releaseLock(env = process.env): void {
  const p = join(stateDir(env), 'daemon.lock');
  try {
    if (Number(readFileSync(p, 'utf8').trim()) === process.pid) rmSync(p, { force: true });
  } catch {
    /* already gone */
  }
}

/**
 * The daemon's exit code when another daemon is already running, or won the port while both started (the CLI then uses
 * that one).
 */
export const DAEMON_EXIT_ANOTHER = 75;
