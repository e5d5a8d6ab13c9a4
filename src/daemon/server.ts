/**
 * Builds the daemon's fastify app from the modules of http/: request ids
 * (request-id.ts), request logging (request-log.ts), the refusals before
 * there is a route (refusals.ts), the JSON parser with its depth check
 * (json-body.ts), the rate limit (rate-limit.ts), zod validation, the one
 * error handler (errors.ts), OpenAPI at /docs (docs.ts), /health
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
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyPluginCallback,
  type FastifyServerOptions,
} from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { DeploymentConfig } from './config.ts';
import type { Registry } from './registry/index.ts';
import { installDocs } from './http/docs.ts';
import { installErrorHandling } from './http/errors.ts';
import { healthRoutes } from './http/health.ts';
import { publicPlugin } from './http/public.ts';
import { checkBodyDepth, installJsonParser } from './http/json-body.ts';
import { DEFAULT_TIMEOUTS, type RequestTimeouts } from './http/limits.ts';
import { installRateLimit } from './http/rate-limit.ts';
import { clientErrorHandler, frameworkErrors } from './http/refusals.ts';
import { echoRequestId, genReqId } from './http/request-id.ts';
import { RequestLog } from './http/request-log.ts';
import { adminPlugin, registryPlugin } from './http/routes.ts';
import { guardHosts, type HostPolicy } from '../runtime/host-check.ts';

interface MountedPlugin {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  plugin: FastifyPluginAsync<any> | FastifyPluginCallback<any>;
  options?: Record<string, unknown>;
  prefix?: string;
}

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
  const timeouts = { ...DEFAULT_TIMEOUTS, ...(opts.timeouts ?? {}) };
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new RequestLog(),
    genReqId,
    bodyLimit: opts.config.bodyLimitBytes,
    // slow clients: the headers within headersMs, the whole request (body included) within requestMs, else
    // 408 and the connection closed (clientErrorHandler); fastify's default is no limit at all
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    frameworkErrors,
    clientErrorHandler,
    // the body of JSON: __proto__ and constructor.prototype refused (400), never merged
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 8192, ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  echoRequestId(app);
  // a page whose name resolves to 127.0.0.1 (DNS rebinding) must not reach the daemon's routes
  const hosts = opts.hosts;
  if (hosts) guardHosts(app, () => hosts);
  const { max, timeWindowMs } = opts.config.rateLimit;
  const rateLimit = await installRateLimit(app, {
    registry: opts.registry,
    max,
    timeWindowMs,
    redisUrl: opts.config.redisUrl,
  });
  installJsonParser(app);
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

/**
 * Mounts a plugin beside /v1 (the oracle runtime): in its own encapsulated
 * scope, under `prefix`, after the shared hooks. The scope checks the body's
 * depth before validation: such a plugin may parse JSON with a parser of its
 * own, without the root parser's check.
 */
export async function mountPlugin(app: FastifyInstance, m: MountedPlugin): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preValidation', checkBodyDepth);
    await scope.register(m.plugin, { ...(m.options ?? {}), prefix: m.prefix });
  });
}
