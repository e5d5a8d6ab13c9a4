/**
 * GET /health is liveness: 200 while the process serves (the CLI's
 * handshake, docs/daemon.md), with the database's state and the rate limit's
 * store. GET /health/ready is readiness for a load balancer: 503
 * database_unavailable while the database does not answer, and the storage
 * fault's code (507 storage_full, 503 storage_unavailable) while a write failed
 * for one and a small write still does.
 */
import type { FastifyInstance } from 'fastify';
import type { OracleKitError } from '../../lib/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';
import { isStorageFault } from '../../storage/faults.ts';
import type { Storage } from '../../storage/storage.ts';

/** How long /health waits for the database's answer before calling it unavailable (the CLI waits 1.5 s for /health). */
const PROBE_MS = 500;

interface HealthOptions {
  db: Storage;
  version: string;
  startedAt: string;
  /** What /health says of the rate limit (rate-limit.ts). */
  rateLimit: () => unknown;
  /** More fields (the default oracle's DID, path and plugin status). */
  extra?: (() => Record<string, unknown>) | undefined;
}

export function healthRoutes(app: FastifyInstance, o: HealthOptions): void {
  const database = databaseProbe(o.db);
  app.get('/health', { schema: { hide: true } }, async () => {
    const db = await database();
    return {
      status: 'ok',
      name: 'oraclekit',
      version: o.version,
      pid: process.pid,
      startedAt: o.startedAt,
      uptimeSeconds: Math.round(process.uptime()),
      database: {
        backend: o.db.dialect,
        ...(db === undefined ? { status: 'ok' } : { status: 'unavailable', code: db.code }),
      },
      rateLimit: o.rateLimit(),
      ...(o.extra?.() ?? {}),
    };
  });
  app.get('/health/ready', { schema: { hide: true } }, async () => {
    const db = await database();
    if (db !== undefined) throw db;
    return { status: 'ok', database: { backend: o.db.dialect, status: 'ok' } };
  });
}

/**
 * `SELECT 1` on the database — after a storage fault, a small write instead
 * (Storage.probe) — at most PROBE_MS, one at a time (concurrent health checks
 * share it): undefined when it answered, else the error to send: the storage
 * fault (storage_full, …), or 503 database_unavailable naming the server,
 * never its password.
 */
function databaseProbe(db: Storage): () => Promise<OracleKitError | undefined> {
  let running: Promise<OracleKitError | undefined> | undefined;
  const probe = async (): Promise<OracleKitError | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<OracleKitError>((r) => {
      timer = setTimeout(
        () =>
          r(registryError('database_unavailable', `the database did not answer within ${PROBE_MS} ms; retry shortly`)),
        PROBE_MS,
      );
    });
    try {
      return await Promise.race([
        (db.fault ? db.probe() : db.get('SELECT 1 AS up')).then(
          () => undefined,
          (e: unknown) =>
            isStorageFault(e)
              ? e
              : registryError('database_unavailable', 'the database does not answer; retry shortly'),
        ),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  return () => (running ??= probe().finally(() => (running = undefined)));
}
