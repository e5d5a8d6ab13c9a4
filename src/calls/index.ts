/**
 * calls (docs/live-agent.md): live voice and video calls with the oracle over
 * the LiveKit protocol. A call is a resource of its user: POST /calls creates
 * it (its id, its per-call encryption key, where to join and a join token),
 * POST /calls/:id/sync brings the oracle's agent into the room and hands a
 * fresh token, PATCH /calls/:id/update moves it to active or ended (as the IXO
 * SDK does), GET /calls lists the caller's calls. Another user's call answers
 * like a missing one (404). On a priced oracle, creating a call passes the
 * same gate as a turn (402 with claims); each utterance is an ordinary turn.
 *
 * Rooms live on a LiveKit server when LIVEKIT_URL, LIVEKIT_API_KEY and
 * LIVEKIT_API_SECRET are set, else on the embedded endpoint (sfu/), served on
 * the oracle's own HTTP server. Every call is bounded (live.ts): per user and
 * per process, and it ends by itself when nobody uses it.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { definePlugin, type AnyPluginTool, type PluginContext } from 'oraclekit/plugin';
import { getUser } from 'oraclekit/plugin';
import { runtimeError } from 'oraclekit/plugin';
import {
  CreateCallBodySchema,
  ListCallsQuerySchema,
  UpdateCallBodySchema,
  type Call,
  type CreateCallResponse,
  type SyncCallResponse,
} from 'oraclekit/plugin';
import { IdParamsSchema } from 'oraclekit/plugin';
import { CallStore } from './store.ts';
import { CALLS_ERRORS, callsError } from './errors.ts';
import { embeddedJoinUrl, joinToken, wsUrl, type LiveKitTarget } from './livekit.ts';
import type { AudioFrameMs, EndpointLimits } from './sfu/endpoint.ts';
import type { EndpointThread } from './sfu/thread.ts';
import { CallAgents } from './agent.ts';
import { CallsEnvSchema, type CallsEnv } from './settings.ts';
import { lookAtCameraTool } from './camera.ts';
import { LiveCalls } from './live.ts';
import { isLoopbackAddress } from 'oraclekit/plugin';

interface CallsState {
  store: CallStore;
  /** A LiveKit server (LIVEKIT_URL …), or undefined: the embedded endpoint. */
  server: LiveKitTarget | undefined;
  /** The embedded endpoint and its own key pair (drawn per process: its tokens admit to it alone). */
  embedded: {
    apiKey: string;
    apiSecret: string;
    prefix: string;
    mediaAddress: string;
    audioFrameMs: AudioFrameMs;
    log: (line: string) => void;
    limits: Partial<EndpointLimits>;
    /**
     * Its thread, started on the first call or join (werift takes most of a second to load: never at boot), and
     * again after a failure.
     */
    endpoint?: Promise<EndpointThread>;
    http?: Server;
    detach?: () => void;
  };
  agents: CallAgents;
  live: LiveCalls;
  /** CALLS_PUBLIC_URL, or undefined. */
  publicUrl: string | undefined;
  /** Whether ORACLE_ALLOWED_HOSTS names the hosts the oracle answers to (not `*`): a request's Host was checked. */
  namedHosts: boolean;
}

const states = new WeakMap<object, CallsState>();
function stateOf(ctx: PluginContext<CallsEnv>): CallsState {
  let s = states.get(ctx);
  if (!s) {
    const e = ctx.env;
    const store = new CallStore(ctx.store.db, ctx.store.oracleDid, ctx);
    const hosts = (e.ORACLE_ALLOWED_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    const state: CallsState = {
      store,
      server:
        e.LIVEKIT_URL && e.LIVEKIT_API_KEY && e.LIVEKIT_API_SECRET
          ? { mode: 'server', url: wsUrl(e.LIVEKIT_URL), apiKey: e.LIVEKIT_API_KEY, apiSecret: e.LIVEKIT_API_SECRET }
          : undefined,
      embedded: {
        apiKey: `embedded-${randomBytes(6).toString('hex')}`,
        apiSecret: randomBytes(32).toString('hex'),
        prefix: '',
        mediaAddress: e.CALLS_MEDIA_ADDRESS,
        audioFrameMs: { user: e.CALLS_AUDIO_FRAME_MS, agent: e.CALLS_AGENT_AUDIO_FRAME_MS },
        log: (l) => ctx.log.info(l),
        limits: {
          signalPerSecond: e.CALLS_SIGNAL_PER_SECOND,
          sdpMaxBytes: e.CALLS_SDP_MAX_BYTES,
          sdpMaxMediaSections: e.CALLS_SDP_MAX_MEDIA_SECTIONS,
          mediaTimeoutMs: e.CALLS_MEDIA_TIMEOUT_S * 1000,
        },
      },
      agents: new CallAgents({
        host: ctx.host,
        env: e,
        log: (l) => ctx.log.info(l),
        oracleDid: ctx.store.oracleDid,
        oracleName: ctx.config.name,
        // an answer cut after its turn was stored: its row keeps what the user heard (the turn's outcome stays)
        keepHeard: (sessionId, answerId, text) =>
          ctx.store.addMessages(sessionId, [{ id: answerId, type: 'ai', content: text }]),
        onPresence: (callId, identity, present) => state.live.presence(callId, identity, present),
        tapAudio: (room, identity, onPacket) => endpointOf(state)?.then((t) => t.tapAudio(room, identity, onPacket)),
      }),
      live: new LiveCalls({
        limits: {
          perUser: e.CALLS_MAX_PER_USER,
          perProcess: e.CALLS_MAX_PER_PROCESS,
          joinTimeoutMs: e.CALLS_JOIN_TIMEOUT_S * 1000,
          leftGraceMs: e.CALLS_LEFT_GRACE_S * 1000,
        },
        sessionExists: async (userDid, sessionId) => (await ctx.store.getSession(userDid, sessionId)) !== undefined,
        isRevoked: (cid) => ctx.store.isRevoked(cid),
        end: async (userDid, callId) => {
          const call = await store.update(userDid, callId, { status: 'ended' });
          if (call) await endRoom(state, call);
        },
        log: (l) => ctx.log.info(l),
      }),
      publicUrl: e.CALLS_PUBLIC_URL,
      namedHosts: hosts.length > 0 && !hosts.includes('*'),
    };
    s = state;
    states.set(ctx, s);
  }
  return s;
}

const keysOf = (s: CallsState) => ({ apiKey: s.embedded.apiKey, apiSecret: s.embedded.apiSecret });

/**
 * The embedded endpoint on its own thread (sfu/thread.ts), started once (undefined with a LiveKit server); a thread
 * that failed is started again by the next call.
 */
function endpointOf(s: CallsState): Promise<EndpointThread> | undefined {
  if (s.server) return undefined;
  const e = s.embedded;
  const starting = (e.endpoint ??= import('./sfu/thread.ts').then(({ EndpointThread: Thread }) =>
    Thread.start({
      ...keysOf(s),
      prefix: e.prefix,
      mediaAddress: e.mediaAddress,
      audioFrameMs: e.audioFrameMs,
      log: e.log,
      limits: e.limits,
      // only a live call's room may be joined: an ended call's room refuses every token it ever handed out
      admitRoom: (room) => (s.live.has(room) ? undefined : `the call of room ${room} has ended`),
      onPresence: (room, identity, present) => s.live.presence(room, identity, present),
      onExit: (why) => {
        e.log(`[calls] ${why}: the calls in progress lost their media; the next call starts it again`);
        if (e.endpoint === starting) e.endpoint = undefined;
      },
    }),
  ));
  starting.catch(() => {
    if (e.endpoint === starting) e.endpoint = undefined;
  });
  return starting;
}

/**
 * Where the caller joins: the LiveKit server, else this oracle's embedded endpoint at CALLS_PUBLIC_URL, else at the
 * origin the caller used when its Host was checked (a server on one address, or ORACLE_ALLOWED_HOSTS). An oracle on
 * every interface that answers to any host name cannot tell a real origin from a forged Host: it needs the setting.
 */
function targetFor(s: CallsState, req: FastifyRequest): LiveKitTarget {
  if (s.server) return s.server;
  const bound = s.embedded.http?.address();
  const url = embeddedJoinUrl({
    publicUrl: s.publicUrl,
    prefix: s.embedded.prefix,
    bound: bound && typeof bound !== 'string' ? bound.address : undefined,
    namedHosts: s.namedHosts,
    req,
    isLoopback: isLoopbackAddress,
  });
  if (!url)
    throw callsError(
      'calls_public_url_missing',
      'this oracle listens on every interface and answers to any host name, so the Host of a request cannot say where ' +
        'clients join its calls: set CALLS_PUBLIC_URL to the URL they reach it at (e.g. wss://oracle.example.org), ' +
        'or ORACLE_ALLOWED_HOSTS',
      { field: 'CALLS_PUBLIC_URL' },
    );
  return { mode: 'embedded', url, ...keysOf(s) };
}

/** Where the oracle's own agent joins: the LiveKit server, else the embedded endpoint on the address it listens on. */
function agentTarget(s: CallsState): LiveKitTarget {
  if (s.server) return s.server;
  const a = s.embedded.http?.address();
  if (!a || typeof a === 'string') throw runtimeError('not_ready', 'the oracle is not listening yet');
  const host =
    a.address === '0.0.0.0' || a.address === '::'
      ? '127.0.0.1'
      : a.address.includes(':')
        ? `[${a.address}]`
        : a.address;
  return { mode: 'embedded', url: `ws://${host}:${a.port}${s.embedded.prefix}`, ...keysOf(s) };
}

async function ownCall(s: CallsState, userDid: string, callId: string): Promise<Call> {
  const call = await s.store.get(userDid, callId);
  if (!call) throw callsError('call_not_found', `no call ${callId}`, { field: 'id' });
  return call;
}

/**
 * The caller's call, live: 409 call_ended once it has ended. A call this process does not hold (made by an earlier
 * process, or by another instance) is taken up with a LiveKit server, whose rooms outlive a process; with the embedded
 * endpoint its room went with the process that made it, so it is ended.
 */
async function liveCall(
  ctx: PluginContext<CallsEnv>,
  userDid: string,
  callId: string,
  cids: readonly string[],
): Promise<Call> {
  const s = stateOf(ctx);
  let call = await ownCall(s, userDid, callId);
  if (call.callStatus !== 'ended' && !s.live.has(callId)) {
    if (s.server) s.live.add(call, cids, ctx.env.CALLS_GREETING);
    else call = (await s.store.update(userDid, callId, { status: 'ended' })) ?? call;
  }
  if (call.callStatus === 'ended') throw callsError('call_ended', `call ${callId} has ended`, { field: 'id' });
  s.live.presented(callId, cids);
  return call;
}

/** The end of a call: the agent leaves and the room closes (a LiveKit server closes an empty room itself). */
async function endRoom(s: CallsState, call: Call): Promise<void> {
  await s.agents.leave(call.callId);
  await (await s.embedded.endpoint?.catch(() => undefined))?.closeRoom(call.roomName);
}

/** The calls resource: create, list, read, sync (the agent joins) and update (ending ends the room). */
function callRoutes(app: FastifyInstance, ctx: PluginContext<CallsEnv>): void {
  app.post('/calls', { schema: { body: CreateCallBodySchema } }, async (req, reply) => {
    const body = req.body as z.output<typeof CreateCallBodySchema>;
    const did = getUser(req).did;
    const s = stateOf(ctx);
    if (!(await ctx.store.getSession(did, body.sessionId)))
      throw runtimeError('session_not_found', `no session ${body.sessionId}`, { field: 'sessionId' });
    const target = targetFor(s, req);
    // the caps first, so that a refused call is not charged; the place is held until the call is live
    const release = s.live.reserve(did);
    try {
      void endpointOf(s)?.catch(() => {}); // loading while the caller gets ready to join
      // a call counts like a turn: the per-user rate limit, then the plugins' gates (402 with claims)
      await ctx.host.gateTurn({ userDid: did, sessionId: body.sessionId, message: `[${body.callType} call]` });
      const { call, encryptionKey } = await s.store.create(did, body);
      s.live.add(call, getUser(req).cids, body.greeting ?? ctx.env.CALLS_GREETING);
      const connection = await joinToken(target, { room: call.roomName, identity: did, role: 'user' });
      const res: CreateCallResponse = { callId: call.callId, encryptionKey, call, connection };
      return await reply.status(201).send(res);
    } finally {
      release();
    }
  });
  app.get('/calls', { schema: { querystring: ListCallsQuerySchema } }, async (req) => {
    const q = req.query as z.output<typeof ListCallsQuerySchema>;
    return stateOf(ctx).store.list(getUser(req).did, q);
  });
  app.get('/calls/:id', { schema: { params: IdParamsSchema } }, async (req) => {
    const { id } = req.params as { id: string };
    return { call: await ownCall(stateOf(ctx), getUser(req).did, id) };
  });
  app.post('/calls/:id/sync', { schema: { params: IdParamsSchema } }, async (req) => {
    const { id } = req.params as { id: string };
    const did = getUser(req).did;
    const s = stateOf(ctx);
    const call = await liveCall(ctx, did, id, getUser(req).cids);
    const key = await s.store.key(did, id);
    if (key) await s.agents.join(call, key, agentTarget(s), s.live.greetingOf(call.callId));
    const connection = await joinToken(targetFor(s, req), { room: call.roomName, identity: did, role: 'user' });
    const res: SyncCallResponse = { call, connection };
    return res;
  });
  app.patch('/calls/:id/update', { schema: { params: IdParamsSchema, body: UpdateCallBodySchema } }, async (req) => {
    const { id } = req.params as { id: string };
    const body = req.body as z.output<typeof UpdateCallBodySchema>;
    const did = getUser(req).did;
    const s = stateOf(ctx);
    await liveCall(ctx, did, id, getUser(req).cids);
    const call = (await s.store.update(did, id, {
      status: body.callStatus,
      startedAt: body.callStartedAt,
      endedAt: body.callEndedAt,
    }))!;
    if (call.callStatus === 'ended') {
      s.live.remove(call.callId);
      await endRoom(s, call);
    }
    return { call };
  });
}

/**
 * The embedded endpoint: LiveKit's signal path on the host's HTTP server, under this scope's prefix; the agents
 * and the endpoint's WebSockets close before the host's server waits for its connections.
 */
function embeddedEndpointRoutes(app: FastifyInstance, ctx: PluginContext<CallsEnv>): void {
  const s = stateOf(ctx);
  app.get('/rtc/validate', async (req, reply) => {
    const endpoint = await endpointOf(s);
    if (!endpoint)
      return reply.status(404).type('text/plain').send('no embedded LiveKit endpoint: calls use LIVEKIT_URL');
    const r = await endpoint.validate(req.raw);
    return reply.status(r.status).type('text/plain').send(r.body);
  });
  if (!s.server && !s.embedded.detach) {
    s.embedded.prefix = app.prefix;
    s.embedded.http = app.server;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (!path.startsWith(`${s.embedded.prefix}/rtc`)) return; // socket.io's, or another owner's
      endpointOf(s)!.then(
        (endpoint) => endpoint.upgrade(req, socket, head),
        (e: unknown) => {
          ctx.log.error(`the embedded endpoint failed to start: ${(e as Error).message}`);
          socket.destroy();
        },
      );
    };
    app.server.on('upgrade', onUpgrade);
    s.embedded.detach = () => app.server.off('upgrade', onUpgrade);
  }
  // before the host's server waits for its connections: the agents leave and the endpoint's WebSockets close
  app.addHook('preClose', async () => {
    await s.live.endAll('the oracle is stopping');
    await s.agents.close();
    await (await s.embedded.endpoint?.catch(() => undefined))?.close();
  });
}

export const callsPlugin = definePlugin<CallsEnv>({
  name: 'calls',
  version: '1.0.0',
  manifest: {
    title: 'Live calls',
    summary: 'Voice and video calls with the oracle over the LiveKit protocol, end-to-end encrypted per call.',
    whenToUse: ['the user talks to the oracle in a live call'],
    visibility: 'silent',
    stability: 'experimental',
    category: 'communication',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: CallsEnvSchema,
  errors: CALLS_ERRORS,
  // the turns of a call (metadata.via "call") may look through the user's camera
  turnTools: (turn, ctx): Record<string, AnyPluginTool> => {
    const callId = turn.metadata?.via === 'call' ? turn.metadata.callId : undefined;
    if (typeof callId !== 'string') return {};
    return { look_at_camera: lookAtCameraTool((t) => stateOf(ctx).agents.cameraOf(callId, t.userDid)) };
  },
  authExcludedRoutes: ['/rtc/validate'],
  routes: (app, ctx) => {
    callRoutes(app, ctx);
    embeddedEndpointRoutes(app, ctx);
  },
  stop: async (ctx) => {
    const s = states.get(ctx);
    if (!s) return;
    await s.live.endAll('the oracle is stopping');
    await s.agents.close();
    s.embedded.detach?.();
    await (await s.embedded.endpoint?.catch(() => undefined))?.close();
  },
});
