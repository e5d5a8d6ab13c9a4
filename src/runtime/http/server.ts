/**
 * The one HTTP server factory: the daemon's server (daemon/server.ts) and a scaffolded oracle's (createOracleApp,
 * runtime/app.ts) are both built here, so both answer a hostile or slow client the same way:
 * - time limits (limits.ts): the headers within headersMs, the whole request within requestMs, else 408 and the
 *   connection closed (a slowloris holds no socket);
 * - JSON bodies through fastify's parser with their depth checked (json-body.ts: 400 body_too_deep), `__proto__`
 *   and constructor.prototype refused (400), never merged;
 * - request ids (request-id.ts), echoed as X-Request-Id and bound to every log line of the request;
 * - the refusals before there is a route (refusals.ts) and every error (errors.ts) in the one error body; unknown
 *   routes 404 not_found;
 * - the host names it answers to (host-check.ts; 421 misdirected_host), when a policy is given;
 * - one request line per request (request-log.ts), its query string never logged.
 * A plugin mounted with `mount` (the oracle's routes, which parse JSON with a parser of their own) keeps the depth
 * check.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyPluginCallback,
  type FastifyServerOptions,
} from 'fastify';
import { installErrorHandling } from './errors.ts';
import { checkBodyDepth, installJsonParser } from './json-body.ts';
import { DEFAULT_TIMEOUTS, type RequestTimeouts } from './limits.ts';
import { clientErrorHandler, frameworkErrors } from './refusals.ts';
import { echoRequestId, genReqId } from './request-id.ts';
import { RequestLog } from './request-log.ts';
import { guardHosts, type HostPolicy } from '../host-check.ts';

export interface HttpServerOptions {
  /** fastify's logger options (pino's: level, stream, redact); default none. */
  logger?: FastifyServerOptions['logger'];
  /** A pino logger to write to instead (the oracle's log); wins over `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** The largest body accepted (413 beyond). */
  bodyLimit: number;
  /** Time limits of a request; DEFAULT_TIMEOUTS unless given (tests shorten them). */
  timeouts?: Partial<RequestTimeouts>;
  /** The host names answered to; undefined: any. Read at each request. */
  hosts?: () => HostPolicy;
  /** On close: 'idle' waits for requests in flight (the daemon), true closes every connection (an oracle's SSE). */
  forceCloseConnections?: boolean | 'idle';
  /** `/x/` is `/x` (the daemon's routes). */
  ignoreTrailingSlash?: boolean;
}

export function createHttpServer(o: HttpServerOptions): FastifyInstance {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...(o.timeouts ?? {}) };
  const app = Fastify({
    ...(o.loggerInstance ? { loggerInstance: o.loggerInstance } : { logger: o.logger ?? false }),
    logController: new RequestLog(),
    genReqId,
    bodyLimit: o.bodyLimit,
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
    forceCloseConnections: o.forceCloseConnections ?? 'idle',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 8192, ignoreTrailingSlash: o.ignoreTrailingSlash ?? false },
  }) as unknown as FastifyInstance;
  installErrorHandling(app);
  echoRequestId(app);
  // a page whose name resolves to 127.0.0.1 (DNS rebinding) must not reach the routes
  if (o.hosts) guardHosts(app, o.hosts);
  installJsonParser(app);
  return app;
}

export interface MountedPlugin {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  plugin: FastifyPluginAsync<any> | FastifyPluginCallback<any>;
  options?: Record<string, unknown>;
  prefix?: string;
}

/**
 * Mounts a plugin (the oracle runtime) in its own encapsulated scope, under `prefix`, after the shared hooks. The
 * scope checks the body's depth before validation: such a plugin may parse JSON with a parser of its own, without
 * the root parser's check.
 */
export async function mountPlugin(app: FastifyInstance, m: MountedPlugin): Promise<void> {
  await app.register(depthChecked(m));
}

/** The plugin in a scope of its own that checks the body's depth (mountPlugin's, for a host that registers it). */
export function depthChecked(m: MountedPlugin): FastifyPluginAsync {
  return async (scope) => {
    scope.addHook('preValidation', checkBodyDepth);
    await scope.register(m.plugin, { ...(m.options ?? {}), prefix: m.prefix });
  };
}
