/**
 * The realtime channel of one session (protocol.md, "Realtime channel"):
 * socket.io v4 on /socket.io/, websocket transport, handshake
 * `query.sessionId` + `auth.invocation` (+ `auth.ucanDelegation`). Answers
 * `browser_tool_call` with `tool_result` and `action_call` with
 * `action_call_result` by running the handlers the app registered; surfaces
 * the wrapped events (tool_call, render_component, reasoning,
 * message_cache_invalidation).
 *
 * A refused handshake with a 401 is retried once with a new invocation, then
 * once with a new delegation (each handshake mints a new invocation).
 */
import type { Socket } from 'socket.io-client';
import * as P from '../lib/protocol/index.ts';
import type { UcanAuth } from './auth.ts';

export type ToolHandler = (args: unknown, call: P.BrowserToolCall) => unknown;

export interface RealtimeOptions {
  wsUrl: string;
  sessionId: string;
  auth: UcanAuth;
  /** Browser tools by name. */
  tools?: Record<string, ToolHandler> | (() => Record<string, ToolHandler>);
  /** AG-UI actions by name. */
  actions?: Record<string, ToolHandler> | (() => Record<string, ToolHandler>);
  onWrapped?: (e: P.WrappedEvent) => void;
  onStatus?: (connected: boolean, error?: { statusCode?: number; code?: string; message: string }) => void;
}

export interface RealtimeConnection {
  /** The socket.io client, once loaded (socket.io-client is imported on first connect, not with the page). */
  readonly socket: Socket | undefined;
  readonly connected: boolean;
  /** Resolves on the first successful connection; rejects when the handshake is refused for good. */
  readonly ready: Promise<void>;
  close(): void;
}

const resolveMap = (m: RealtimeOptions['tools']) => (typeof m === 'function' ? m() : (m ?? {}));

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * The session's socket: answers the oracle's browser tool calls and actions, reports the session's events.
 * @example
 * const rt = connectRealtime({
 *   wsUrl: client.wsUrl,
 *   sessionId,
 *   auth: await client.auth(),
 *   tools: { get_location: async () => ({ lat: 59.9, lon: 10.7 }) },
 * });
 * await rt.ready;
 */
export function connectRealtime(o: RealtimeOptions): RealtimeConnection {
  let resolveReady!: () => void;
  let rejectReady!: (e: unknown) => void;
  const ready = new Promise<void>((a, b) => ((resolveReady = a), (rejectReady = b)));
  ready.catch(() => {});
  let socket: Socket | undefined;
  let closed = false;
  import('socket.io-client').then(
    ({ io }) => {
      if (closed) return;
      socket = io(o.wsUrl, {
        path: P.SOCKET_PATH,
        transports: ['websocket'],
        query: { sessionId: o.sessionId },
        auth: (cb: (data: object) => void) => {
          void o.auth.socketAuth().then(cb, () => cb({}));
        },
        reconnectionDelay: 200,
        reconnectionDelayMax: 2000,
      });
      wire(socket, o, resolveReady, rejectReady);
    },
    (e: unknown) => rejectReady(e),
  );
  return {
    get socket() {
      return socket;
    },
    get connected() {
      return socket?.connected ?? false;
    },
    ready,
    close() {
      closed = true;
      socket?.removeAllListeners();
      socket?.disconnect();
    },
  };
}

/** The socket's handlers: status, the 401 renewals, browser tools, AG-UI actions, wrapped events. */
function wire(socket: Socket, o: RealtimeOptions, resolveReady: () => void, rejectReady: (e: unknown) => void): void {
  let authAttempt = 0;
  socket.on('connect', () => {
    authAttempt = 0;
    resolveReady();
    o.onStatus?.(true);
  });
  socket.on('disconnect', () => o.onStatus?.(false));
  socket.on('connect_error', (err: Error & { data?: { statusCode?: number; code?: string; message?: string } }) => {
    const body = err.data;
    o.onStatus?.(false, { statusCode: body?.statusCode, code: body?.code, message: body?.message ?? err.message });
    if (body?.statusCode === 401 && authAttempt < 2) {
      o.auth.renew(authAttempt++);
      socket.connect();
      return;
    }
    if (body?.statusCode !== undefined && !socket.active)
      rejectReady(Object.assign(new Error(body.message ?? err.message), body));
  });

  const answer = async (call: P.BrowserToolCall, isAction: boolean) => {
    const handlers = resolveMap(isAction ? o.actions : o.tools);
    const h = handlers[call.toolName];
    let result: unknown = null;
    let error: string | undefined;
    if (!h) error = `no ${isAction ? 'action' : 'browser tool'} named ${call.toolName} in this client`;
    else {
      try {
        result = await h(call.args, call);
      } catch (e) {
        error = errorMessage(e);
      }
    }
    if (isAction)
      socket.emit('action_call_result', {
        toolCallId: call.toolCallId,
        sessionId: call.sessionId,
        result: error ? { error } : (result ?? null),
      });
    else
      socket.emit('tool_result', {
        toolCallId: call.toolCallId,
        sessionId: call.sessionId,
        result: result ?? null,
        ...(error ? { error } : {}),
      });
  };

  socket.on('browser_tool_call', (raw: unknown) => {
    const r = P.BrowserToolCallSchema.safeParse(raw);
    if (r.success && r.data.sessionId === o.sessionId) void answer(r.data, false);
  });
  socket.on('action_call', (raw: unknown) => {
    const r = P.ActionCallSocketSchema.safeParse(raw);
    if (r.success && r.data.sessionId === o.sessionId) void answer(r.data, true);
  });
  for (const name of P.WRAPPED_EVENT_NAMES) {
    socket.on(name, (raw: unknown) => {
      const r = P.WrappedEventSchema.safeParse(raw);
      if (r.success) o.onWrapped?.(r.data);
    });
  }
}
