/**
 * The history rows of a finished turn, from the turn's events folded by
 * reduceTurn, with the stream's ids (protocol.md, "Messages and history
 * ids"): the reasoning, one row per tool call (a component record; a failed
 * call's output is `{error}`), then the answer with its tool-call records.
 * A failed or aborted run without text or calls stores no answer row.
 */
import { messageIds, type ToolCallRecord, type TurnState } from '../../lib/protocol/index.ts';
import type { NewMessage } from '../store.ts';

export function historyRows(turn: TurnState, status: 'finished' | 'aborted' | 'failed'): NewMessage[] {
  const { requestId } = turn;
  const rows: NewMessage[] = [];
  if (turn.reasoning) rows.push({ id: messageIds.reasoning(requestId), type: 'ai', content: '', reasoning: turn.reasoning });
  const records: ToolCallRecord[] = [];
  for (const c of turn.toolCalls) {
    rows.push({
      id: messageIds.toolCall(requestId, c.eventId),
      type: 'ai',
      content: { name: c.toolName, props: { id: c.eventId, args: c.args, status: c.status, output: c.status === 'error' ? { error: c.error } : c.output } },
    });
    const r: ToolCallRecord = { id: c.eventId, name: c.toolName, args: c.args, status: c.status };
    if (c.output !== undefined) r.output = c.output;
    if (c.error !== undefined) r.error = c.error;
    records.push(r);
  }
  if (turn.text || status === 'finished' || records.length > 0) {
    rows.push({ id: messageIds.answer(requestId), type: 'ai', content: turn.text, toolCalls: records.length ? records : undefined, reasoning: turn.reasoning || undefined });
  }
  return rows;
}
