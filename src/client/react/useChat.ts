/**
 * useChat: one session of one oracle, streamed through the headless client.
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
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { turnMessages, type AnyEvent, type Message, type TurnState } from '../../lib/protocol/index.ts';
import type { ChatStream } from '../client.ts';
import { PaymentRequiredError } from '../errors.ts';
import { connectRealtime, type ToolHandler } from '../realtime.ts';
import { useOraclesContext } from './context.tsx';
import { useOraclesConfig, type OracleOverrides } from './config.ts';
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
  sessionId: string | undefined;
  onPaymentRequiredError?: (claimIds: string[]) => void;
  browserTools?: BrowserTool[];
  /** Components for component records, by name (pass them to renderMessageContent). */
  uiComponents?: UiComponents;
  overrides?: OracleOverrides;
  streamingMode?: 'batched' | 'immediate';
}

export interface UseChatResult {
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
  const { config, isReady: isConfigReady, error: configError } = useOraclesConfig(o.oracleDid, o.overrides);
  const client = useMemo(
    () => (config ? ctx.clientFor(o.oracleDid, config.apiUrl, config.wsUrl) : undefined),
    [ctx, config, o.oracleDid],
  );
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [status, setStatus] = useState<ChatStatus>('ready');
  const [isLoading, setIsLoading] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const [sendMessageError, setSendMessageError] = useState<Error | undefined>();
  const [isRealTimeConnected, setRealtime] = useState(false);
  const stream = useRef<ChatStream | undefined>(undefined);
  const opts = useRef(o);
  opts.current = o;
  const sessionId = o.sessionId;

  useEffect(() => {
    if (configError) setError(configError);
  }, [configError]);

  const refetchMessages = useCallback(async () => {
    if (!client || !sessionId) return;
    setIsLoading(true);
    try {
      const h = await client.history(sessionId);
      setMessages(h);
    } catch (e) {
      setError(e as Error);
    } finally {
      setIsLoading(false);
    }
  }, [client, sessionId]);

  useEffect(() => {
    setMessages([]);
    void refetchMessages();
  }, [refetchMessages]);

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
    return () => {
      conn.close();
      setRealtime(false);
    };
  }, [client, sessionId, ctx, o.oracleDid, refetchMessages]);

  const sendMessage = useCallback(
    async (message: string, so: { model?: string; metadata?: Record<string, unknown> } = {}) => {
      if (!client || !sessionId)
        throw new Error(
          !sessionId ? 'useChat needs a sessionId to send' : 'the oracle config is not ready yet (isConfigReady)',
        );
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
      const flush = () => {
        timer = undefined;
        if (!turn) return;
        const rows = turnMessages(turn, createdAt);
        if (rows.length === 0 && shown.size === 0) return;
        const old = shown;
        shown = new Set(rows.map((m) => m.id));
        setMessages((l) => [...l.filter((m) => !old.has(m.id) && !shown.has(m.id)), ...rows]);
      };
      const onEvent = (e: AnyEvent, next: TurnState) => {
        turn = next;
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
        const s = client.send(sessionId, message, { onEvent, tools, agActions, ...so });
        stream.current = s;
        const r = await s.result;
        if (timer) clearTimeout(timer);
        flush();
        stream.current = undefined;
        await refetchMessages();
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
    [client, sessionId, ctx, refetchMessages],
  );

  const abortStream = useCallback(async () => {
    const s = stream.current;
    if (!s) return;
    await s.abort();
  }, []);

  return {
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
