/**
 * The realtime channel (protocol.md, "Realtime channel"): socket.io v4 on
 * /socket.io/, websocket transport. The handshake is authenticated like an
 * HTTP request (auth.invocation or auth.ucanDelegation) and must name a
 * session the user owns; the socket joins that session's room only.
 *
 * A subscriber of the runtime's events: run events (runs.onEvent) and host
 * events (runtime.realtime) go to the session's room; clients' results go
 * back through runtime.realtime.settle(). The runtime never calls it.
 *
 * Several instances (ORACLE_REDIS_URL, docs/scaling.md): socket.io's Redis
 * adapter carries an emit to a session's room to its clients on every
 * instance, and a client's answer that no call of this instance awaits goes
 * to the instance running the turn (cluster.settleElsewhere).
 */
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import * as P from '../lib/protocol/index.ts';
import type { OracleRuntime } from './runtime.ts';
import { runtimeError } from '../lib/protocol/errors.ts';
import { toErrorBody } from './routes.ts';
import { guardUpgrades } from './host-check.ts';

const room = (sessionId: string) => `session:${sessionId}`;
/** The room of the sockets a UCAN (or one of its proofs) authenticated: revoking it disconnects them. */
const credentialRoom = (cid: string) => `ucan:${cid}`;
/** setTimeout's longest delay; a credential living longer is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface SocketData {
  did?: string;
  sessionId?: string;
  /** When the socket's credential ends (seconds). */
  expiresAt?: number;
}

/**
 * Disconnects the socket when its credential expires (a token is checked at the handshake only, so its end is
 * scheduled).
 */
function endAtExpiry(socket: Socket, now: () => number): void {
  // the timer stays out of socket.data, which the cluster's adapter serializes
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = ((socket.data as SocketData).expiresAt ?? Infinity) * 1000 - now();
    if (!Number.isFinite(left)) return;
    if (left <= 0) {
      socket.disconnect(true);
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  socket.on('disconnect', () => clearTimeout(timer));
}

export interface SocketHandle {
  io: Server<P.ClientToServerEvents, P.ServerToClientEvents>;
  /** Waits for a client's tool_result / action_call_result (runtime.realtime.awaitResult). */
  awaitResult(sessionId: string, toolCallId: string, timeoutMs: number): Promise<unknown>;
  /** Disconnects every client (the first step of a graceful stop; new handshakes still work). */
  disconnectAll(): void;
  /** Unsubscribes from the runtime and closes every connection (idempotent); the HTTP server is its host's to close. */
  close(): void;
}

/**
 * The handshake is authenticated like an HTTP request (the one authenticator) and owns its session; the socket
 * joins the session's room and one room per credential in its chain (a revocation ends it); a refusal carries
 * protocol.md's error body.
 */
function authenticateHandshake(rt: OracleRuntime): (socket: Socket, next: (err?: Error) => void) => void {
  return (socket, next) => {
    void (async () => {
      try {
        const q = P.HandshakeQuerySchema.safeParse(socket.handshake.query);
        if (!q.success) throw runtimeError('validation_failed', 'the handshake needs query.sessionId');
        const auth = P.HandshakeAuthSchema.safeParse(socket.handshake.auth ?? {});
        const a = auth.success ? auth.data : {};
        const user = await rt.auth.authenticate({ invocation: a.invocation ?? '', delegation: a.ucanDelegation });
        await rt.ownSession(user.did, q.data.sessionId);
        const data = socket.data as SocketData;
        data.did = user.did;
        data.sessionId = q.data.sessionId;
        data.expiresAt = user.expiresAt;
        await socket.join([room(q.data.sessionId), ...user.cids.map(credentialRoom)]);
        next();
      } catch (e) {
        const body = toErrorBody(e);
        const err = new Error(body.message) as Error & { data?: unknown };
        err.data = body;
        next(err);
      }
    })();
  };
}

export function attachSocketIo(rt: OracleRuntime, server: HttpServer): SocketHandle {
  const io = new Server<P.ClientToServerEvents, P.ServerToClientEvents>(server, {
    path: P.SOCKET_PATH,
    transports: ['websocket'],
    cors: { origin: rt.corsOrigins },
    serveClient: false,
  });
  // socket.io's upgrade listener is attached now: a foreign Host or page is refused before it
  guardUpgrades(
    server,
    () => rt.hostPolicy(),
    () => rt.corsOrigins,
  );
  const cluster = rt.cluster;
  if (cluster) io.adapter(cluster.socketAdapter as never);

  io.use(authenticateHandshake(rt));

  io.on('connection', (socket: Socket<P.ClientToServerEvents, P.ServerToClientEvents>) => {
    endAtExpiry(socket, rt.now);
    const own = (socket.data as SocketData).sessionId;
    const settle = (raw: unknown, isAction: boolean) => {
      const r = (isAction ? P.ActionCallResultSchema : P.ToolResultSchema).safeParse(raw);
      if (!r.success || !own || r.data.sessionId !== own) return;
      const answer = { result: r.data.result, error: (r.data as { error?: string }).error };
      if (!rt.realtime.settle(own, r.data.toolCallId, answer)) cluster?.settleElsewhere(own, r.data.toolCallId, answer);
    };
    socket.on('tool_result', (d) => settle(d, false));
    socket.on('action_call_result', (d) => settle(d, true));
  });

  // with several instances the session's clients may all be on others: the emit goes through the adapter, and
  // a call nobody answers ends with its time-out instead of at once
  const offHost = rt.realtime.subscribe((sessionId, event, payload) => {
    if (!cluster && !io.sockets.adapter.rooms.get(room(sessionId))?.size) return false;
    (io.to(room(sessionId)) as unknown as { emit: (ev: string, p: unknown) => boolean }).emit(event, payload);
    return true;
  });
  // with several instances the adapter carries the disconnect to the sockets of every instance
  const offRevoke = rt.realtime.onRevoke((cid) => io.in(credentialRoom(cid)).disconnectSockets(true));
  // a run's reasoning goes on its SSE stream only: the IXO SDK turns every wrapped event of the session into a
  // row of its own ("Thinking..."), so the socket would add one row per reasoning frame beside the stream's one
  const offRuns = rt.runs.onEvent((run, e) => {
    const to = io.to(room(run.sessionId));
    if (e.event === 'tool_call') {
      to.emit('tool_call', { eventName: 'tool_call', payload: { ...e.data, eventId: e.data.eventId } });
    } else if (e.event === 'done') {
      to.emit('message_cache_invalidation', {
        eventName: 'message_cache_invalidation',
        payload: {
          sessionId: run.sessionId,
          requestId: run.requestId,
          eventId: String(e.id),
          reason: `run ${e.data.status}`,
        },
      });
    }
  });

  let closed = false;
  return {
    io,
    awaitResult: (sessionId, toolCallId, timeoutMs) => rt.realtime.awaitResult(sessionId, toolCallId, timeoutMs),
    disconnectAll: () => io.disconnectSockets(true),
    close() {
      if (closed) return;
      closed = true;
      offHost();
      offRevoke();
      offRuns();
      io.disconnectSockets(true);
      // not io.close(): it would close the host's HTTP server, which its host closes itself
      io.engine.close();
    },
  };
}
