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
 * the oracle's own HTTP server.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { definePlugin, type AnyPluginTool, type PluginContext } from '../../plugin.ts';
import { getUser } from '../../auth.ts';
import { runtimeError } from '../../../lib/protocol/errors.ts';
import {
  CreateCallBodySchema,
  ListCallsQuerySchema,
  UpdateCallBodySchema,
  type Call,
  type CreateCallResponse,
  type SyncCallResponse,
} from '../../../lib/protocol/calls.ts';
import { IdParamsSchema } from '../../../lib/protocol/index.ts';
import { CallStore } from './store.ts';
import { CALLS_ERRORS, callsError } from './errors.ts';
import { joinToken, wsUrl, type LiveKitTarget } from './livekit.ts';
import type { LiveKitEndpoint } from './sfu/endpoint.ts';
import { CallAgents } from './agent.ts';
import { CallsEnvSchema, type CallsEnv } from './settings.ts';
import { lookAtCameraTool } from './camera.ts';

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
    log: (line: string) => void;
    /** Loaded on the first call or join (werift takes most of a second to load: never at boot). */
    endpoint?: Promise<LiveKitEndpoint>;
    http?: Server;
    detach?: () => void;
  };
  agents: CallAgents;
}

const states = new WeakMap<object, CallsState>();
function stateOf(ctx: PluginContext<CallsEnv>): CallsState {
  let s = states.get(ctx);
  if (!s) {
    const e = ctx.env;
    s = {
      store: new CallStore(ctx.store.db, ctx.store.oracleDid),
      server:
        e.LIVEKIT_URL && e.LIVEKIT_API_KEY && e.LIVEKIT_API_SECRET
          ? { mode: 'server', url: wsUrl(e.LIVEKIT_URL), apiKey: e.LIVEKIT_API_KEY, apiSecret: e.LIVEKIT_API_SECRET }
          : undefined,
      embedded: {
        apiKey: `embedded-${randomBytes(6).toString('hex')}`,
        apiSecret: randomBytes(32).toString('hex'),
        prefix: '',
        mediaAddress: e.CALLS_MEDIA_ADDRESS,
        log: (l) => ctx.log.info(l),
      },
      agents: new CallAgents({
        host: ctx.host,
        env: e,
        log: (l) => ctx.log.info(l),
        oracleDid: ctx.store.oracleDid,
        oracleName: ctx.config.name,
      }),
    };
    states.set(ctx, s);
  }
  return s;
}

const keysOf = (s: CallsState) => ({ apiKey: s.embedded.apiKey, apiSecret: s.embedded.apiSecret });

/** The embedded endpoint, loaded once (undefined with a LiveKit server). */
function endpointOf(s: CallsState): Promise<LiveKitEndpoint> | undefined {
  if (s.server) return undefined;
  const e = s.embedded;
  e.endpoint ??= import('./sfu/endpoint.ts').then(
    ({ LiveKitEndpoint: Endpoint }) =>
      new Endpoint({ ...keysOf(s), prefix: e.prefix, mediaAddress: e.mediaAddress, log: e.log }),
  );
  return e.endpoint;
}

/** Where the caller joins: the LiveKit server, else this oracle's embedded endpoint at the origin the caller used. */
function targetFor(s: CallsState, req: FastifyRequest): LiveKitTarget {
  if (s.server) return s.server;
  const scheme = req.protocol === 'https' ? 'wss' : 'ws';
  return { mode: 'embedded', url: `${scheme}://${req.host}${s.embedded.prefix}`, ...keysOf(s) };
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

/** The end of a call: the agent leaves and the room closes (a LiveKit server closes an empty room itself). */
async function endRoom(s: CallsState, call: Call): Promise<void> {
  await s.agents.leave(call.callId);
  await (await s.embedded.endpoint)?.closeRoom(call.roomName);
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
    void endpointOf(s)?.catch(() => {}); // loading while the caller gets ready to join
    await ctx.host.gateTurn({ userDid: did, sessionId: body.sessionId, message: `[${body.callType} call]` });
    const { call, encryptionKey } = await s.store.create(did, body);
    const connection = await joinToken(target, { room: call.roomName, identity: did, role: 'user' });
    const res: CreateCallResponse = { callId: call.callId, encryptionKey, call, connection };
    return reply.status(201).send(res);
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
    const call = await ownCall(s, did, id);
    if (call.callStatus === 'ended') throw callsError('call_ended', `call ${id} has ended`, { field: 'id' });
    const key = await s.store.key(did, id);
    if (key) await s.agents.join(call, key, agentTarget(s));
    const connection = await joinToken(targetFor(s, req), { room: call.roomName, identity: did, role: 'user' });
    const res: SyncCallResponse = { call, connection };
    return res;
  });
  app.patch('/calls/:id/update', { schema: { params: IdParamsSchema, body: UpdateCallBodySchema } }, async (req) => {
    const { id } = req.params as { id: string };
    const body = req.body as z.output<typeof UpdateCallBodySchema>;
    const did = getUser(req).did;
    const s = stateOf(ctx);
    const before = await ownCall(s, did, id);
    if (before.callStatus === 'ended') throw callsError('call_ended', `call ${id} has ended`, { field: 'id' });
    const call = (await s.store.update(did, id, {
      status: body.callStatus,
      startedAt: body.callStartedAt,
      endedAt: body.callEndedAt,
    }))!;
    if (call.callStatus === 'ended') await endRoom(s, call);
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
          ctx.log.error(`the embedded endpoint failed to load: ${(e as Error).message}`);
          socket.destroy();
        },
      );
    };
    app.server.on('upgrade', onUpgrade);
    s.embedded.detach = () => app.server.off('upgrade', onUpgrade);
  }
  // before the host's server waits for its connections: the agents leave and the endpoint's WebSockets close
  app.addHook('preClose', async () => {
    await s.agents.close();
    await (await s.embedded.endpoint)?.close();
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
  envSchema: CallsEnvSchema as unknown as z.ZodType<CallsEnv>,
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
    await s.agents.close();
    s.embedded.detach?.();
    await (await s.embedded.endpoint?.catch(() => undefined))?.close();
  },
});
