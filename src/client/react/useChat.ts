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
import { useOraclesContext } from './context.tsx';
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

export function useChat(o: UseChatOptions): UseChatResult {
  const ctx = useOraclesContext();
  const { client, whenReady, isReady: isConfigReady, error: configError } = useOracleClient(o.oracleDid, o.overrides);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [status, setStatus] = useState<ChatStatus>('ready');
  const [isLoading, setIsLoading] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [sendMessageError, setSendMessageError] = useState<Error | undefined>();
  const [isRealTimeConnected, setRealtime] = useState(false);
  const stream = useRef<ChatStream | undefined>(undefined);
  const opts = useRef(o);
  opts.current = o;
  const [ownSession, setOwnSession] = useState<string | undefined>();
  const sessionId = o.sessionId ?? ownSession;
  const creating = useRef<Promise<string> | undefined>(undefined);
  // the session the first message created: its view is the one on screen, not a history to load
  const created = useRef<string | undefined>(undefined);
  // the realtime channel of the session shown (browser tools and actions are answered through it)
  const live = useRef<{ sessionId: string; ready: Promise<void> } | undefined>(undefined);

  // no sessionId given: reuse the user's most recent session on this oracle (a new one waits for a first message)
  useEffect(() => {
    if (o.sessionId !== undefined || !client) return;
    let live = true;
    client.listSessions({ limit: 1 }).then(
      (r) => live && r.sessions[0] && setOwnSession((s) => s ?? r.sessions[0]!.sessionId),
      (e: Error) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [client, o.sessionId]);

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

  useEffect(() => {
    if (configError) setError(configError);
  }, [configError]);

  const loadHistory = useCallback(async (c: OracleClient, sid: string) => {
    setIsLoading(true);
    try {
      setMessages(await c.history(sid));
    } catch (e) {
      setError(e as Error);
    } finally {
      setIsLoading(false);
    }
  }, []);

  const refetchMessages = useCallback(async () => {
    if (client && sessionId) await loadHistory(client, sessionId);
  }, [client, sessionId, loadHistory]);

  // another session (or the client) → its history; not the session the first message is making (that view stays)
  useEffect(() => {
    if (sessionId === undefined || sessionId === created.current) return;
    setMessages([]);
    void refetchMessages();
  }, [refetchMessages, sessionId]);

  // the realtime channel: browser tools, actions, cache invalidation
  useEffect(() => {
    if (!client || !sessionId) return;
    const conn = connectRealtime({
      wsUrl: client.wsUrl,
      sessionId,
      auth: ctx.authFor(o.oracleDid),
      tools: () => {
        const m: Record<string, ToolHandler> = {};
        for (const t of opts.current.browserTools ?? []) m[t.toolName] = (args) => t.fn(args);
        return m;
      },
      actions: () => {
        const m: Record<string, ToolHandler> = {};
        for (const [name, a] of ctx.actions) m[name] = (args) => a.handler(args);
        return m;
      },
      onStatus: (connected) => setRealtime(connected),
      onWrapped: (e) => {
        if (e.eventName === 'message_cache_invalidation' && !stream.current) void refetchMessages();
      },
    });
    live.current = { sessionId, ready: conn.ready };
    return () => {
      if (live.current?.ready === conn.ready) live.current = undefined;
      conn.close();
      setRealtime(false);
    };
  }, [client, sessionId, ctx, o.oracleDid, refetchMessages]);

  /** Waits (at most 5 s) until the realtime channel of a session that was just made is connected. */
  const channelOf = useCallback(async (sid: string) => {
    const until = Date.now() + 5000;
    while (live.current?.sessionId !== sid && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const ready = live.current?.sessionId === sid ? live.current.ready : undefined;
    if (ready) await Promise.race([ready.catch(() => {}), new Promise((r) => setTimeout(r, until - Date.now()))]);
  }, []);

  const sendMessage = useCallback(
    async (message: string, so: { model?: string; metadata?: Record<string, unknown> } = {}) => {
      setStatus('submitted');
      setError(undefined);
      setSendMessageError(undefined);
      const localId = `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      setMessages((l) => [...l, { id: localId, type: 'human', content: message, createdAt: now() }]);
      const tools = (opts.current.browserTools ?? []).map((t) => ({
        name: t.toolName,
        description: t.description,
        schema: toJsonSchema(t.schema),
      }));
      const agActions = [...ctx.actions.values()].map((a) => ({
        name: a.name,
        description: a.description,
        schema: toJsonSchema(a.parameters),
        hasRender: !!a.render,
      }));
      const batched = (opts.current.streamingMode ?? 'batched') === 'batched';
      // the turn's rows (turnMessages: the history's ids) replace their previous version at the end of the list
      const createdAt = now();
      let turn: TurnState | undefined;
      let shown = new Set<string>();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let streaming = false;
      let sid: string | undefined;
      let order: RowOrder | undefined;
      const flush = () => {
        timer = undefined;
        if (!turn) return;
        const rows = turnMessages(turn, createdAt, { ...(sid ? { sessionId: sid } : {}), ...(order ? { order } : {}) });
        if (rows.length === 0 && shown.size === 0) return;
        const old = shown;
        shown = new Set(rows.map((m) => m.id));
        setMessages((l) => [...l.filter((m) => !old.has(m.id) && !shown.has(m.id)), ...rows]);
      };
      const onEvent = (e: AnyEvent, next: TurnState) => {
        turn = next;
        if (!order) {
          order = new RowOrder(next.requestId);
          // the user's row takes the id its history gives it
          const human = messageIds.human(next.requestId);
          setMessages((l) => l.map((m) => (m.id === localId ? { ...m, id: human } : m)));
        }
        order.add(e);
        if (!streaming) {
          streaming = true;
          setStatus('streaming');
        }
        if (e.event === 'error')
          setError(
            Object.assign(new Error(e.data.error), {
              code: e.data.code,
              kind: e.data.kind,
              retryable: e.data.retryable,
            }),
          );
        if (!batched) flush();
        else timer ??= setTimeout(flush, 16);
      };
      try {
        const c = await whenReady();
        const fresh = sid === undefined && sessionId === undefined;
        sid = await sessionFor(c);
        // a session made for this message: its socket must be up before the model may call a browser tool
        if (fresh && (tools.length || agActions.length)) await channelOf(sid);
        const s = c.send(sid, message, { onEvent, tools, agActions, ...so });
        stream.current = s;
        const r = await s.result;
        if (timer) clearTimeout(timer);
        flush();
        stream.current = undefined;
        await loadHistory(c, sid);
        if (r.status === 'aborted') setStatus('ready');
        else if (r.status === 'finished' && !r.error) setStatus('ready');
        else setStatus('error');
      } catch (e) {
        if (timer) clearTimeout(timer);
        flush();
        stream.current = undefined;
        setSendMessageError(e as Error);
        setError(e as Error);
        setStatus('error');
        if (PaymentRequiredError.isInstance(e)) opts.current.onPaymentRequiredError?.(e.claims);
      }
    },
    [whenReady, sessionFor, channelOf, sessionId, ctx, loadHistory],
  );

  const abortStream = useCallback(async () => {
    const s = stream.current;
    if (!s) return;
    await s.abort();
  }, []);

  return {
    sessionId,
    messages,
    sendMessage,
    abortStream,
    status,
    isSending: status === 'submitted' || status === 'streaming',
    isLoading,
    error,
    sendMessageError,
    refetchMessages,
    isRealTimeConnected,
    isConfigReady,
  };
}
