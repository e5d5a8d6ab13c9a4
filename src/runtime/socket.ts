/**
 * The realtime channel (protocol.md, "Realtime channel"): socket.io v4 on
 * /socket.io/, websocket transport. The handshake is authenticated like an
 * HTTP request (auth.invocation or auth.ucanDelegation) and must name a
 * session the user owns; the socket joins that session's room only.
 */
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import * as P from '../lib/protocol/index.ts';
import type { OracleRuntime } from './runtime.ts';
import { runtimeError } from '../lib/protocol/errors.ts';
import { toErrorBody } from './routes.ts';

const room = (sessionId: string) => `session:${sessionId}`;

export interface SocketHandle {
  io: Server<P.ClientToServerEvents, P.ServerToClientEvents>;
  /** Pending browser tool / action calls awaiting a result from a client. */
  awaitResult(sessionId: string, toolCallId: string, timeoutMs: number): Promise<unknown>;
  /** Emits an event to the session's room (raw payload); true when sent. */
  emitToSession(sessionId: string, event: string, payload: unknown): boolean;
  close(): Promise<void>;
}

export function attachSocketIo(rt: OracleRuntime, server: HttpServer): SocketHandle {
  const io = new Server<P.ClientToServerEvents, P.ServerToClientEvents>(server, {
    path: P.SOCKET_PATH,
    transports: ['websocket'],
    cors: { origin: rt.options.corsOrigins ?? true },
    serveClient: false,
  });
  const pending = new Map<string, { sessionId: string; resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  io.use((socket, next) => {
    void (async () => {
      try {
        const q = P.HandshakeQuerySchema.safeParse(socket.handshake.query);
        if (!q.success) throw runtimeError('validation_failed', 'the handshake needs query.sessionId');
        const auth = P.HandshakeAuthSchema.safeParse(socket.handshake.auth ?? {});
        const a = auth.success ? auth.data : {};
        const user = await rt.auth.authenticate({ invocation: a.invocation ?? '', delegation: a.ucanDelegation });
        if (!rt.store.getSession(user.did, q.data.sessionId)) throw runtimeError('session_not_found', `no session ${q.data.sessionId}`);
        (socket.data as { did?: string; sessionId?: string }).did = user.did;
        (socket.data as { did?: string; sessionId?: string }).sessionId = q.data.sessionId;
        await socket.join(room(q.data.sessionId));
        next();
      } catch (e) {
        const body = toErrorBody(e);
        const err = new Error(body.message) as Error & { data?: unknown };
        err.data = body;
        next(err);
      }
    })();
  });

  io.on('connection', (socket: Socket<P.ClientToServerEvents, P.ServerToClientEvents>) => {
    const own = (socket.data as { sessionId?: string }).sessionId;
    const settle = (raw: unknown, isAction: boolean) => {
      const r = (isAction ? P.ActionCallResultSchema : P.ToolResultSchema).safeParse(raw);
      if (!r.success || r.data.sessionId !== own) return;
      const p = pending.get(r.data.toolCallId);
      if (!p || p.sessionId !== own) return;
      pending.delete(r.data.toolCallId);
      const err = (r.data as { error?: string }).error;
      if (err) p.reject(new Error(err));
      else p.resolve(r.data.result);
    };
    socket.on('tool_result', (d) => settle(d, false));
    socket.on('action_call_result', (d) => settle(d, true));
  });

  const off = rt.runs.onEvent((run, e) => {
    const to = io.to(room(run.sessionId));
    if (e.event === 'tool_call') {
      to.emit('tool_call', { eventName: 'tool_call', payload: { ...e.data, eventId: e.data.eventId } });
    } else if (e.event === 'reasoning') {
      to.emit('reasoning', { eventName: 'reasoning', payload: { sessionId: run.sessionId, requestId: run.requestId, eventId: String(e.id), reasoning: e.data.reasoning, isComplete: e.data.isComplete } });
    } else if (e.event === 'done') {
      to.emit('message_cache_invalidation', { eventName: 'message_cache_invalidation', payload: { sessionId: run.sessionId, requestId: run.requestId, eventId: String(e.id), reason: `run ${e.data.status}` } });
    }
  });

  const handle: SocketHandle = {
    io,
    emitToSession(sessionId, event, payload) {
      if (!io.sockets.adapter.rooms.get(room(sessionId))?.size) return false;
      (io.to(room(sessionId)) as unknown as { emit: (ev: string, p: unknown) => boolean }).emit(event, payload);
      return true;
    },
    awaitResult(sessionId, toolCallId, timeoutMs) {
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => {
          pending.delete(toolCallId);
          reject(new Error(`no result for ${toolCallId} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(toolCallId, {
          sessionId,
          resolve: (v) => (clearTimeout(t), resolve(v)),
          reject: (e) => (clearTimeout(t), reject(e)),
        });
      });
    },
    async close() {
      off();
      rt.attachSocket(undefined);
      io.disconnectSockets(true);
      await new Promise<void>((r) => {
        void io.close(() => r());
      });
    },
  };
  rt.attachSocket(handle);
  return handle;
}
