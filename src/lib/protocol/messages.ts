/**
 * The conventions of a turn (protocol.md, "Messages and history ids" and
 * "SSE stream"), in one place for the runtime and every client:
 *
 * - the message-id scheme: the rows of a turn are named after its request id
 *   (`messageIds` builds them, `parseMessageId` reads them back);
 * - `transcript`: the conversation a history carries (what the model sees of
 *   earlier turns, what the chat shows of a session);
 * - `reduceTurn(state, event)`: the one fold of a run's events into what the
 *   turn shows (text, reasoning, tool calls with their status, the last error,
 *   the final status), used by the runtime's runs, the headless client,
 *   useChat and the chat TUI;
 * - `TURN_ERROR_CODES`: the codes of the `error` event, so clients decide on
 *   a code and never on an error's text.
 */
import type { DoneStatus, ErrorEvent, ToolCallEvent, AnyEvent, TurnUsage } from './events.ts';
import type { ErrorKind } from './errors.ts';
import type { Message } from './http.ts';

// ---- message ids -----------------------------------------------------------

const TOOL_CALL_INFIX = '-ToolCall-';
const REASONING_SUFFIX = '-reasoning';
const HUMAN_SUFFIX = '-human';
const ERROR_SUFFIX = '-error';

/** The ids of a turn's rows: the stream's ids, kept in the history. */
export const messageIds = {
  /** The user's message. */
  human: (requestId: string): string => `${requestId}${HUMAN_SUFFIX}`,
  /** The turn's reasoning (type ai, content: the reasoning text, isReasoning). */
  reasoning: (requestId: string): string => `${requestId}${REASONING_SUFFIX}`,
  /** One tool (or action) call, by the model's tool call id. */
  toolCall: (requestId: string, toolCallId: string): string => `${requestId}${TOOL_CALL_INFIX}${toolCallId}`,
  /** The answer: the request id itself. */
  answer: (requestId: string): string => requestId,
  /** The turn's last `error` event (an `Error` component, as the IXO SDK shows the SSE `error` frame). */
  error: (requestId: string): string => `${requestId}${ERROR_SUFFIX}`,
  /**
   * A message a plugin posts outside a turn (PluginHost.postMessage): the answer of a request of its own, so it reads
   * back as an `answer` like a turn's.
   */
  posted: (): string => crypto.randomUUID(),
} as const;

export type MessagePart = 'human' | 'reasoning' | 'tool_call' | 'answer' | 'error';

export interface ParsedMessageId {
  requestId: string;
  part: MessagePart;
  /** For part 'tool_call'. */
  toolCallId?: string;
}

/**
 * Reads an id back into its request id and part. An id that follows none of
 * the suffixes (an answer, or a message a plugin posted) is an `answer`.
 */
export function parseMessageId(id: string): ParsedMessageId {
  const i = id.indexOf(TOOL_CALL_INFIX);
  if (i >= 0) return { requestId: id.slice(0, i), part: 'tool_call', toolCallId: id.slice(i + TOOL_CALL_INFIX.length) };
  if (id.endsWith(REASONING_SUFFIX)) return { requestId: id.slice(0, -REASONING_SUFFIX.length), part: 'reasoning' };
  if (id.endsWith(HUMAN_SUFFIX)) return { requestId: id.slice(0, -HUMAN_SUFFIX.length), part: 'human' };
  if (id.endsWith(ERROR_SUFFIX)) return { requestId: id.slice(0, -ERROR_SUFFIX.length), part: 'error' };
  return { requestId: id, part: 'answer' };
}

export interface TranscriptEntry {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * The conversation of a history: each human message, and each AI message
 * with text that is neither a tool-call row nor a reasoning row (component
 * records and empty answers are left out).
 */
export function transcript(messages: readonly Pick<Message, 'id' | 'type' | 'content'>[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const m of messages) {
    if (typeof m.content !== 'string') continue;
    if (m.type === 'human') out.push({ role: 'user', content: m.content });
    else if (m.content !== '' && parseMessageId(m.id).part === 'answer')
      out.push({ role: 'assistant', content: m.content });
  }
  return out;
}

// ---- error codes of the `error` event ----------------------------------------

/** Every code an `error` event carries, with its kind and when it happens. */
export const TURN_ERROR_CODES = {
  provider_error: { kind: 'provider', when: 'the model provider answered with an HTTP error or failed in the stream' },
  provider_unauthorized: {
    kind: 'provider',
    when: "the model provider refused the oracle's key (HTTP 401 or 403): check LLM_PROVIDER_API_KEY",
  },
  provider_unreachable: { kind: 'provider', when: 'the model provider could not be reached' },
  model_not_configured: { kind: 'provider', when: 'the oracle has no model configured' },
  model_timeout: { kind: 'timeout', when: 'the model stream stalled (no data for the stall time-out)' },
  malformed_stream: { kind: 'malformed_stream', when: 'the model returned a stream that could not be parsed' },
  step_limit: { kind: 'step_limit', when: 'the agent reached its step limit without an answer' },
  run_too_long: { kind: 'limit', when: 'the run reached its maximum duration (ORACLE_RUN_MAX_MS)' },
  output_too_large: {
    kind: 'limit',
    when: 'the run reached its maximum answer and reasoning size (ORACLE_RUN_MAX_OUTPUT_CHARS)',
  },
  events_too_large: {
    kind: 'limit',
    when: "the run's event log (what a rejoin replays) reached its maximum size (ORACLE_RUN_MAX_EVENT_BYTES)",
  },
  model_line_too_long: {
    kind: 'limit',
    when: "a line of the model provider's stream was longer than its maximum (ORACLE_MODEL_MAX_LINE_BYTES)",
  },
  internal_error: { kind: 'internal', when: 'an unexpected failure in the runtime' },
  storage_failed: {
    kind: 'internal',
    when: "the turn's message or history could not be stored (a full disk, a lost database): the turn is failed",
  },
  run_interrupted: {
    kind: 'internal',
    when: 'a replayed run never ended: the process running it stopped (a restart, a crash) or its end could not be stored',
  },
} as const satisfies Record<string, { kind: ErrorKind; when: string }>;

export type TurnErrorCode = keyof typeof TURN_ERROR_CODES;

// ---- the fold of a turn's events ---------------------------------------------

/** One tool (or action) call of a turn, as the stream shows it. */
export interface ToolCallState {
  eventId: string;
  toolName: string;
  args: unknown;
  status: ToolCallEvent['status'];
  output?: unknown;
  error?: string;
}

export interface TurnState {
  runId: string;
  requestId: string;
  /** 'streaming' until the `done` frame, then its status. */
  status: 'streaming' | DoneStatus;
  /** The answer text (the `message` deltas; a `done` frame's partialText when none arrived). */
  text: string;
  /** The reasoning of the whole turn. */
  reasoning: string;
  /** Tool and action calls in the order they first appeared. */
  toolCalls: readonly ToolCallState[];
  /** The last `error` event. */
  error?: ErrorEvent;
  /** The `done` frame's usage (tokens, and the price charged by a priced oracle). */
  usage?: TurnUsage;
}

export function initialTurn(ids: { runId?: string; requestId?: string } = {}): TurnState {
  return {
    runId: ids.runId ?? '',
    requestId: ids.requestId ?? '',
    status: 'streaming',
    text: '',
    reasoning: '',
    toolCalls: [],
  };
}

function upsertCall(
  calls: readonly ToolCallState[],
  eventId: string,
  next: (prev: ToolCallState | undefined) => ToolCallState,
): readonly ToolCallState[] {
  const i = calls.findIndex((c) => c.eventId === eventId);
  if (i < 0) return [...calls, next(undefined)];
  const copy = calls.slice();
  copy[i] = next(calls[i]);
  return copy;
}

/**
 * Folds one event of a run into the turn (pure; the state is never mutated,
 * and an event that changes nothing returns the same state).
 *
 * - `message` appends to the text; every `reasoning` frame appends to the
 *   reasoning, the closing one (`isComplete`) carrying no text (a closing
 *   frame equal to the whole reasoning so far — the form runs stored before
 *   protocol.md's change still replay — changes nothing);
 * - `tool_call` sets the call's status, output and error, keeping the args
 *   of its first frame when a later one has none; `action_call` (ag-ui)
 *   updates the call of the same id;
 * - `error` is kept (the last one wins); `done` sets the final status and
 *   its partialText when no text arrived (a rejoin after the answer), and
 *   its usage.
 */
export function reduceTurn(s: TurnState, e: AnyEvent): TurnState {
  switch (e.event) {
    case 'run':
      if (s.runId && s.requestId) return s;
      return { ...s, runId: s.runId || e.data.runId, requestId: s.requestId || e.data.requestId };
    case 'message':
      return e.data.content ? { ...s, text: s.text + e.data.content } : s;
    case 'reasoning':
      if (!e.data.reasoning || (e.data.isComplete && e.data.reasoning === s.reasoning)) return s;
      return { ...s, reasoning: s.reasoning + e.data.reasoning };
    case 'tool_call': {
      const d = e.data;
      return {
        ...s,
        toolCalls: upsertCall(s.toolCalls, d.eventId, (prev) => ({
          eventId: d.eventId,
          toolName: d.toolName,
          args: d.args ?? prev?.args,
          status: d.status,
          output: d.output,
          error: d.error,
        })),
      };
    }
    case 'action_call': {
      const d = e.data;
      return {
        ...s,
        toolCalls: upsertCall(s.toolCalls, d.toolCallId, (prev) => ({
          eventId: d.toolCallId,
          toolName: d.toolName,
          args: prev?.args,
          status: d.status,
          output: d.output,
          error: d.error,
        })),
      };
    }
    case 'error':
      return { ...s, error: e.data };
    case 'done':
      return {
        ...s,
        status: e.data.status,
        text: s.text || e.data.partialText || '',
        ...(e.data.usage ? { usage: e.data.usage } : {}),
      };
  }
}

/** One row of a turn, as the history stores it (without its time). */
export type TurnRow = Pick<Message, 'id' | 'type' | 'content'> & { type: 'ai'; isReasoning?: true };

/**
 * The rows of a turn with the ids and contents its history keeps (protocol.md,
 * "Messages and history ids"): the runtime stores them when the turn ends
 * (runtime/agent/history-rows.ts), and clients show the same rows while it
 * streams, so a refetched history renders exactly as the stream did.
 *
 * - the reasoning: content = the reasoning text, `isReasoning`;
 * - one row per tool call: the `tool_call` component `{name, props: {id,
 *   args, status, output, payload, isToolCall, toolName}}`, the payload being
 *   the call's last frame (a failed call's error is in it);
 * - the answer: the text alone (the reasoning is its own row, never repeated
 *   in the answer); a finished turn has one even when empty, a failed or
 *   aborted one only when text arrived;
 * - the last `error` event as the `Error` component (what the IXO SDK shows
 *   for the SSE `error` frame; useChat renders it by default).
 */
export function turnRows(s: TurnState, o: { sessionId?: string } = {}): TurnRow[] {
  const { requestId } = s;
  const rows: TurnRow[] = [];
  if (s.reasoning)
    rows.push({ id: messageIds.reasoning(requestId), type: 'ai', content: s.reasoning, isReasoning: true });
  for (const c of s.toolCalls) {
    const payload = {
      ...(o.sessionId !== undefined ? { sessionId: o.sessionId } : {}),
      requestId,
      eventId: c.eventId,
      toolName: c.toolName,
      args: c.args,
      status: c.status,
      ...(c.output !== undefined ? { output: c.output } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
    };
    rows.push({
      id: messageIds.toolCall(requestId, c.eventId),
      type: 'ai',
      content: {
        name: c.toolName,
        props: {
          id: c.eventId,
          args: c.args,
          status: c.status,
          output: c.output,
          payload,
          isToolCall: true,
          toolName: c.toolName,
        },
      },
    });
  }
  if (s.text || s.status === 'finished') rows.push({ id: messageIds.answer(requestId), type: 'ai', content: s.text });
  if (s.error) {
    const payload = s.error;
    rows.push({
      id: messageIds.error(requestId),
      type: 'ai',
      content: {
        name: 'Error',
        props: {
          id: 'error',
          args: {},
          status: 'done',
          output: payload.error,
          event: { eventName: 'error', payload },
          payload,
        },
      },
    });
  }
  return rows;
}

/**
 * Where each row of a turn first showed while streaming: the index of the
 * event that added it (the error row: the last error event, the one it
 * shows). Feed events in order; `add` returns nothing.
 */
export class RowOrder {
  private readonly at = new Map<string, number>();
  private readonly requestId: string;
  private n = 0;
  constructor(requestId: string) {
    this.requestId = requestId;
  }

  add(e: AnyEvent): void {
    const id = rowOfEvent(this.requestId, e);
    if (id !== undefined && (!this.at.has(id) || e.event === 'error')) this.at.set(id, this.n);
    this.n++;
  }

  /** The rows in the order the stream showed them; a row no event showed (an empty answer) comes last. */
  sort<R extends { id: string }>(rows: readonly R[]): R[] {
    const at = (r: R) => this.at.get(r.id) ?? Infinity;
    return rows
      .map((r, i) => ({ r, i }))
      .sort((a, b) => at(a.r) - at(b.r) || a.i - b.i)
      .map(({ r }) => r);
  }
}

/** The id of the row an event adds while streaming (none for an event that adds no row). */
function rowOfEvent(requestId: string, e: AnyEvent): string | undefined {
  switch (e.event) {
    case 'reasoning':
      return messageIds.reasoning(requestId);
    case 'tool_call':
      return messageIds.toolCall(requestId, e.data.eventId);
    case 'message':
      return e.data.content ? messageIds.answer(requestId) : undefined;
    case 'error':
      return messageIds.error(requestId);
    default:
      return undefined;
  }
}

/**
 * The rows a turn shows while it streams: turnRows with a time, in the order
 * the stream showed them when `order` has seen the turn's events — the rows
 * and the order its history will have.
 */
export function turnMessages(
  s: TurnState,
  createdAt: string,
  o: { sessionId?: string; order?: RowOrder } = {},
): Message[] {
  const rows = turnRows(s, o.sessionId !== undefined ? { sessionId: o.sessionId } : {});
  return (o.order ? o.order.sort(rows) : rows).map((r) => ({ ...r, createdAt }));
}
