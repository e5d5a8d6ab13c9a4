/**
 * Start, find, check and stop the background daemon (used by the CLI).
 * - start: spawn `node <dist>/daemon/main.js` detached, stdout/stderr appended
 *   to the log file, with the model settings it was last started with where
 *   the environment sets none (model-settings.ts), then wait until the
 *   discovery file names the child and /health answers with the same pid and
 *   version.
 * - status: the discovery file, whether its pid lives and /health answers;
 *   a file whose pid is dead (kill -9, reboot) is stale and removed.
 * - stop: SIGTERM (the daemon finishes in-flight requests), wait, then
 *   SIGKILL; the pid is only signalled after /health confirmed it is ours.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { logPath, stateDir } from '../../lib/paths.ts';
import { requestJson } from '../../lib/registry/client.ts';
import { daemonStartEnv } from './model-settings.ts';
import {
  DAEMON_EXIT_ANOTHER,
  forceRemoveDiscovery,
  isAlive,
  readDiscovery,
  type Discovery,
} from '../../lib/discovery.ts';

export { packageVersion } from '../../lib/version.ts';

interface Health {
  status: string;
  version: string;
  pid: number;
  startedAt: string;
  uptimeSeconds: number;
  /** The default oracle: {did, path, name, model, signingKeyLoaded, plugins}. */
  oracle?: unknown;
}

interface OracleStatus {
  did: string;
  url: string;
  name: string;
  model: string | null;
  signingKeyLoaded: boolean;
  plugins: {
    loaded: string[];
    pending: string[];
    failed: { plugin: string; reason: string }[];
    excluded: { plugin: string; reason: string }[];
  };
}

/** The daemon's /health, or undefined when it does not answer 2xx in time. */
async function health(url: string, timeoutMs = 1500): Promise<Health | undefined> {
  const r = await requestJson<Health>({ method: 'GET', url: `${url}/health`, what: 'the daemon', timeoutMs }).catch(
    () => undefined,
  );
  return r && r.status >= 200 && r.status < 300 && typeof r.body === 'object' ? r.body : undefined;
}

export interface DaemonStatus {
  running: boolean;
  healthy: boolean;
  stale: boolean;
  pid?: number;
  url?: string;
  port?: number;
  version?: string;
  started?: string;
  uptimeSeconds?: number;
  /** The default oracle (null when the daemon hosts none). */
  oracle?: OracleStatus | null;
  discoveryFile: string;
  logFile: string;
}

export async function daemonStatus(env = process.env): Promise<{ status: DaemonStatus; discovery?: Discovery }> {
  const { discoveryPath } = await import('../../lib/paths.ts');
  const base = { discoveryFile: discoveryPath(env), logFile: logPath(env) };
  const d = readDiscovery(env);
  if (!d) return { status: { running: false, healthy: false, stale: false, ...base } };
  if (!isAlive(d.pid)) {
    forceRemoveDiscovery(env); // stale after kill -9 or a reboot
    return { status: { running: false, healthy: false, stale: true, pid: d.pid, ...base } };
  }
  const h = await health(d.url);
  const healthy = h !== undefined && h.pid === d.pid;
  const status: DaemonStatus = {
    running: true,
    healthy,
    stale: false,
    pid: d.pid,
    url: d.url,
    port: d.port,
    version: d.version,
    started: d.started,
    ...base,
  };
  if (h) {
    status.uptimeSeconds = h.uptimeSeconds;
    const o = h.oracle as (Omit<OracleStatus, 'url'> & { path: string }) | undefined;
    status.oracle = o
      ? {
          did: o.did,
          url: d.url + o.path,
          name: o.name,
          model: o.model,
          signingKeyLoaded: o.signingKeyLoaded,
          plugins: o.plugins,
        }
      : null;
  }
  return { status, discovery: d };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function mainScript(): string {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../../daemon/main${ext}`, import.meta.url));
}

interface StartOptions {
  port?: number;
  host?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Spawns the daemon detached and waits until it is healthy; returns its discovery record. */
export async function startDaemon(opts: StartOptions = {}): Promise<Discovery> {
  // the model settings it was last started with, unless this environment sets them (model-settings.ts)
  const env = daemonStartEnv(opts.env ?? process.env);
  mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
  const log = logPath(env);
  const offset = (() => {
    try {
      return statSync(log).size;
    } catch {
      return 0;
    }
  })();
  const fd = openSync(log, 'a', 0o600);
  const args = [mainScript()];
  if (opts.port !== undefined) args.push('--port', String(opts.port));
  if (opts.host !== undefined) args.push('--host', opts.host);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? -1));
  child.unref();
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  while (Date.now() < deadline) {
    if (exited !== null) break;
    const d = readDiscovery(env);
    if (d && d.pid === child.pid) {
      const h = await health(d.url);
      if (h && h.pid === d.pid) return d;
    }
    await sleep(50);
  }
  if (exited !== null) {
    // another CLI started a daemon at the same moment (ours found it running, or lost the port to it: exit
    // DAEMON_EXIT_ANOTHER): use that one, waiting for it as long as we would have waited for ours (a loaded machine
    // starts it slowly); any other exit is a failure of ours, reported after a short look for a daemon
    const otherDeadline = exited === DAEMON_EXIT_ANOTHER ? Math.max(deadline, Date.now() + 2_000) : Date.now() + 2_000;
    while (Date.now() < otherDeadline) {
      const d = readDiscovery(env);
      if (d && isAlive(d.pid)) {
        const h = await health(d.url);
        if (h && h.pid === d.pid) return d;
      }
      await sleep(50);
    }
  }
  let tail = '';
  try {
    tail = readFileSync(log, 'utf8').slice(offset).trim().split('\n').slice(-5).join('\n');
  } catch {
    /* no log */
  }
  if (exited === null && child.pid) process.kill(child.pid, 'SIGKILL');
  const { cliError } = await import('../errors.ts');
  throw cliError(
    'daemon_start_failed',
    `the daemon did not start${exited !== null ? ` (exit code ${exited})` : ' in time'}${tail ? `:\n${tail}` : ''}`,
    { details: { log } },
  );
}

/** SIGTERM, wait up to graceMs for the process to exit, then SIGKILL. */
export async function stopDaemon(
  env = process.env,
  graceMs = 10_000,
): Promise<{ stopped: boolean; pid?: number; forced: boolean }> {
  const { status, discovery } = await daemonStatus(env);
  if (!status.running || !discovery) return { stopped: false, forced: false };
  const pid = discovery.pid;
  if (!status.healthy) {
    // alive but not answering as our daemon: it may be hung — or a reused pid. Only kill when the command line is ours.
    if (!isOurProcess(pid)) {
      forceRemoveDiscovery(env);
      return { stopped: false, pid, forced: false };
    }
  }
  process.kill(pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) {
      forceRemoveDiscovery(env);
      return { stopped: true, pid, forced: false };
    }
    await sleep(50);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  while (isAlive(pid)) await sleep(20);
  forceRemoveDiscovery(env);
  return { stopped: true, pid, forced: true };
}

function isOurProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('daemon/main');
  } catch {
    return false;
  }
}
