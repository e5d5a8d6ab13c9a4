/**
 * The history rows of a finished turn, from the turn's events folded by
 * reduceTurn, with the stream's ids and the content the IXO SDK built from
 * the stream (protocol.md, "Messages and history ids"), so the stored
 * history renders exactly like the stream did:
 * - the reasoning: content = the reasoning text (read back with isReasoning);
 * - one row per tool call: the `tool_call` component with the stream's last
 *   frame as payload, and no `toolCalls` (a row with toolCalls has its
 *   content rebuilt by the SDK, without the payload);
 * - the answer: the text (and the reasoning, for our own clients), no
 *   `toolCalls` (the SDK would draw every call a second time in it);
 * - the last `error` event as the SDK's `Error` component.
 * A failed or aborted run without text stores no answer row. The rows are in
 * the order the SDK added them while streaming: by the event that first
 * showed each (the error row by the last error event, the one it shows); a
 * row no event showed (the empty answer of a finished turn) comes last.
 */
import { messageIds, type AnyEvent, type TurnState } from '../../lib/protocol/index.ts';
import type { NewMessage } from '../store.ts';

/** The id of the row an event adds while streaming (none for an event that adds no row). */
function rowOf(requestId: string, e: AnyEvent): string | undefined {
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

export function historyRows(
  turn: TurnState,
  status: 'finished' | 'aborted' | 'failed',
  sessionId: string,
  events: readonly AnyEvent[] = [],
): NewMessage[] {
  const { requestId } = turn;
  const rows: NewMessage[] = [];
  if (turn.reasoning) rows.push({ id: messageIds.reasoning(requestId), type: 'ai', content: turn.reasoning });
  for (const c of turn.toolCalls) {
    // the data of the call's last tool_call frame, as parts-to-events sends it
    const payload = {
      sessionId,
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
  if (turn.text || status === 'finished') {
    rows.push({
      id: messageIds.answer(requestId),
      type: 'ai',
      content: turn.text,
      reasoning: turn.reasoning || undefined,
    });
  }
  if (turn.error) {
    const payload = turn.error;
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
  const shownAt = new Map<string, number>();
  events.forEach((e, i) => {
    const id = rowOf(requestId, e);
    if (id !== undefined && (!shownAt.has(id) || e.event === 'error')) shownAt.set(id, i);
  });
  const at = (r: NewMessage) => shownAt.get(r.id) ?? Infinity;
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => at(a.r) - at(b.r) || a.i - b.i)
    .map(({ r }) => r);
}
