/**
 * useChat: one session of one oracle, streamed through the headless client.
 *
 * The session: `sessionId` when given; else the user's most recent session on
 * the oracle, or (when there is none) a new one created by the first
 * sendMessage; `sessionId` in the result says which. A sendMessage made
 * before the oracle's config resolved waits for it. sendMessage never
 * rejects: a failure sets `error` and `sendMessageError`.
 *
 * status: 'ready' → sendMessage → 'submitted' → first event → 'streaming' →
 * done finished or aborted → 'ready'; an SSE `error` frame, a failed run or a
 * failed request → 'error'. Payment required (HTTP 402) calls
 * onPaymentRequiredError(claimIds) and ends in 'error' with sendMessageError.
 *
 * Messages use the ids the stream uses (protocol.md): while a turn streams,
 * its rows are turnMessages() of the turn the client folds (reduceTurn) —
 * the AI message is the request id, a tool row messageIds.toolCall(); so
 * after each turn the view is replaced by the history without losing
 * anything. streamingMode 'batched' (default) applies stream updates at most
 * once per frame; 'immediate' applies each event as it arrives.
 *
 * Browser tools {toolName, description, schema, fn} are advertised with their
 * JSON Schema (zod 3, zod 4 or JSON Schema) and answered over the socket;
 * actions registered with useAgAction likewise.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  RowOrder,
  messageIds,
  turnMessages,
  type AnyEvent,
  type Message,
  type TurnState,
} from '../../lib/protocol/index.ts';
import type { ChatStream, OracleClient } from '../client.ts';
import { PaymentRequiredError } from '../errors.ts';
import { connectRealtime, type ToolHandler } from '../realtime.ts';
import { useOraclesContext, type AgActionDef } from './context.tsx';
import type { OracleOverrides } from './config.ts';
import { useOracleClient } from './client.ts';
import type { UiComponents } from './render.tsx';
import { toJsonSchema } from './schema.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface BrowserTool<A = any> {
  toolName: string;
  description: string;
  /** zod 3.x, zod 4 or JSON Schema of the arguments. */
  schema: unknown;
  fn: (args: A) => unknown;
}

export type ChatStatus = 'submitted' | 'streaming' | 'ready' | 'error';
export type ChatMessage = Message;

export interface UseChatOptions {
  oracleDid: string;
  /** The session to show and send to; omitted: the most recent one, else a new one on the first message. */
  sessionId?: string | undefined;
  onPaymentRequiredError?: (claimIds: string[]) => void;
  browserTools?: BrowserTool[];
  /** Components for component records, by name (pass them to renderMessageContent). */
  uiComponents?: UiComponents;
  overrides?: OracleOverrides;
  streamingMode?: 'batched' | 'immediate';
}

export interface UseChatResult {
  /** The session shown (undefined until one exists: the first message creates it). */
  sessionId: string | undefined;
  messages: ChatMessage[];
  sendMessage: (message: string, o?: { model?: string; metadata?: Record<string, unknown> }) => Promise<void>;
  abortStream: () => Promise<void>;
  status: ChatStatus;
  isSending: boolean;
  isLoading: boolean;
  error: Error | undefined;
  sendMessageError: Error | undefined;
  refetchMessages: () => Promise<void>;
  isRealTimeConnected: boolean;
  isConfigReady: boolean;
}

const now = () => new Date().toISOString();

/**
 * One session of one oracle: its messages, sendMessage and the turn's status (the module's header says how each
 * behaves). Used inside an OraclesProvider.
 * @example
 * function Chat() {
 *   const { messages, sendMessage, status } = useChat({ oracleDid: 'did:ixo:entity:…' });
 *   return (
 *     <>
 *       {messages.map((m) => <p key={m.id}>{renderMessageContent(m.content)}</p>)}
 *       <button disabled={status === 'streaming'} onClick={() => void sendMessage('Weather in Oslo?')}>Ask</button>
 *     </>
 *   );
 * }
 */
export function useChat(o: UseChatOptions): UseChatResult {
  const ctx = useOraclesContext();
  const { client, whenReady, isReady: isConfigReady, error: configError } = useOracleClient(o.oracleDid, o.overrides);
  const [status, setStatus] = useState<ChatStatus>('ready');
  const [error, setError] = useState<Error | undefined>();
  const [sendMessageError, setSendMessageError] = useState<Error | undefined>();
  const stream = useRef<ChatStream | undefined>(undefined);
  const opts = useRef(o);
  opts.current = o;
  const { sessionId, sessionFor, created } = useChatSession(client, o.sessionId, setError);

  useEffect(() => {
    if (configError) setError(configError);
  }, [configError]);

  const { setMessages, loadHistory, refetchMessages, ...history } = useHistory(client, sessionId, created, setError);

  const onInvalidate = useCallback(() => {
    if (!stream.current) void refetchMessages();
  }, [refetchMessages]);
  const { isRealTimeConnected, channelOf } = useRealtimeChannel(client, sessionId, o.oracleDid, opts, onInvalidate);

  const sendMessage = useCallback(
    async (message: string, so: { model?: string; metadata?: Record<string, unknown> } = {}) => {
      setStatus('submitted');
      setError(undefined);
      setSendMessageError(undefined);
      const { tools, agActions } = advertised(opts.current.browserTools ?? [], ctx.actions);
      const view = turnView({
        message,
        batched: (opts.current.streamingMode ?? 'batched') === 'batched',
        setMessages,
        onStreaming: () => setStatus('streaming'),
        onError: setError,
      });
      try {
        const c = await whenReady();
        const fresh = sessionId === undefined;
        const sid = await sessionFor(c);
        view.session(sid);
        // a session made for this message: its socket must be up before the model may call a browser tool
        if (fresh && (tools.length || agActions.length)) await channelOf(sid);
        const s = c.send(sid, message, { onEvent: view.onEvent, tools, agActions, ...so });
        stream.current = s;
        const r = await s.result;
        view.flush();
        stream.current = undefined;
        await loadHistory(c, sid);
        setStatus(r.status === 'aborted' || (r.status === 'finished' && !r.error) ? 'ready' : 'error');
      } catch (e) {
        view.flush();
        stream.current = undefined;
        setSendMessageError(e as Error);
        setError(e as Error);
        setStatus('error');
        if (PaymentRequiredError.isInstance(e)) opts.current.onPaymentRequiredError?.(e.claims);
      }
    },
    [whenReady, sessionFor, channelOf, sessionId, ctx, loadHistory],
  );

  const abortStream = useCallback(async () => stream.current?.abort(), []);

  return {
    sessionId,
    messages: history.messages,
    sendMessage,
    abortStream,
    status,
    isSending: status === 'submitted' || status === 'streaming',
    isLoading: history.isLoading,
    error,
    sendMessageError,
    refetchMessages,
    isRealTimeConnected,
    isConfigReady,
  };
}

/**
 * The session shown: `given`, else the user's most recent one on the oracle, else the one sessionFor() creates for
 * the first message (`created`: its view is the one on screen, not a history to load).
 */
function useChatSession(client: OracleClient | undefined, given: string | undefined, setError: (e: Error) => void) {
  const [ownSession, setOwnSession] = useState<string | undefined>();
  const sessionId = given ?? ownSession;
  const creating = useRef<Promise<string> | undefined>(undefined);
  const created = useRef<string | undefined>(undefined);

  // no sessionId given: reuse the user's most recent session on this oracle (a new one waits for a first message)
  useEffect(() => {
    if (given !== undefined || !client) return;
    let live = true;
    client.listSessions({ limit: 1 }).then(
      (r) => live && r.sessions[0] && setOwnSession((s) => s ?? r.sessions[0]!.sessionId),
      (e: Error) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [client, given, setError]);

  const sessionFor = useCallback(
    async (c: OracleClient): Promise<string> => {
      if (sessionId) return sessionId;
      creating.current ??= c.createSession().then((s) => {
        created.current = s.sessionId;
        setOwnSession(s.sessionId);
        return s.sessionId;
      });
      return creating.current;
    },
    [sessionId],
  );
  return { sessionId, sessionFor, created };
}

/** The messages shown: the session's history, loaded when the session changes (not the one being created). */
function useHistory(
  client: OracleClient | undefined,
  sessionId: string | undefined,
  created: { current: string | undefined },
  setError: (e: Error) => void,
) {
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [isLoading, setIsLoading] = useState(false);
  const loadHistory = useCallback(
    async (c: OracleClient, sid: string) => {
      setIsLoading(true);
      try {
        setMessages(await c.history(sid));
      } catch (e) {
        setError(e as Error);
      } finally {
        setIsLoading(false);
      }
    },
    [setError],
  );

  const refetchMessages = useCallback(async () => {
    if (client && sessionId) await loadHistory(client, sessionId);
  }, [client, sessionId, loadHistory]);

  // another session (or the client) → its history; not the session the first message is making (that view stays)
  useEffect(() => {
    if (sessionId === undefined || sessionId === created.current) return;
    setMessages([]);
    void refetchMessages();
  }, [refetchMessages, sessionId, created]);
  return { messages, setMessages, isLoading, loadHistory, refetchMessages };
}

/** The realtime channel of the session shown: browser tools and actions are answered through it. */
function useRealtimeChannel(
  client: OracleClient | undefined,
  sessionId: string | undefined,
  oracleDid: string,
  opts: { current: UseChatOptions },
  onInvalidate: () => void,
) {
  const ctx = useOraclesContext();
  const [isRealTimeConnected, setRealtime] = useState(false);
  const live = useRef<{ sessionId: string; ready: Promise<void> } | undefined>(undefined);
  useEffect(() => {
    if (!client || !sessionId) return;
    const conn = connectRealtime({
      wsUrl: client.wsUrl,
      sessionId,
      auth: ctx.authFor(oracleDid),
      tools: () =>
        handlers(
          opts.current.browserTools ?? [],
          (t) => t.toolName,
          (t, args) => t.fn(args),
        ),
      actions: () =>
        handlers(
          ctx.actions.values(),
          (a) => a.name,
          (a, args) => a.handler(args),
        ),
      onStatus: (connected) => setRealtime(connected),
      onWrapped: (e) => {
        if (e.eventName === 'message_cache_invalidation') onInvalidate();
      },
    });
    live.current = { sessionId, ready: conn.ready };
    return () => {
      if (live.current?.ready === conn.ready) live.current = undefined;
      conn.close();
      setRealtime(false);
    };
  }, [client, sessionId, ctx, oracleDid, opts, onInvalidate]);

  /** Waits (at most 5 s) until the realtime channel of a session that was just made is connected. */
  const channelOf = useCallback(async (sid: string) => {
    const until = Date.now() + 5000;
    while (live.current?.sessionId !== sid && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const ready = live.current?.sessionId === sid ? live.current.ready : undefined;
    if (ready) await Promise.race([ready.catch(() => {}), new Promise((r) => setTimeout(r, until - Date.now()))]);
  }, []);
  return { isRealTimeConnected, channelOf };
}

/** The socket's handlers of tools or actions, by name; each looks its item up when called. */
function handlers<T>(items: Iterable<T>, name: (t: T) => string, call: (t: T, args: unknown) => unknown) {
  const m: Record<string, ToolHandler> = {};
  for (const t of items) m[name(t)] = (args) => call(t, args);
  return m;
}

/** The browser tools and actions a message advertises, each with its JSON Schema. */
function advertised(browserTools: BrowserTool[], actions: Map<string, AgActionDef>) {
  return {
    tools: browserTools.map((t) => ({ name: t.toolName, description: t.description, schema: toJsonSchema(t.schema) })),
    agActions: [...actions.values()].map((a) => ({
      name: a.name,
      description: a.description,
      schema: toJsonSchema(a.parameters),
      hasRender: !!a.render,
    })),
  };
}

/**
 * A streaming turn's rows on screen: turnMessages() of the turn so far (the history's ids) replace their previous
 * version at the end of the list, at most once per frame when batched; the user's row, shown at once, takes its
 * history id at the first event.
 */
function turnView(v: {
  message: string;
  batched: boolean;
  setMessages: (f: (l: ChatMessage[]) => ChatMessage[]) => void;
  onStreaming: () => void;
  onError: (e: Error) => void;
}) {
  const createdAt = now();
  const localId = `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  v.setMessages((l) => [...l, { id: localId, type: 'human', content: v.message, createdAt }]);
  let turn: TurnState | undefined;
  let shown = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sid: string | undefined;
  let order: RowOrder | undefined;
  const show = () => {
    timer = undefined;
    if (!turn) return;
    const rows = turnMessages(turn, createdAt, { ...(sid ? { sessionId: sid } : {}), ...(order ? { order } : {}) });
    if (rows.length === 0 && shown.size === 0) return;
    const old = shown;
    shown = new Set(rows.map((m) => m.id));
    v.setMessages((l) => [...l.filter((m) => !old.has(m.id) && !shown.has(m.id)), ...rows]);
  };
  return {
    session(id: string) {
      sid = id;
    },
    onEvent(e: AnyEvent, next: TurnState) {
      turn = next;
      if (!order) {
        order = new RowOrder(next.requestId);
        const human = messageIds.human(next.requestId);
        v.setMessages((l) => l.map((m) => (m.id === localId ? { ...m, id: human } : m)));
        v.onStreaming();
      }
      order.add(e);
      if (e.event === 'error') {
        const { code, kind, retryable } = e.data;
        v.onError(Object.assign(new Error(e.data.error), { code, kind, retryable }));
      }
      if (!v.batched) show();
      else timer ??= setTimeout(show, 16);
    },
    /** Shows what is pending now (the turn ended). */
    flush() {
      if (timer) clearTimeout(timer);
      show();
    },
  };
}
