/**
 * Every HTTP route of protocol.md, as one fastify plugin (encapsulated: its
 * own zod compilers, error handler and auth hook). createOracle (oracle.ts)
 * registers it inside its own plugin, which the daemon and createOracleApp
 * both register.
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import cors from '@fastify/cors';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import * as P from '../lib/protocol/index.ts';
import { runtimeError } from '../lib/protocol/errors.ts';
import { toErrorBody } from '../lib/errors.ts';
import { verifyDelegation } from '../lib/ucan/verify.ts';
import type { OracleRuntime } from './runtime.ts';
import { getUser, setUser } from './auth.ts';
import { streamRun } from './stream-run.ts';
import { storedReplay } from './runs.ts';
import { storageHealth } from './database.ts';
import { storageFault } from '../storage/faults.ts';

interface RuntimeRoutesOptions {
  runtime: OracleRuntime;
  /** Register @fastify/cors in this scope (default true; false when the host already does). */
  cors?: boolean;
  /** Register `/` and `/health` (default true; the daemon may serve its own). */
  rootRoutes?: boolean;
}

export const PUBLIC_ROUTES = ['/', '/health', '/ready', '/docs', '/models'];

/** Maps any error to protocol.md's body: the one mapper of every HTTP scope (src/lib/errors.ts). */
export { toErrorBody };

/** A fastify scope with zod schemas as types (the runtime's, and the daemon's registry API). */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export const registerOracleRuntime: FastifyPluginAsync<RuntimeRoutesOptions> = async (root, opts) => {
  const rt = opts.runtime;
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  acceptEmptyJson(app);
  if (opts.cors !== false) {
    await app.register(cors, {
      origin: rt.corsOrigins,
      // @fastify/cors allows GET, HEAD and POST by default: a page could not end a call or delete a session
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      exposedHeaders: ['X-Request-Id', 'x-run-id'],
      credentials: true,
    });
  }
  app.setErrorHandler((err, _req, reply) => {
    const body = toErrorBody(err);
    if (body.statusCode >= 500) rt.hooks.onError?.(err);
    const retryAfter = (body.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    void reply.status(body.statusCode).send(body);
  });

  const routeList: string[] = [];
  app.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') routeList.push(`${m} ${r.url}`);
  });
  addAuthHook(app, rt);
  // A changing request is answered only once what it wrote is on disk (storage/sqlite.ts, durable()): one
  // hook for every route, plugin routes included; it costs nothing when nothing was written since the
  // last fsync. Streamed replies (SSE) are not sent through it; a turn's history is awaited by the run.
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return done(null, payload);
    rt.store.db.durable().then(
      () => done(null, payload),
      (e: unknown) => done(e as Error),
    );
  });

  registerPublicRoutes(app, rt, routeList, opts.rootRoutes !== false);
  registerSessionRoutes(app, rt);
  registerMessageRoutes(app, rt);
  registerRunRoutes(app, rt);
  registerDelegationRoutes(app, rt);
  for (const { plugin, ctx } of rt.resolvedPlugins()) {
    if (plugin.routes) await plugin.routes(app as unknown as FastifyInstance, ctx);
  }
  registerMissingPluginRoutes(app, rt);
};

/**
 * The routes of a packaged plugin that is not installed (plugins/packaged.ts) answer 501 plugin_not_installed naming
 * the package to add, to anyone: they hold nothing of a user's.
 */
function registerMissingPluginRoutes(app: ZodApp, rt: OracleRuntime): void {
  for (const m of rt.missingPlugins) {
    const reply = async () => {
      throw runtimeError(
        'plugin_not_installed',
        m.error === undefined
          ? `${m.what} need the package ${m.pkg}, which is not installed beside this oracle's runtime: npm install ${m.pkg}`
          : `${m.what} need the package ${m.pkg}, which did not load (${m.error}): npm install ${m.pkg}`,
        { details: { plugin: m.name, package: m.pkg } },
      );
    };
    for (const prefix of m.routes) {
      app.all(prefix, reply);
      app.all(`${prefix}/*`, reply);
    }
  }
}

/**
 * An empty body with a JSON content type reads as {} (the IXO SDK sends `content-type: application/json` and no
 * body on POST /sessions and DELETE /sessions/:id): a route whose body is optional takes it, one that needs fields
 * answers invalid_body naming the field (the one mapper, toErrorBody). Any other body goes to fastify's own parser
 * (invalid_json as before).
 */
function acceptEmptyJson(app: ZodApp): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, {});
    parseJson(req, text, done);
  });
}

/** Authenticates every request but the public routes (PUBLIC_ROUTES and the plugins' authExcludedRoutes). */
function addAuthHook(app: ZodApp, rt: OracleRuntime): void {
  const publicUrls = new Set(PUBLIC_ROUTES);
  for (const { plugin } of rt.resolvedPlugins()) for (const u of plugin.authExcludedRoutes ?? []) publicUrls.add(u);
  for (const m of rt.missingPlugins) for (const r of m.routes) publicUrls.add(r).add(`${r}/*`);

  app.addHook('onRequest', async (req) => {
    const full = req.routeOptions.url;
    if (full === undefined || req.method === 'OPTIONS') return;
    const url = app.prefix && full.startsWith(app.prefix) ? full.slice(app.prefix.length) || '/' : full;
    if (publicUrls.has(url)) return;
    const h = req.headers;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    const user = await rt.auth.authenticate({
      authorization: one(h.authorization),
      authType: one(h['x-auth-type']),
      delegation: one(h['x-ucan-delegation']),
    });
    setUser(req, user);
  });
}

/** `/`, `/health`, `/ready`, `/docs` and `/models`: the routes without auth. */
function registerPublicRoutes(app: ZodApp, rt: OracleRuntime, routeList: string[], rootRoutes: boolean): void {
  const health = async () => ({
    status: 'ok',
    name: rt.config.name,
    oracleDid: rt.oracleDid,
    version: P.RUNTIME_VERSION,
  });
  if (rootRoutes) {
    app.get('/', { schema: { response: { 200: P.HealthResponseSchema } } }, health);
    app.get('/health', { schema: { response: { 200: P.HealthResponseSchema } } }, health);
  }
  const storage = storageHealth(rt.db, { minFreeBytes: rt.settings.ORACLE_READY_MIN_FREE_BYTES });
  app.get('/ready', async (_req, reply) => {
    const [model, fault] = await Promise.all([
      rt.modelCheck?.check(), // the default model's endpoint answers (model-check.ts)
      storage(), // the database takes writes again after a fault (database.ts)
    ]);
    const r = rt.ready();
    const pending = fault ? [...r.pending, 'storage'] : r.pending;
    const body: P.ReadyResponse = {
      ready: pending.length === 0,
      plugins: rt.status(),
      signingKeyLoaded: rt.signingKeyLoaded,
      storage: fault ? { ready: false, code: fault.code, message: fault.message } : { ready: true },
      ...(model ? { model } : {}),
    };
    if (pending.length > 0) body.pending = pending;
    return reply.status(pending.length === 0 ? 200 : 503).send(body);
  });
  app.get('/docs', async () => ({
    name: rt.config.name,
    oracleDid: rt.oracleDid,
    protocolVersion: P.PROTOCOL_VERSION,
    runtimeVersion: P.RUNTIME_VERSION,
    documentation: 'docs/protocol.md of oraclekit',
    auth: {
      header: 'Authorization: Bearer <base64 CAR of a ucanto invocation>',
      authType: 'X-Auth-Type: ucan',
      capability: { can: 'oracle/use', with: rt.oracleDid },
    },
    routes: routeList,
    errors: rt.errors,
  }));
  app.get('/models', { schema: { response: { 200: P.ModelsResponseSchema } } }, async () => rt.models());
}

function registerSessionRoutes(app: ZodApp, rt: OracleRuntime): void {
  app.post(
    '/sessions',
    { schema: { body: P.CreateSessionBodySchema, response: { 201: P.CreateSessionResponseSchema } } },
    async (req, reply) => {
      const s = await rt.store.createSession(getUser(req).did, req.body?.title);
      return reply.status(201).send(s);
    },
  );
  app.get(
    '/sessions',
    { schema: { querystring: P.PageQuerySchema, response: { 200: P.ListSessionsResponseSchema } } },
    async (req) => rt.store.listSessions(getUser(req).did, req.query.limit, req.query.offset),
  );
  app.delete(
    '/sessions/:id',
    { schema: { params: P.IdParamsSchema, response: { 200: P.MessageResponseSchema } } },
    async (req) => {
      const did = getUser(req).did;
      await rt.ownSession(did, req.params.id);
      const active = rt.runs.active(req.params.id);
      if (active) active.abort.abort(new Error('session deleted'));
      else await rt.cluster?.abortSession(req.params.id, 'session deleted'); // a turn on another instance
      await rt.store.deleteSession(did, req.params.id);
      return { message: `session ${req.params.id} deleted` };
    },
  );
  app.get(
    '/sessions/:id/run',
    { schema: { params: P.IdParamsSchema, response: { 200: P.SessionRunResponseSchema } } },
    async (req) => {
      await rt.ownSession(getUser(req).did, req.params.id);
      const mem = rt.runs.latest(req.params.id);
      if (mem) return { run: { runId: mem.runId, status: mem.status } };
      return { run: (await rt.store.latestRun(req.params.id)) ?? null };
    },
  );
  app.get(
    '/sessions/:id/messages',
    {
      schema: {
        params: P.IdParamsSchema,
        querystring: P.HistoryQuerySchema,
        response: { 200: P.PagedHistoryResponseSchema },
      },
    },
    async (req) => {
      await rt.ownSession(getUser(req).did, req.params.id);
      return rt.store.historyPage(req.params.id, req.query.limit, req.query.before, req.query.after);
    },
  );
}

function registerMessageRoutes(app: ZodApp, rt: OracleRuntime): void {
  app.post(
    '/messages/abort',
    { schema: { body: P.AbortBodySchema, response: { 200: P.AbortResponseSchema } } },
    async (req) => {
      await rt.ownSession(getUser(req).did, req.body.sessionId);
      const run = rt.runs.active(req.body.sessionId);
      if (run) {
        run.abort.abort(new Error('aborted by the user'));
        return { aborted: true as const, runId: run.runId };
      }
      // several instances: the turn may run on another one
      const remote = await rt.cluster?.abortSession(req.body.sessionId, 'aborted by the user');
      if (!remote) throw runtimeError('no_active_run', 'this session has no running run');
      return { aborted: true as const, runId: remote };
    },
  );
  app.get(
    '/messages/:sessionId',
    { schema: { params: P.SessionIdParamsSchema, response: { 200: P.HistoryResponseSchema } } },
    async (req) => {
      await rt.ownSession(getUser(req).did, req.params.sessionId);
      return { messages: await rt.store.history(req.params.sessionId) };
    },
  );
  app.post(
    '/messages/:sessionId',
    { schema: { params: P.SessionIdParamsSchema, body: P.SendMessageBodySchema } },
    async (req, reply) => {
      const user = getUser(req);
      if (rt.cluster) {
        // several instances: the session's turn may run on another one
        await rt.ownSession(user.did, req.params.sessionId);
        await rt.cluster.assertSessionFree(req.params.sessionId);
      }
      const delegation = user.delegation ?? (await rt.store.getDelegation(user.did))?.raw;
      const run = await rt.startTurn(user.did, req.params.sessionId, {
        message: req.body.message,
        model: req.body.model,
        timezone: req.body.timezone,
        metadata: req.body.metadata,
        delegation,
        tools: req.body.tools,
        agActions: req.body.agActions,
      });
      // the user's message is durable, or the reply is the storage's fault (507 storage_full, 503 …): never a stream
      // of a turn whose message was not stored
      await run.accepted;
      if (req.body.stream) {
        await run.announced; // several instances: the run id this reply gives is resumable on any of them
        streamRun(reply, { run, after: 0, heartbeatMs: rt.heartbeatMs });
        return reply;
      }
      await run.done;
      reply.header('x-request-id', run.requestId).header('x-run-id', run.runId);
      const fault = storageFault(run.storageFault);
      if (fault && run.status !== 'finished') throw fault; // the answer was not stored: the storage's code, not a 502
      const err = run.events.find((e) => e.event === 'error');
      if (err && err.event === 'error' && run.status !== 'finished') {
        throw runtimeError('upstream_error', err.data.error, {
          details: { kind: err.data.kind, retryable: err.data.retryable, errorCode: err.data.code, runId: run.runId },
        });
      }
      return {
        message: { id: run.requestId, type: 'ai' as const, content: run.text },
        sessionId: req.params.sessionId,
      };
    },
  );
}

function registerRunRoutes(app: ZodApp, rt: OracleRuntime): void {
  app.get(
    '/runs/:runId',
    { schema: { params: P.RunIdParamsSchema, querystring: P.RunReplayQuerySchema } },
    async (req, reply) => {
      const did = getUser(req).did;
      const mem = rt.runs.get(req.params.runId);
      // several instances: a run of another instance (or finished lately) is followed through Redis
      const live = mem && mem.userDid === did ? mem : await rt.cluster?.follow(req.params.runId, did);
      const stored = live ? undefined : await rt.store.getRun(did, req.params.runId);
      if (!live && !stored) throw runtimeError('run_not_found', `no run ${req.params.runId}`);
      const after = req.query.after;
      if (live) {
        streamRun(reply, {
          run: live,
          after,
          heartbeatMs: rt.heartbeatMs,
          resumed: after > 0,
          partialLength: live.text.length,
        });
      } else {
        // a log without its end (the run's process stopped, or its end was not stored) ends failed (runs.ts)
        const log = await rt.store.runEvents(req.params.runId, 0);
        streamRun(reply, { stored: storedReplay(log, after, stored!, rt.now), after, heartbeatMs: rt.heartbeatMs });
      }
      return reply;
    },
  );
}

function registerDelegationRoutes(app: ZodApp, rt: OracleRuntime): void {
  app.post(
    '/delegation',
    { schema: { body: P.PostDelegationBodySchema, response: { 200: P.PostDelegationResponseSchema } } },
    async (req) => {
      const did = getUser(req).did;
      const v = await verifyDelegation(req.body.raw, {
        oracleDid: rt.oracleDid,
        user: did,
        isRevoked: (c) => rt.store.isRevoked(c),
      });
      const expiration = Number.isFinite(v.expiration) ? v.expiration : (req.body.expiration ?? null);
      await rt.store.saveDelegation(did, v.cid, req.body.raw, expiration);
      return { ok: true as const, expiration };
    },
  );
  app.get('/delegation', { schema: { response: { 200: P.GetDelegationResponseSchema } } }, async (req) => {
    const d = await rt.store.getDelegation(getUser(req).did);
    const now = Math.floor(rt.now() / 1000);
    if (!d || (await rt.store.isRevoked(d.cid)) || (d.expiration !== null && d.expiration <= now))
      return { authorized: false };
    return d.expiration !== null ? { authorized: true, expiration: d.expiration } : { authorized: true };
  });
  app.delete('/delegation', { schema: { response: { 200: P.OkResponseSchema } } }, async (req) => {
    const cid = await rt.store.deleteDelegation(getUser(req).did);
    if (cid) await rt.revoke(cid);
    return { ok: true as const };
  });
}

/**
 * A 404 of the server (no route: e.g. POST /calls on an oracle without calls) is answered outside the runtime's scope
 * and its CORS hook, so it gets the CORS headers here: a page of an allowed origin reads the 404 instead of a CORS
 * failure.
 */
export function corsOnNotFound(app: FastifyInstance, corsOrigins: () => string[] | boolean): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const origin = req.headers.origin;
    if (reply.statusCode !== 404 || !origin || reply.hasHeader('access-control-allow-origin')) return payload;
    const allowed = corsOrigins();
    if (allowed === true || (Array.isArray(allowed) && allowed.includes(origin)))
      void reply
        .header('access-control-allow-origin', origin)
        .header('access-control-allow-credentials', 'true')
        .header('vary', 'Origin');
    return payload;
  });
}
