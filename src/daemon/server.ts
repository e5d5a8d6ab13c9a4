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
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyPluginAsync,
  FastifyPluginCallback,
  FastifyServerOptions,
} from 'fastify';
import type { DeploymentConfig } from './config.ts';
import type { Registry } from './registry/index.ts';
import { publicPlugin } from './http/public.ts';
import { presentedKeyHash } from './http/auth.ts';
import { installErrorHandling } from './http/errors.ts';
import {
  DEFAULT_TIMEOUTS,
  MAX_BODY_DEPTH,
  RateLimiter,
  tooDeep,
  unreadBody,
  type RequestTimeouts,
} from './http/limits.ts';
import { adminPlugin, registryPlugin } from './http/routes.ts';
import { keepShapes } from './heap.ts';
import { directRules } from './http/schemas.ts';
import type { ZodType } from 'zod';
import type { SharedRateLimiter } from './http/shared-limit.ts';
import { registryError } from '../lib/registry/errors.ts';
import { isOracleKitError, toErrorBody, type OracleKitError } from '../lib/errors.ts';
import type { Storage } from '../storage/storage.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limit's windows (server.ts; for tests and diagnostics): local, or shared through Redis. */
    rateLimiter: RateLimiter | SharedRateLimiter;
  }
}

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
  /** Time limits of a request (http/limits.ts); DEFAULT_TIMEOUTS unless given (tests shorten them). */
  timeouts?: Partial<RequestTimeouts>;
}

const REQ_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ID_PREFIX = randomUUID().slice(0, 8);
let reqCounter = 0;
const nextReqId = () => `${ID_PREFIX}-${(++reqCounter).toString(36)}`;

/** How long /health waits for the database's answer before calling it unavailable (the CLI waits 1.5 s for /health). */
const PROBE_MS = 500;

/**
 * `SELECT 1` on the database, at most PROBE_MS, one at a time (concurrent
 * health checks share it): undefined when it answered, else the error to
 * send — 503 database_unavailable naming the server, never its password.
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
        db.get('SELECT 1 AS up').then(
          () => undefined,
          (e: unknown) =>
            isOracleKitError(e) && e.code === 'database_unavailable'
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

export async function buildServer(opts: ServerOptions): Promise<FastifyInstance> {
  const { default: Fastify, LogController } = await import('fastify');
  const zod = await import('fastify-type-provider-zod');
  const startedAt = opts.startedAt ?? new Date().toISOString();
  const timeouts = { ...DEFAULT_TIMEOUTS, ...(opts.timeouts ?? {}) };
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.config.bodyLimitBytes,
    // the caller's x-request-id when sane, else <random per process>-<counter>: unique per daemon, cheaper than a UUID each
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQ_ID.test(h) ? h : nextReqId();
    },
    // slow clients: the headers within headersMs, the whole request (body included) within requestMs, else
    // 408 and the connection closed (clientErrorHandler below); fastify's default is no limit at all
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    // what the router refuses before any hook runs (bad percent-encoding, a path parameter over maxParamLength):
    // the one error body and a request id, not fastify's own {error, code: FST_ERR_…}
    frameworkErrors: (err, req, reply) => {
      const b = toErrorBody(err);
      req.log.info({ code: b.code, statusCode: b.statusCode }, 'request refused');
      if (unreadBody(req)) reply.header('connection', 'close');
      void (reply as FastifyReply)
        .code(b.statusCode)
        .header('x-request-id', req.id)
        .type('application/json; charset=utf-8')
        .send(b);
    },
    // what Node's HTTP parser refuses before there is a request (headers over 16 KiB, malformed HTTP, the
    // request timeout): the one error body with a fresh request id, then the connection is closed
    clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      const b = toErrorBody(err);
      const id = nextReqId();
      this.log.info({ reqId: id, code: b.code, statusCode: b.statusCode }, 'request refused');
      const started =
        (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
      if (!socket.writable || started) {
        socket.destroy();
        return;
      }
      const json = JSON.stringify(b);
      socket.end(
        `HTTP/1.1 ${b.statusCode} ${STATUS_CODES[b.statusCode] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${json}`,
        () => socket.destroy(),
      );
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
  // zod's validator, except for a body schema that is an area's rule over an object (schemas.ts directRules): the
  // rule runs first, and zod's validation (which gives every error its body) only when the rule refuses
  app.setValidatorCompiler((route) => {
    const check = zod.validatorCompiler(route as Parameters<typeof zod.validatorCompiler>[0]);
    const rule = directRules.get(route.schema as ZodType);
    if (rule === undefined) return check;
    return (data: unknown) => {
      if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
        try {
          return { value: rule(data as Record<string, unknown>) };
        } catch {
          // zod's validation below gives the error its body
        }
      }
      return check(data);
    };
  });
  app.setSerializerCompiler(zod.serializerCompiler);
  installErrorHandling(app);
  // One synchronous onRequest hook: the request id header, then the rate limit (/health exempt) — a fixed
  // window per API key that has authenticated, per client address for everything else (http/limits.ts): no
  // key, the discovery token, a UCAN, and made-up keys, so failed authentications count against the address
  // and a flood of random keys opens no window each. @fastify/rate-limit did this with an async hook and an LRU
  // store; this hook is a Map lookup and cost a few per cent less per request.
  // With `redisUrl` the windows are counted in Redis, shared by every daemon of the deployment (http/shared-limit.ts);
  // the hook then waits for one pipelined round trip. Without it, the local windows, synchronously.
  const { max, timeWindowMs } = opts.config.rateLimit;
  const limiter: RateLimiter | SharedRateLimiter = opts.config.redisUrl
    ? await (
        await import('./http/shared-limit.ts')
      ).SharedRateLimiter.create(opts.config.redisUrl, max, timeWindowMs, app.log)
    : new RateLimiter(max, timeWindowMs);
  app.decorate<RateLimiter | SharedRateLimiter>('rateLimiter', limiter);
  app.decorateRequest('keyHash', null);
  if ('close' in limiter) app.addHook('onClose', (_app, done) => (limiter.close(), done()));
  const refuse = (reply: FastifyReply, done: (e?: Error) => void, id: string, retryAfter: number) => {
    const per = id.startsWith('k:') ? 'key' : 'address';
    reply
      .header('retry-after', retryAfter)
      .header('x-ratelimit-limit', max)
      .header('x-ratelimit-remaining', 0)
      .header('x-ratelimit-reset', retryAfter);
    done(
      registryError(
        'rate_limited',
        `rate limit: at most ${max} requests per ${timeWindowMs / 1000} s for this ${per === 'key' ? 'key' : 'client address'}; retry in ${retryAfter} s`,
        { details: { max, windowSeconds: timeWindowMs / 1000, retryAfterSeconds: retryAfter, per } },
      ),
    );
  };
  app.addHook('onRequest', (req, reply, done) => {
    keepShapes(reply); // the maps of a request outlive an idle spell (heap.ts)
    reply.header('x-request-id', req.id);
    if (req.url === '/health' || req.url === '/health/ready') return done();
    const h = presentedKeyHash(req);
    const id = limiter.idOf(h === '' ? undefined : h, req.ip);
    const r = limiter.hit(id);
    if (r === undefined) return done();
    if (typeof r === 'number') return refuse(reply, done, id, r);
    // shared: one Redis round trip (it never rejects: a fault is counted locally, http/shared-limit.ts)
    void r.then((retryAfter) => (retryAfter === undefined ? done() : refuse(reply, done, id, retryAfter)));
  });
  // The body's depth before anything reads it (validation, the Idempotency-Key hash, an error's value): checked as
  // the JSON body is parsed (no hook on every request); a JSON body cannot nest deeper than half its length, so
  // short bodies skip the walk. A mounted plugin that parses JSON itself (the oracle runtime) gets the same check
  // as a preValidation hook of its scope (below).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string | Buffer, done) => {
    parseJson(req, body as string, (err: Error | null, value?: unknown) => {
      if (err) return done(err, undefined);
      const deep = body.length < 2 * MAX_BODY_DEPTH ? undefined : depthError(value);
      if (deep) return done(deep, undefined);
      done(null, value);
    });
  });
  if (opts.docs !== false) {
    const swagger = (await import('@fastify/swagger')).default;
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'oraclekit registry',
          version: opts.version,
          description: 'Sample designs, domains, verification proposals and votes (registry.md).',
        },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      },
      transform: zod.jsonSchemaTransform,
    });
    const ui = (await import('@fastify/swagger-ui')).default;
    await app.register(ui, { routePrefix: '/docs' });
  }

  // /health is liveness: 200 while the process serves (the CLI's handshake, docs/daemon.md), with the database's
  // state; /health/ready is readiness for a load balancer: 503 database_unavailable while the database does not answer
  const database = databaseProbe(opts.registry.db);
  app.get('/health', { schema: { hide: true } }, async () => {
    const db = await database();
    return {
      status: 'ok',
      name: 'oraclekit',
      version: opts.version,
      pid: process.pid,
      startedAt,
      uptimeSeconds: Math.round(process.uptime()),
      database: { backend: opts.registry.db.dialect, status: db === undefined ? 'ok' : 'unavailable' },
      rateLimit: 'store' in limiter ? { store: limiter.store, redis: limiter.where } : { store: 'local' },
      ...(opts.healthExtra?.() ?? {}),
    };
  });
  app.get('/health/ready', { schema: { hide: true } }, async () => {
    const db = await database();
    if (db !== undefined) throw db;
    return { status: 'ok', database: { backend: opts.registry.db.dialect, status: 'ok' } };
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
 * depth before validation (a preValidation hook): such a plugin may parse JSON
 * with a parser of its own, without the root parser's check.
 */
export async function mountPlugin(app: FastifyInstance, m: MountedPlugin): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('preValidation', (req, _reply, done) => {
      const body = req.body;
      if (
        typeof body !== 'object' ||
        body === null ||
        Number(req.headers['content-length'] ?? Infinity) < 2 * MAX_BODY_DEPTH
      )
        return done();
      done(depthError(body));
    });
    await scope.register(m.plugin, { ...(m.options ?? {}), prefix: m.prefix });
  });
}

/** 400 body_too_deep naming the top-level field, when a parsed JSON body nests deeper than MAX_BODY_DEPTH. */
function depthError(body: unknown): OracleKitError | undefined {
  const deep = tooDeep(body);
  if (!deep) return undefined;
  const field = deep.field || 'body';
  return registryError('body_too_deep', `${field} nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels`, {
    field,
    details: { maxDepth: MAX_BODY_DEPTH },
  });
}
