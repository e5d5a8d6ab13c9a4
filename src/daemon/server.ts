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
import type { Registry } from './registry/store.ts';
import { bearer, keyHash } from './http/auth.ts';
import { installErrorHandling } from './http/errors.ts';
import { adminPlugin, registryPlugin } from './http/routes.ts';
import { registryError } from '../lib/registry/errors.ts';

export interface MountedPlugin {
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
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });

  const rateLimit = (await import('@fastify/rate-limit')).default;
  await app.register(rateLimit, {
    global: true,
    max: opts.config.rateLimit.max,
    timeWindow: opts.config.rateLimit.timeWindowMs,
    keyGenerator: (req) => {
      const key = bearer(req);
      return key ? 'k:' + keyHash(req, key) : 'ip:' + req.ip;
    },
    allowList: (req) => req.url === '/health',
    // x-ratelimit-* only on the 429 (with retry-after): three fewer headers on every other reply
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (_req, ctx) =>
      registryError('rate_limited', `rate limit: at most ${ctx.max} requests per ${ctx.after} for this key`, { details: { max: ctx.max, retryAfter: ctx.after } }),
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
