import { describe, expect, it } from 'vitest';
import { historyRows } from '../../../../src/runtime/agent/history-rows.ts';
import { initialTurn, reduceTurn, type AnyEvent } from '../../../../src/lib/protocol/index.ts';

let n = 0;
const withIds = (events: Omit<AnyEvent, 'id'>[]) => events.map((e) => ({ ...e, id: ++n }) as AnyEvent);
const fold = (events: Omit<AnyEvent, 'id'>[]) =>
  withIds(events).reduce(reduceTurn, initialTurn({ runId: 'r', requestId: 'q' }));
const call = (eventId: string, status: 'isRunning' | 'done' | 'error', extra: Record<string, unknown> = {}) => ({
  event: 'tool_call' as const,
  data: { sessionId: 's', requestId: 'q', eventId, toolName: 'get_weather', args: { city: 'Oslo' }, status, ...extra },
});
/** A tool row as the IXO SDK builds it from the call's last `tool_call` frame (`payload`). */
const toolRow = (eventId: string, payload: ReturnType<typeof call>['data'] & { output?: unknown; error?: string }) => ({
  id: `q-ToolCall-${eventId}`,
  type: 'ai',
  content: {
    name: 'get_weather',
    props: {
      id: eventId,
      args: payload.args,
      status: payload.status,
      output: payload.output,
      payload,
      isToolCall: true,
      toolName: 'get_weather',
    },
  },
});

describe('historyRows', () => {
  it('the reasoning row (content: the reasoning), tool rows in call order with the stream payload and no toolCalls, then the answer: its text only, without toolCalls or the reasoning again', () => {
    const c1 = call('c1', 'done', { output: { temp: 3 } });
    const c2 = call('c2', 'error', { error: 'bad city' });
    const turn = fold([
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'h', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'm', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: '', isComplete: true } },
      call('c1', 'isRunning'),
      call('c2', 'isRunning'),
      c2,
      c1,
      { event: 'message', data: { content: 'It is 3 °C.' } },
    ]);
    const rows = historyRows(turn, 'finished', 's');
    expect(rows).toStrictEqual([
      { id: 'q-reasoning', type: 'ai', content: 'hm' },
      toolRow('c1', c1.data),
      toolRow('c2', c2.data),
      { id: 'q', type: 'ai', content: 'It is 3 °C.' },
    ]);
    // a failed call has no output: its error is in the payload, as in the stream
    expect(rows[2]!.content).toMatchObject({
      props: { output: undefined, payload: { status: 'error', error: 'bad city' } },
    });
    expect(rows.some((r) => 'toolCalls' in r)).toBe(false);
  });

  it("a failed turn stores its partial answer, then the last error event as the SDK's Error component with the stream's id", () => {
    const error = {
      error: 'the upstream model failed',
      code: 'provider_error',
      kind: 'provider',
      retryable: true,
      timestamp: '2026-01-01T00:00:00.000Z',
    } as const;
    const turn = fold([
      { event: 'message', data: { content: 'A partial ans' } },
      { event: 'error', data: { ...error, error: 'an earlier one' } },
      { event: 'error', data: error },
    ]);
    expect(historyRows(turn, 'failed', 's')).toStrictEqual([
      { id: 'q', type: 'ai', content: 'A partial ans' },
      {
        id: 'q-error',
        type: 'ai',
        content: {
          name: 'Error',
          props: {
            id: 'error',
            args: {},
            status: 'done',
            output: error.error,
            event: { eventName: 'error', payload: error },
            payload: error,
          },
        },
      },
    ]);
  });

  it('rows are in the order the stream first showed them (text before a call keeps the answer above it; the error row where the last error came)', () => {
    const events = withIds([
      { event: 'message', data: { content: 'Let me look. ' } },
      {
        event: 'error',
        data: { error: 'first', code: 'provider_error', kind: 'provider', retryable: true, timestamp: 't' },
      },
      call('c1', 'isRunning'),
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'hm', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: '', isComplete: true } },
      call('c1', 'done', { output: 1 }),
      { event: 'message', data: { content: 'Found it.' } },
      {
        event: 'error',
        data: { error: 'last', code: 'provider_error', kind: 'provider', retryable: true, timestamp: 't' },
      },
    ]);
    const turn = events.reduce(reduceTurn, initialTurn({ runId: 'r', requestId: 'q' }));
    expect(historyRows(turn, 'failed', 's', events).map((r) => r.id)).toStrictEqual([
      'q',
      'q-ToolCall-c1',
      'q-reasoning',
      'q-error',
    ]);
    // without the events, the fixed order: reasoning, calls, answer, error
    expect(historyRows(turn, 'failed', 's').map((r) => r.id)).toStrictEqual([
      'q-reasoning',
      'q-ToolCall-c1',
      'q',
      'q-error',
    ]);
    // a finished turn's empty answer (no event showed it) comes after the rows the stream showed
    const called = withIds([call('c2', 'isRunning'), call('c2', 'done', { output: 2 })]);
    expect(
      historyRows(called.reduce(reduceTurn, initialTurn({ runId: 'r', requestId: 'q' })), 'finished', 's', called).map(
        (r) => r.id,
      ),
    ).toStrictEqual(['q-ToolCall-c2', 'q']);
  });

  it('a finished turn always stores its answer; a failed or aborted one only with text', () => {
    expect(historyRows(fold([]), 'finished', 's')).toStrictEqual([{ id: 'q', type: 'ai', content: '' }]);
    expect(historyRows(fold([]), 'failed', 's')).toStrictEqual([]);
    expect(historyRows(fold([call('c1', 'isRunning')]), 'aborted', 's').map((r) => r.id)).toStrictEqual([
      'q-ToolCall-c1',
    ]);
    expect(historyRows(fold([{ event: 'message', data: { content: 'part' } }]), 'aborted', 's')).toStrictEqual([
      { id: 'q', type: 'ai', content: 'part' },
    ]);
  });
});
