import { describe, expect, it } from 'vitest';
import { historyRows } from '../../../../src/runtime/agent/history-rows.ts';
import { initialTurn, reduceTurn, type AnyEvent } from '../../../../src/lib/protocol/index.ts';

let n = 0;
const fold = (events: Omit<AnyEvent, 'id'>[]) => events.reduce((s, e) => reduceTurn(s, { ...e, id: ++n } as AnyEvent), initialTurn({ runId: 'r', requestId: 'q' }));
const call = (eventId: string, status: 'isRunning' | 'done' | 'error', extra: Record<string, unknown> = {}) => ({ event: 'tool_call' as const, data: { sessionId: 's', requestId: 'q', eventId, toolName: 'get_weather', args: { city: 'Oslo' }, status, ...extra } });

describe('historyRows', () => {
  it('reasoning row, tool rows in call order (a failed call stores {error}), then the answer with records and reasoning', () => {
    const turn = fold([
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'hm', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'hm', isComplete: true } },
      call('c1', 'isRunning'),
      call('c2', 'isRunning'),
      call('c2', 'error', { error: 'bad city' }),
      call('c1', 'done', { output: { temp: 3 } }),
      { event: 'message', data: { content: 'It is 3 °C.' } },
    ]);
    expect(historyRows(turn, 'finished')).toEqual([
      { id: 'q-reasoning', type: 'ai', content: '', reasoning: 'hm' },
      { id: 'q-ToolCall-c1', type: 'ai', content: { name: 'get_weather', props: { id: 'c1', args: { city: 'Oslo' }, status: 'done', output: { temp: 3 } } } },
      { id: 'q-ToolCall-c2', type: 'ai', content: { name: 'get_weather', props: { id: 'c2', args: { city: 'Oslo' }, status: 'error', output: { error: 'bad city' } } } },
      {
        id: 'q',
        type: 'ai',
        content: 'It is 3 °C.',
        reasoning: 'hm',
        toolCalls: [
          { id: 'c1', name: 'get_weather', args: { city: 'Oslo' }, status: 'done', output: { temp: 3 } },
          { id: 'c2', name: 'get_weather', args: { city: 'Oslo' }, status: 'error', error: 'bad city' },
        ],
      },
    ]);
  });

  it('a finished turn always stores its answer; a failed or aborted one only with text or calls', () => {
    expect(historyRows(fold([]), 'finished')).toEqual([{ id: 'q', type: 'ai', content: '', toolCalls: undefined, reasoning: undefined }]);
    expect(historyRows(fold([]), 'failed')).toEqual([]);
    expect(historyRows(fold([{ event: 'message', data: { content: 'part' } }]), 'aborted')).toEqual([{ id: 'q', type: 'ai', content: 'part', toolCalls: undefined, reasoning: undefined }]);
  });
});
