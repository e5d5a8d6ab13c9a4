/**
 * The history rows of a finished turn: the rows of turnRows (lib/protocol/
 * messages.ts, the same rows the clients show while the turn streams), in
 * the order the IXO SDK added them while streaming: by the event that first
 * showed each (the error row by the last error event, the one it shows); a
 * row no event showed (the empty answer of a finished turn) comes last.
 */
import { RowOrder, turnRows, type AnyEvent, type TurnState } from '../../lib/protocol/index.ts';
import type { NewMessage } from '../store.ts';

export function historyRows(
  turn: TurnState,
  status: 'finished' | 'aborted' | 'failed',
  sessionId: string,
  events: readonly AnyEvent[] = [],
): NewMessage[] {
  const order = new RowOrder(turn.requestId);
  for (const e of events) order.add(e);
  // the stored status decides the answer row (a turn folded without its done frame is still 'streaming')
  return order
    .sort(turnRows({ ...turn, status }, { sessionId }))
    .map(({ id, type, content }) => ({ id, type, content }));
}
