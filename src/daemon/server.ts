/**
 * Builds the daemon's fastify app: request ids, pino logs, body limit, rate
 * limit per key, zod validation, OpenAPI at /docs (JSON at /docs/json), the
 * one error handler, /health, /v1 (registry) and /admin/v1 (keys).
 *
 * Other parts of the daemon (the oracle runtime) mount beside /v1 through
 * `plugins`: each is registered in its own encapsulated context with its
 * prefix, after the shared hooks (request id, rate limit, error handler) and
 * before the server is ready, e.g.
 *   buildServer({ ..., plugins: [{ plugin: createOracleApp, options: {...}, prefix: '/runtime' }] })
 * The /v1 auth hook is local to the /v1 plugin, so a mounted plugin does its
 * own auth; it inherits the error handler unless it sets its own.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyPluginCallback, FastifyServerOptions } from 'fastify';
import type { DeploymentConfig } from './config.ts';
import type { Registry } from './registry/index.ts';
import { bearer, keyHash } from './http/auth.ts';
import { installErrorHandling } from './http/errors.ts';
import { adminPlugin, registryPlugin } from './http/routes.ts';
import { registryError } from '../lib/registry/errors.ts';

interface MountedPlugin {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  plugin: FastifyPluginAsync<any> | FastifyPluginCallback<any>;
  options?: Record<string, unknown>;
  prefix?: string;
}

export interface ServerOptions {
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
}

const REQ_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ID_PREFIX = randomUUID().slice(0, 8);
let reqCounter = 0;

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const { default: Fastify, LogController } = await import('fastify');
  const zod = await import('fastify-type-provider-zod');
  const startedAt = opts.startedAt ?? new Date().toISOString();
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.config.bodyLimitBytes,
    // the caller's x-request-id when sane, else <random per process>-<counter>: unique per daemon, cheaper than a UUID each
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQ_ID.test(h) ? h : `${ID_PREFIX}-${(++reqCounter).toString(36)}`;
    },
    // the body of JSON: __proto__ and constructor.prototype refused (400), never merged
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // one log line per request comes from the daemon's onResponse hook (main.ts), not fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { maxParamLength: 8192, ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(zod.validatorCompiler);
  app.setSerializerCompiler(zod.serializerCompiler);
  installErrorHandling(app);
  // One synchronous onRequest hook: the request id header, then the rate limit per key (per client IP
  // without a key; /health exempt) — a fixed window per key. @fastify/rate-limit did the same with an
  // async hook and an LRU store; this hook is a Map lookup and cost a few per cent less per request.
  const { max, timeWindowMs } = opts.config.rateLimit;
  const windows = new Map<string, { count: number; resetAt: number }>();
  let sweepAt = 0;
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (req.url === '/health') return done();
    const key = bearer(req);
    const id = key ? 'k:' + keyHash(req, key) : 'ip:' + req.ip;
    const now = Date.now();
    if (now >= sweepAt) {
      for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
      sweepAt = now + timeWindowMs;
    }
    let w = windows.get(id);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + timeWindowMs };
      windows.set(id, w);
    }
    if (++w.count <= max) return done();
    const retryAfter = Math.max(1, Math.ceil((w.resetAt - now) / 1000));
    reply.header('retry-after', retryAfter).header('x-ratelimit-limit', max).header('x-ratelimit-remaining', 0).header('x-ratelimit-reset', retryAfter);
    done(registryError('rate_limited', `rate limit: at most ${max} requests per ${timeWindowMs / 1000} s for this key; retry in ${retryAfter} s`, { details: { max, windowSeconds: timeWindowMs / 1000, retryAfterSeconds: retryAfter } }));
  });

  if (opts.docs !== false) {
    const swagger = (await import('@fastify/swagger')).default;
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'oraclekit registry', version: opts.version, description: 'Sample designs, domains, verification proposals and votes (registry.md).' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      },
      transform: zod.jsonSchemaTransform,
    });
    const ui = (await import('@fastify/swagger-ui')).default;
    await app.register(ui, { routePrefix: '/docs' });
  }

  app.get('/health', { schema: { hide: true } }, async () => ({
    status: 'ok',
    name: 'oraclekit',
    version: opts.version,
    pid: process.pid,
    startedAt,
    uptimeSeconds: Math.round(process.uptime()),
    ...(opts.healthExtra?.() ?? {}),
  }));

  await app.register(registryPlugin, { prefix: '/v1', registry: opts.registry });
  await app.register(adminPlugin, { prefix: '/admin/v1', registry: opts.registry, token: opts.token });
  for (const m of opts.plugins ?? []) await app.register(m.plugin, { ...(m.options ?? {}), prefix: m.prefix });
  return app;
}
