/**
 * Builds the daemon's fastify app on the one server factory
 * (runtime/http/server.ts: time limits, request ids, the request line, the
 * refusals, the depth-checked JSON parser, the one error handler, host
 * names), then adds the daemon's own from http/: the rate limit
 * (rate-limit.ts), zod validation, OpenAPI at /docs (docs.ts), /health
 * (health.ts), /v1 (the registry) and /admin/v1 (keys) (routes.ts), and the
 * public read of a domain at /public/v1 (public.ts).
 *
 * Other parts of the daemon (the oracle runtime) mount beside /v1 through
 * `plugins`: each is registered in its own encapsulated context with its
 * prefix, after the shared hooks (request id, rate limit, error handler) and
 * before the server is ready, e.g.
 *   buildServer({ ..., plugins: [{ plugin: createOracleApp, options: {...}, prefix: '/runtime' }] })
 * The /v1 auth hook is local to the /v1 plugin, so a mounted plugin does its
 * own auth; it inherits the error handler unless it sets its own.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { DeploymentConfig } from './config.ts';
import type { Registry } from './registry/index.ts';
import { installDocs } from './http/docs.ts';
import { healthRoutes } from './http/health.ts';
import { publicPlugin } from './http/public.ts';
import { installRateLimit } from './http/rate-limit.ts';
import { adminPlugin, registryPlugin } from './http/routes.ts';
import type { RequestTimeouts } from '../runtime/http/limits.ts';
import { createHttpServer, mountPlugin, type MountedPlugin } from '../runtime/http/server.ts';
import type { HostPolicy } from '../runtime/host-check.ts';

interface ServerOptions {
  registry: Registry;
  config: DeploymentConfig;
  version: string;
  /** The discovery token (admin auth for /admin/v1). */
  token?: string;
  logger?: FastifyServerOptions['logger'];
  /** Serve /docs (OpenAPI JSON and the swagger-ui page). Default true. */
  docs?: boolean;
  /** More plugins mounted beside /v1 (the oracle runtime). */
  plugins?: MountedPlugin[];
  startedAt?: string;
  /** More fields of GET /health (the default oracle's DID, path and plugin status). */
  healthExtra?: () => Record<string, unknown>;
  /** The host names the daemon answers to (runtime/host-check.ts; 421 misdirected_host otherwise); default any. */
  hosts?: HostPolicy;
  /** Time limits of a request (http/limits.ts); DEFAULT_TIMEOUTS unless given (tests shorten them). */
  timeouts?: Partial<RequestTimeouts>;
}

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const hosts = opts.hosts;
  const app = createHttpServer({
    logger: opts.logger,
    bodyLimit: opts.config.bodyLimitBytes,
    timeouts: opts.timeouts,
    hosts: hosts ? () => hosts : undefined,
    forceCloseConnections: 'idle',
    ignoreTrailingSlash: true,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const { max, timeWindowMs } = opts.config.rateLimit;
  const rateLimit = await installRateLimit(app, {
    registry: opts.registry,
    max,
    timeWindowMs,
    redisUrl: opts.config.redisUrl,
  });
  if (opts.docs !== false) await installDocs(app, opts.version);
  healthRoutes(app, {
    db: opts.registry.db,
    version: opts.version,
    startedAt: opts.startedAt ?? new Date().toISOString(),
    rateLimit,
    extra: opts.healthExtra,
  });
  await app.register(registryPlugin, { prefix: '/v1', registry: opts.registry });
  await app.register(publicPlugin, { prefix: '/public/v1', registry: opts.registry });
  await app.register(adminPlugin, { prefix: '/admin/v1', registry: opts.registry, token: opts.token });
  for (const m of opts.plugins ?? []) await mountPlugin(app, m);
  return app;
}
