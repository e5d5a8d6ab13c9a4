/**
 * The daemon process's start and stop around its server (main.ts): one
 * daemon per state directory and port, and a graceful shutdown on SIGTERM
 * and SIGINT.
 */
import type { FastifyInstance } from 'fastify';
import { fetchJson } from '../lib/fetch-json.ts';
import {
  DAEMON_EXIT_ANOTHER,
  acquireLock,
  isAlive,
  readDiscovery,
  releaseLock,
  removeDiscovery,
} from '../lib/discovery.ts';
import type { Storage } from '../storage/storage.ts';
import type { DefaultOracle } from './oracle.ts';

/** An error that ends the process with exit code DAEMON_EXIT_ANOTHER: the CLI that spawned us waits for that daemon. */
function anotherDaemon(message: string): Error {
  return Object.assign(new Error(message), { exitCode: DAEMON_EXIT_ANOTHER });
}

/**
 * Refuses to start when the discovery file names another live daemon that
 * answers /health; then takes the state directory's lock (released at exit).
 */
export async function claimStateDir(): Promise<void> {
  const prev = readDiscovery();
  if (prev && prev.pid !== process.pid && isAlive(prev.pid)) {
    const healthy = await fetchJson({ url: `${prev.url}/health`, timeoutMs: 1000, what: 'the running daemon' }).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) throw anotherDaemon(`a daemon is already running (pid ${prev.pid}, ${prev.url})`);
  }
  acquireLock();
  process.on('exit', () => releaseLock());
}

/** `http://host:port`, with an IPv6 host in brackets. */
export function urlOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Listens on host:port and returns the port. When another oraclekit daemon
 * started at the same moment and won the port, says so with the exit code
 * of its own (anotherDaemon) instead of a failure.
 */
export async function listen(app: FastifyInstance, host: string, port: number): Promise<number> {
  try {
    await app.listen({ port, host });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    const h = await fetchJson<{ pid?: unknown }>({
      url: `${urlOf(host, port)}/health`,
      timeoutMs: 1000,
      what: 'the port',
    })
      .then((r) => (r.ok && r.json ? r.body : undefined))
      .catch(() => undefined);
    if (typeof h?.pid === 'number')
      throw anotherDaemon(`another oraclekit daemon (pid ${h.pid}) holds ${host}:${port}`);
    throw e;
  }
  const a = app.server.address();
  return typeof a === 'object' && a ? a.port : port;
}

/**
 * SIGTERM/SIGINT: abort the oracle's running turns and disconnect its
 * realtime clients, stop accepting, finish in-flight requests (at most 10 s,
 * then exit 1), close the oracle runtime and the database, remove the
 * discovery file, exit 0.
 */
export function stopOnSignals(app: FastifyInstance, db: Storage, oracle: () => DefaultOracle | undefined): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in 10 s; exiting');
      removeDiscovery(process.pid);
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      oracle()?.quiesce();
      await app.close();
      await oracle()?.close();
    } finally {
      await db.close().catch((e: unknown) => app.log.error({ err: e }, 'closing the database failed'));
      removeDiscovery(process.pid);
      app.log.info('stopped');
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
