/**
 * calls (docs/live-agent.md): live voice and video calls with the oracle over
 * the LiveKit protocol. A call is a resource of its user: POST /calls creates
 * it (its id, its per-call encryption key, where to join and a join token),
 * POST /calls/:id/sync hands a fresh token (a rejoin), PATCH /calls/:id/update
 * moves it to active or ended (as the IXO SDK does), GET /calls lists the
 * caller's calls. Another user's call answers like a missing one (404). On a
 * priced oracle, creating a call passes the same gate as a turn (402 with
 * claims); each utterance of the call is then an ordinary turn.
 */
import { z } from 'zod';
import { definePlugin, type PluginContext } from '../../plugin.ts';
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

const blank = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const CallsEnvSchema = z
  .object({
    LIVEKIT_URL: z.preprocess(
      blank,
      z.url({ protocol: /^(wss?|https?)$/, error: 'a ws://, wss://, http:// or https:// URL' }).optional(),
    ),
    LIVEKIT_API_KEY: z.preprocess(blank, z.string().trim().min(1).optional()),
    LIVEKIT_API_SECRET: z.preprocess(blank, z.string().min(1).optional()),
  })
  .superRefine((env, ctx) => {
    // a LiveKit server needs all three; a key without a server is a mistake, not the embedded endpoint
    const set = (['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET'] as const).filter((k) => env[k] !== undefined);
    if (set.length === 0 || set.length === 3) return;
    const missing = (['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET'] as const).find(
      (k) => env[k] === undefined,
    )!;
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: `a LiveKit server needs LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET together (${set.join(', ')} set); set ${missing}, or unset all three for the embedded endpoint`,
    });
  });
export type CallsEnv = z.infer<typeof CallsEnvSchema>;

interface CallsState {
  store: CallStore;
  target: LiveKitTarget | undefined;
}

const states = new WeakMap<object, CallsState>();
function stateOf(ctx: PluginContext<CallsEnv>): CallsState {
  let s = states.get(ctx);
  if (!s) {
    const e = ctx.env;
    s = {
      store: new CallStore(ctx.store.db, ctx.store.oracleDid),
      target:
        e.LIVEKIT_URL && e.LIVEKIT_API_KEY && e.LIVEKIT_API_SECRET
          ? { mode: 'server', url: wsUrl(e.LIVEKIT_URL), apiKey: e.LIVEKIT_API_KEY, apiSecret: e.LIVEKIT_API_SECRET }
          : undefined,
    };
    states.set(ctx, s);
  }
  return s;
}

/** Where calls are joined; refused with a clear 503 when there is nowhere. */
function targetOf(s: CallsState): LiveKitTarget {
  if (s.target) return s.target;
  throw runtimeError(
    'not_ready',
    'live calls need a LiveKit endpoint and this oracle has none: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to a LiveKit server (docs/live-agent.md)',
  );
}

async function ownCall(s: CallsState, userDid: string, callId: string): Promise<Call> {
  const call = await s.store.get(userDid, callId);
  if (!call) throw callsError('call_not_found', `no call ${callId}`, { field: 'id' });
  return call;
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
  routes: (app, ctx) => {
    app.post('/calls', { schema: { body: CreateCallBodySchema } }, async (req, reply) => {
      const body = req.body as z.output<typeof CreateCallBodySchema>;
      const did = getUser(req).did;
      const s = stateOf(ctx);
      if (!(await ctx.store.getSession(did, body.sessionId)))
        throw runtimeError('session_not_found', `no session ${body.sessionId}`, { field: 'sessionId' });
      const target = targetOf(s);
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
      const connection = await joinToken(targetOf(s), { room: call.roomName, identity: did, role: 'user' });
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
      const call = await s.store.update(did, id, {
        status: body.callStatus,
        startedAt: body.callStartedAt,
        endedAt: body.callEndedAt,
      });
      return { call: call! };
    });
  },
});
