/**
 * The daemon process: `node dist/daemon/main.js [--port N] [--host H]`.
 * Loads the deployment config, opens the database (migrations at start),
 * listens (127.0.0.1:4781 by default), then writes the discovery file.
 * It also hosts the default oracle under /oracle (oracle.ts), unless
 * daemon.json says `oracle.enabled: false`; a boot error of the oracle is
 * logged and the registry is served without it.
 * SIGTERM/SIGINT: abort the oracle's running turns and disconnect its
 * realtime clients, stop accepting, finish in-flight requests, close the
 * oracle runtime and the database, remove the discovery file, exit 0.
 * Logs (pino, JSON lines) go to stdout; `daemon start` points stdout at
 * the log file ($state/daemon.log).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { hostname as osHostname } from 'node:os';
import { createWriteStream, writeSync } from 'node:fs';
import { loadConfig, resolveSettings } from './config.ts';
import { configPath, dbPath } from '../lib/paths.ts';
import { packageVersion } from '../lib/version.ts';
import {
  DAEMON_EXIT_ANOTHER,
  acquireLock,
  isAlive,
  readDiscovery,
  releaseLock,
  removeDiscovery,
  writeDiscovery,
} from '../lib/discovery.ts';
import { openStorage, redact } from '../storage/open.ts';
import { checkDatabaseDir } from '../storage/files.ts';
import { REGISTRY_MIGRATIONS } from './registry/migrations.ts';
import { Registry } from './registry/index.ts';
import { buildServer } from './server.ts';
import { redisWhere } from './http/shared-limit.ts';
import { keepTickShape, shrinkHeap, shrinkWhenIdle } from './heap.ts';
import type { DefaultOracle } from './oracle.ts';

const VERSION = packageVersion();
/** The exit code of a daemon that found another one running (or starting) on its port. */
const ANOTHER_DAEMON = DAEMON_EXIT_ANOTHER;

async function main(): Promise<void> {
  // before any collection that could drop the tick objects' maps (heap.ts, "Hidden classes across a shrink")
  keepTickShape();
  const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } }, strict: true });
  const { config, port, host, dbSynchronous, databaseUrl } = resolveSettings(
    loadConfig(configPath()),
    values,
    process.env,
  );

  const prev = readDiscovery();
  if (prev && prev.pid !== process.pid && isAlive(prev.pid)) {
    try {
      const r = await fetch(`${prev.url}/health`, { signal: AbortSignal.timeout(1000) });
      if (r.ok)
        throw Object.assign(new Error(`a daemon is already running (pid ${prev.pid}, ${prev.url})`), {
          exitCode: ANOTHER_DAEMON,
        });
    } catch (e) {
      if ((e as Error).message.startsWith('a daemon')) throw e;
    }
  }

  acquireLock();
  process.on('exit', () => releaseLock());
  if (!databaseUrl) checkDatabaseDir(dbPath()); // created 0700; refused when other users may write to it (storage/files.ts)
  // SQLite: acknowledged writes are fsynced off the event loop (storage/db.ts); ORACLEKIT_DB_SYNCHRONOUS=FULL fsyncs inside
  // every COMMIT instead, =NORMAL not at all (benchmarks only: a power loss may then lose acknowledged writes).
  // PostgreSQL (ORACLEKIT_DATABASE_URL / databaseUrl): a returned COMMIT is durable (storage/postgres.ts)
  const db = await openStorage({
    location: databaseUrl ?? dbPath(),
    migrations: { registry: REGISTRY_MIGRATIONS },
    synchronous: dbSynchronous,
    setting: process.env.ORACLEKIT_DATABASE_URL ? 'ORACLEKIT_DATABASE_URL' : 'databaseUrl',
  });
  const registry = new Registry(db, config);
  const token = randomBytes(32).toString('base64url');
  const logStream = createWriteStream('', { fd: 1, autoClose: false, highWaterMark: 64 * 1024 });
  const started = new Date().toISOString();
  let oracle: DefaultOracle | undefined;
  const app = await buildServer({
    registry,
    config,
    version: VERSION,
    token,
    startedAt: started,
    // an async stream: log lines are written by libuv, not by a blocking write() per request on the event loop
    logger: {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'token', 'key', 'mnemonic'],
      stream: logStream,
    },
    healthExtra: () => (oracle ? { oracle: oracle.info() } : {}),
  });
  // on PostgreSQL too: the runtime's tables have a text per dialect (src/runtime/migrations.ts), in the same database
  if (config.oracle.enabled) {
    try {
      const { loadOracleKey, mountDefaultOracle } = await import('./oracle.ts');
      const key = await loadOracleKey();
      if (key.created) app.log.info({ did: key.did, file: key.path }, 'created the signing key of the default oracle');
      oracle = await mountDefaultOracle(app, {
        database: db,
        registry,
        config: config.oracle,
        env: process.env,
        key,
        log: { info: (l) => app.log.info({ oracle: true }, l), error: (l) => app.log.error({ oracle: true }, l) },
      });
    } catch (e) {
      app.log.error({ oracle: true }, `the default oracle is not served: ${(e as Error).message}`);
      oracle = undefined;
    }
  }
  // one access line per request (fastify's default is two), in pino's format, written straight to the stream:
  // the fields are ours (no headers, no query string), so pino's redaction and child bindings are not needed here
  if (['trace', 'debug', 'info'].includes(config.logLevel)) {
    const pid = process.pid;
    const host = JSON.stringify(osHostname());
    // access lines are gathered for up to 50 ms (or 64 KB) and leave in one write: a write per request
    // cost a thread-pool round trip each under load. A process exit writes what is pending synchronously.
    let pending = '';
    let timer: NodeJS.Timeout | undefined;
    const flushAccess = () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (pending) logStream.write(pending);
      pending = '';
    };
    process.on('exit', () => {
      if (pending) writeSync(1, pending);
    });
    app.addHook('onResponse', (req, reply, done) => {
      const q = req.url.indexOf('?');
      // pino's line, field for field, as a template rather than an object stringified: the request id and the path
      // are escaped, the method is an HTTP token (Node's parser accepts no other), the rest are numbers
      pending += `{"level":30,"time":${Date.now()},"pid":${pid},"hostname":${host},"reqId":${JSON.stringify(req.id)},"method":"${req.method}","url":${JSON.stringify(q === -1 ? req.url : req.url.slice(0, q))},"statusCode":${reply.statusCode},"ms":${Math.round(reply.elapsedTime * 10) / 10},"msg":"request"}\n`;
      if (pending.length > 64 * 1024) flushAccess();
      else if (!timer) timer = setTimeout(flushAccess, 50).unref();
      done();
    });
    app.addHook('onClose', (_app, done) => {
      flushAccess();
      done();
    });
  }

  // the heap shrinks again whenever the daemon is idle after a burst (heap.ts)
  const stopShrinking = shrinkWhenIdle(app.server);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    stopShrinking();
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('in-flight requests did not finish in 10 s; exiting');
      removeDiscovery(process.pid);
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      oracle?.quiesce();
      await app.close();
      await oracle?.close();
    } finally {
      await db.close().catch((e: unknown) => app.log.error({ err: e }, 'closing the database failed'));
      removeDiscovery(process.pid);
      app.log.info('stopped');
      logStream.end(() => process.exit(0));
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  const address = await app.listen({ port, host }).catch(async (e: NodeJS.ErrnoException) => {
    // another daemon started at the same moment and won the port: say so with an exit code of its own, so the CLI
    // that spawned us waits for that one instead of reporting a failure (src/cli/daemon/control.ts)
    if (e.code === 'EADDRINUSE') {
      const h = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/health`, {
        signal: AbortSignal.timeout(1000),
      })
        .then((r) => (r.ok ? (r.json() as Promise<{ pid?: unknown }>) : undefined))
        .catch(() => undefined);
      if (typeof h?.pid === 'number')
        throw Object.assign(new Error(`another oraclekit daemon (pid ${h.pid}) holds ${host}:${port}`), {
          exitCode: ANOTHER_DAEMON,
        });
    }
    throw e;
  });
  const actual = app.server.address();
  const actualPort = typeof actual === 'object' && actual ? actual.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${actualPort}`;
  const info = oracle?.info();
  // give back what the boot grew (young generation, garbage of loading modules) before anyone is told where we are;
  // later, after each burst, when the daemon is idle again (heap.ts)
  shrinkHeap();
  writeDiscovery({
    pid: process.pid,
    host,
    port: actualPort,
    url,
    version: VERSION,
    token,
    started,
    ...(info ? { oracle: { url: url + info.path, wsUrl: url, did: info.did } } : {}),
  });
  app.log.info(
    {
      address,
      db: databaseUrl ? redact(databaseUrl) : dbPath(),
      rateLimit: config.redisUrl ? `shared (${redisWhere(config.redisUrl)})` : 'this process',
      synchronous: dbSynchronous,
      config: configPath(),
      voters: config.voters.length,
      rule: config.tally.rule,
      oracle: info ? { did: info.did, url: url + info.path, model: info.model } : null,
    },
    'oraclekit daemon listening',
  );
}

main().catch((e: unknown) => {
  // the message on the last line: `daemon start` shows the log's last lines when the daemon does not come up
  if (process.env.DEBUG) process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.stderr.write(`oraclekit daemon: ${(e as Error).message ?? String(e)}\n`);
  process.exit((e as { exitCode?: number }).exitCode ?? 1);
});
