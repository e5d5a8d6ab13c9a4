/**
 * useChat: one session of one oracle, streamed through the headless client.
 *
 * status: 'ready' → sendMessage → 'submitted' → first event → 'streaming' →
 * done finished or aborted → 'ready'; an SSE `error` frame, a failed run or a
 * failed request → 'error'. Payment required (HTTP 402) calls
 * onPaymentRequiredError(claimIds) and ends in 'error' with sendMessageError.
 *
 * Messages use the ids the stream uses (protocol.md): the AI message of a
 * turn is the request id, a tool row `${requestId}-ToolCall-${eventId}`; so
 * after each turn the view is replaced by the history without losing
 * anything. streamingMode 'batched' (default) applies stream updates at most
 * once per frame; 'immediate' applies each event as it arrives.
 *
 * Browser tools {toolName, description, schema, fn} are advertised with their
 * JSON Schema (zod 3, zod 4 or JSON Schema) and answered over the socket;
 * actions registered with useAgAction likewise.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AnyEvent, Message } from '../../lib/protocol/index.ts';
import type { ChatStream } from '../client.ts';
import { PaymentRequiredError } from '../errors.ts';
import { connectRealtime, type ToolHandler } from '../realtime.ts';
import { useOraclesContext } from './context.tsx';
import { useOraclesConfig, type OracleOverrides } from './config.ts';
import type { UiComponents } from './render.tsx';
import { toJsonSchema } from './schema.ts';

export interface BrowserTool<A = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
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

function upsert(list: ChatMessage[], m: ChatMessage, before?: string): ChatMessage[] {
  const i = list.findIndex((x) => x.id === m.id);
  if (i >= 0) {
    const copy = list.slice();
    copy[i] = m;
    return copy;
  }
  if (before !== undefined) {
    const j = list.findIndex((x) => x.id === before);
    if (j >= 0) return [...list.slice(0, j), m, ...list.slice(j)];
  }
  return [...list, m];
}

/** Applies one stream event to the message list (pure). */
export function applyEvent(list: ChatMessage[], e: AnyEvent, requestId: string): ChatMessage[] {
  switch (e.event) {
    case 'message': {
      const prev = list.find((m) => m.id === requestId);
      const text = (typeof prev?.content === 'string' ? prev.content : '') + e.data.content;
      return upsert(list, { ...(prev ?? { id: requestId, type: 'ai', createdAt: now() }), content: text } as ChatMessage);
    }
    case 'reasoning': {
      const prev = list.find((m) => m.id === requestId);
      return upsert(list, { ...(prev ?? { id: requestId, type: 'ai', content: '', createdAt: now() }), reasoning: (prev?.reasoning ?? '') + e.data.reasoning } as ChatMessage);
    }
    case 'tool_call': {
      const id = `${requestId}-ToolCall-${e.data.eventId}`;
      const prev = list.find((m) => m.id === id);
      const prevArgs = prev && typeof prev.content === 'object' && !Array.isArray(prev.content) ? prev.content.props.args : undefined;
      const m: ChatMessage = {
        id,
        type: 'ai',
        createdAt: prev?.createdAt ?? now(),
        content: { name: e.data.toolName, props: { id: e.data.eventId, args: e.data.args ?? prevArgs, status: e.data.status, output: e.data.output ?? e.data.error } },
      };
      // tool rows go before the turn's text
      return upsert(list, m, requestId);
    }
    case 'action_call': {
      const id = `${requestId}-ToolCall-${e.data.toolCallId}`;
      const prev = list.find((m) => m.id === id);
      const prevArgs = prev && typeof prev.content === 'object' && !Array.isArray(prev.content) ? prev.content.props.args : undefined;
      return upsert(list, { id, type: 'ai', createdAt: prev?.createdAt ?? now(), content: { name: e.data.toolName, props: { id: e.data.toolCallId, args: prevArgs, status: e.data.status, output: e.data.output ?? e.data.error } } }, requestId);
    }
    default:
      return list;
  }
}

export function useChat(o: UseChatOptions): UseChatResult {
  const ctx = useOraclesContext();
  const { config, isReady: isConfigReady, error: configError } = useOraclesConfig(o.oracleDid, o.overrides);
  const client = useMemo(() => (config ? ctx.clientFor(o.oracleDid, config.apiUrl, config.wsUrl) : undefined), [ctx, config, o.oracleDid]);
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
      if (!client || !sessionId) throw new Error(!sessionId ? 'useChat needs a sessionId to send' : 'the oracle config is not ready yet (isConfigReady)');
      setStatus('submitted');
      setError(undefined);
      setSendMessageError(undefined);
      const localId = `local-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      setMessages((l) => [...l, { id: localId, type: 'human', content: message, createdAt: now() }]);
      const tools = (opts.current.browserTools ?? []).map((t) => ({ name: t.toolName, description: t.description, schema: toJsonSchema(t.schema) }));
      const agActions = [...ctx.actions.values()].map((a) => ({ name: a.name, description: a.description, schema: toJsonSchema(a.parameters), hasRender: !!a.render }));
      const batched = (opts.current.streamingMode ?? 'batched') === 'batched';
      let pending: AnyEvent[] = [];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let requestId = '';
      let sawError = false;
      let streaming = false;
      const flush = () => {
        timer = undefined;
        const evs = pending;
        pending = [];
        if (evs.length) setMessages((l) => evs.reduce((acc, e) => applyEvent(acc, e, requestId), l));
      };
      const onEvent = (e: AnyEvent) => {
        if (e.event === 'run') requestId ||= e.data.requestId;
        if (!streaming) {
          streaming = true;
          setStatus('streaming');
        }
        if (e.event === 'error') {
          sawError = true;
          setError(Object.assign(new Error(e.data.error), { code: e.data.code, kind: e.data.kind, retryable: e.data.retryable }));
        }
        pending.push(e);
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
        else if (r.status === 'finished' && !sawError) setStatus('ready');
        else setStatus('error');
      } catch (e) {
        if (timer) clearTimeout(timer);
        flush();
        stream.current = undefined;
        setSendMessageError(e as Error);
        setError(e as Error);
        setStatus('error');
        if (e instanceof PaymentRequiredError) opts.current.onPaymentRequiredError?.(e.claims);
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
