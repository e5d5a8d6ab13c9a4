/**
 * The daemon process: `node dist/daemon/main.js [--port N] [--host H]`.
 * Loads the deployment config, opens the database (migrations at start),
 * listens (127.0.0.1:4781 by default), then writes the discovery file.
 * It also hosts the default oracle under /oracle (oracle.ts), unless
 * daemon.json says `oracle.enabled: false`; a boot error of the oracle is
 * logged and the registry is served without it.
 * SIGTERM/SIGINT stop it gracefully (lifecycle.ts). Logs (pino, JSON
 * lines, one per request) go to stdout; `daemon start` points stdout at the
 * log file ($state/daemon.log).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig, resolveSettings, type DeploymentConfig } from './config.ts';
import { configPath, dbPath } from '../lib/paths.ts';
import { toolEnv } from '../lib/env.ts';
import { packageVersion } from '../lib/version.ts';
import { writeDiscovery } from '../lib/discovery.ts';
import { openStorage, redact } from '../storage/open.ts';
import type { Storage } from '../storage/storage.ts';
import { REGISTRY_MIGRATIONS } from './registry/migrations.ts';
import { Registry } from './registry/index.ts';
import { buildServer } from './server.ts';
import { redisWhere } from './http/rate-limit.ts';
import { claimStateDir, listen, stopOnSignals, urlOf } from './lifecycle.ts';
import { hostPolicy } from '../runtime/host-check.ts';
import { installOutboundTransport } from '../runtime/outbound.ts';
import type { FastifyInstance } from 'fastify';
import type { DefaultOracle } from './oracle.ts';

const VERSION = packageVersion();

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } }, strict: true });
  const { config, port, host, dbSynchronous, databaseUrl } = resolveSettings(
    loadConfig(configPath()),
    values,
    process.env,
  );
  await claimStateDir();
  // SQLite: its directory created 0700 and refused when other users may write to it (storage/files.ts); an
  // acknowledged write is on disk (storage/sqlite.ts, ORACLEKIT_DB_SYNCHRONOUS). PostgreSQL (ORACLEKIT_DATABASE_URL /
  // databaseUrl): a returned COMMIT is durable (storage/postgres.ts)
  const db = await openStorage({
    location: databaseUrl ?? dbPath(),
    migrations: { registry: REGISTRY_MIGRATIONS },
    synchronous: dbSynchronous,
    setting: !databaseUrl ? 'ORACLEKIT_DB' : toolEnv().databaseUrl ? 'ORACLEKIT_DATABASE_URL' : 'databaseUrl',
  });
  const registry = new Registry(db, config);
  installOutboundTransport(); // the health probes' and the oracle's outbound calls: undici, with time-outs
  const token = randomBytes(32).toString('base64url');
  const started = new Date().toISOString();
  let oracle: DefaultOracle | undefined = undefined; // mounted after the server is built
  const app = await buildServer({
    registry,
    config,
    version: VERSION,
    token,
    startedAt: started,
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'token', 'key', 'mnemonic'] },
    healthExtra: () => (oracle ? { oracle: oracle.info() } : {}),
    hosts: hostPolicy(host),
  });
  oracle = await mountOracle(app, db, registry, config);
  stopOnSignals(app, db, () => oracle);

  const actualPort = await listen(app, host, port);
  const url = urlOf(host, actualPort);
  const info = oracle?.info();
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
      address: url,
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

/**
 * The default oracle under /oracle (oracle.ts), on the daemon's database (on
 * PostgreSQL too: the runtime's tables have a text per dialect), unless
 * daemon.json says `oracle.enabled: false`. A boot error is logged and the
 * registry is served without it.
 */
async function mountOracle(
  app: FastifyInstance,
  db: Storage,
  registry: Registry,
  config: DeploymentConfig,
): Promise<DefaultOracle | undefined> {
  if (!config.oracle.enabled) return undefined;
  try {
    const { loadOracleKey, mountDefaultOracle } = await import('./oracle.ts');
    const key = await loadOracleKey();
    if (key.created) app.log.info({ did: key.did, file: key.path }, 'created the signing key of the default oracle');
    return await mountDefaultOracle(app, {
      database: db,
      registry,
      config: config.oracle,
      env: process.env,
      key,
      log: { info: (l) => app.log.info({ oracle: true }, l), error: (l) => app.log.error({ oracle: true }, l) },
    });
  } catch (e) {
    app.log.error({ oracle: true }, `the default oracle is not served: ${(e as Error).message}`);
    return undefined;
  }
}

main().catch((e: unknown) => {
  // the message on the last line: `daemon start` shows the log's last lines when the daemon does not come up
  if (process.env.DEBUG) process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.stderr.write(`oraclekit daemon: ${(e as Error).message ?? String(e)}\n`);
  process.exit((e as { exitCode?: number }).exitCode ?? 1);
});
