/**
 * The turn conventions: the message-id scheme and reduceTurn, written from
 * what each consumer did before it was switched to reduceTurn (the runtime's
 * Run text and the agent's tool rows and reasoning, the headless client's
 * TurnResult, useChat's message list, the TUI's live answer).
 */
import { describe, expect, it } from 'vitest';
import {
  initialTurn,
  messageIds,
  parseMessageId,
  reduceTurn,
  transcript,
  turnMessages,
  TURN_ERROR_CODES,
  ERROR_KINDS,
  type AnyEvent,
  type TurnState,
} from '../../../../src/lib/protocol/index.ts';

const S = 's1';
const Q = 'req-1';
let n = 0;
const ev = <E extends AnyEvent['event']>(event: E, data: Extract<AnyEvent, { event: E }>['data']): AnyEvent =>
  ({ id: ++n, event, data }) as AnyEvent;
const fold = (events: AnyEvent[], from: TurnState = initialTurn()) => events.reduce(reduceTurn, from);
const tc = (eventId: string, status: 'isRunning' | 'done' | 'error', extra: Record<string, unknown> = {}) =>
  ev('tool_call', {
    sessionId: S,
    requestId: Q,
    eventId,
    toolName: 'get_weather',
    args: { city: 'Oslo' },
    status,
    ...extra,
  });

describe('message ids', () => {
  it('builds the ids of a turn and parses them back', () => {
    expect(messageIds.human(Q)).toBe('req-1-human');
    expect(messageIds.reasoning(Q)).toBe('req-1-reasoning');
    expect(messageIds.toolCall(Q, 'call_1')).toBe('req-1-ToolCall-call_1');
    expect(messageIds.answer(Q)).toBe(Q);
    expect(messageIds.error(Q)).toBe('req-1-error');
    const uuid = '0b8f6c1e-3a52-4c1b-9d0e-6a1f2b3c4d5e';
    expect(parseMessageId(messageIds.human(uuid))).toEqual({ requestId: uuid, part: 'human' });
    expect(parseMessageId(messageIds.reasoning(uuid))).toEqual({ requestId: uuid, part: 'reasoning' });
    expect(parseMessageId(messageIds.error(uuid))).toEqual({ requestId: uuid, part: 'error' });
    expect(parseMessageId(messageIds.toolCall(uuid, 'call-with-ToolCall-inside'))).toEqual({
      requestId: uuid,
      part: 'tool_call',
      toolCallId: 'call-with-ToolCall-inside',
    });
    expect(parseMessageId(uuid)).toEqual({ requestId: uuid, part: 'answer' });
    expect(parseMessageId('post-abc')).toEqual({ requestId: 'post-abc', part: 'answer' });
  });

  it('a posted message is the answer of a request id of its own, a UUID like every request id', () => {
    const a = messageIds.posted();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseMessageId(a)).toEqual({ requestId: a, part: 'answer' });
    expect(messageIds.posted()).not.toBe(a);
  });

  it('transcript keeps human messages and text answers, not tool rows, reasoning rows, error rows, records or empty answers', () => {
    const rows = [
      { id: messageIds.human(Q), type: 'human' as const, content: 'Weather in Oslo?' },
      { id: messageIds.reasoning(Q), type: 'ai' as const, content: 'The user wants the weather.' },
      {
        id: messageIds.error('req-0'),
        type: 'ai' as const,
        content: { name: 'Error', props: { id: 'error', args: {}, status: 'done', output: 'failed' } },
      },
      {
        id: messageIds.toolCall(Q, 'c1'),
        type: 'ai' as const,
        content: { name: 'get_weather', props: { id: 'c1', args: {}, status: 'done' } },
      },
      { id: 'odd-ToolCall-text', type: 'ai' as const, content: 'a tool row with text' },
      { id: Q, type: 'ai' as const, content: 'Sunny.' },
      { id: 'req-2', type: 'ai' as const, content: '' },
      { id: 'post-1', type: 'ai' as const, content: 'A posted reminder.' },
    ];
    expect(transcript(rows)).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'assistant', content: 'A posted reminder.' },
    ]);
  });

  it('every error code has a protocol kind', () => {
    for (const v of Object.values(TURN_ERROR_CODES)) expect(ERROR_KINDS).toContain(v.kind);
  });
});

describe('reduceTurn', () => {
  it('run: takes the ids the state does not have yet (the reply headers win)', () => {
    expect(fold([ev('run', { runId: 'r1', requestId: Q })])).toMatchObject({
      runId: 'r1',
      requestId: Q,
      status: 'streaming',
    });
    expect(
      fold([ev('run', { runId: 'r2', requestId: 'q2' })], initialTurn({ runId: 'r1', requestId: Q })),
    ).toMatchObject({ runId: 'r1', requestId: Q });
  });

  it('message: the text is the deltas in order (Run.text, TurnResult.text, the TUI)', () => {
    const s = fold([
      ev('run', { runId: 'r', requestId: Q }),
      ev('message', { content: 'Hel' }),
      ev('message', { content: '' }),
      ev('message', { content: 'lo' }),
    ]);
    expect(s.text).toBe('Hello');
  });

  it('reasoning: every frame appends, the closing one (isComplete) carrying no text', () => {
    const s = fold([
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'think ', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'hard', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: '', isComplete: true }),
      tc('c1', 'isRunning'),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: ' again', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: '', isComplete: true }),
    ]);
    expect(s.reasoning).toBe('think hard again');
  });

  it('reasoning: a closing frame repeating the whole reasoning (runs stored before the closing frame lost its text) is not appended twice', () => {
    const s = fold([
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'think ', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'hard', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'think hard', isComplete: true }),
      tc('c1', 'isRunning'),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: ' again', isComplete: false }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'think hard again', isComplete: true }),
    ]);
    expect(s.reasoning).toBe('think hard again');
  });

  it('tool_call: one entry per call id in first-seen order, status/output/error replaced, args kept when a later frame has none', () => {
    const s = fold([
      tc('c1', 'isRunning'),
      tc('c2', 'isRunning', { toolName: 'list_capabilities', args: {} }),
      ev('tool_call', {
        sessionId: S,
        requestId: Q,
        eventId: 'c1',
        toolName: 'get_weather',
        args: undefined,
        status: 'done',
        output: { temp: 3 },
      }),
      tc('c2', 'error', { toolName: 'list_capabilities', args: {}, error: 'boom' }),
    ]);
    expect(s.toolCalls).toEqual([
      {
        eventId: 'c1',
        toolName: 'get_weather',
        args: { city: 'Oslo' },
        status: 'done',
        output: { temp: 3 },
        error: undefined,
      },
      { eventId: 'c2', toolName: 'list_capabilities', args: {}, status: 'error', output: undefined, error: 'boom' },
    ]);
  });

  it("a tool error for a call never announced creates its entry (the agent's tool-error without tool-call)", () => {
    expect(fold([tc('x', 'error', { error: 'bad input' })]).toolCalls).toMatchObject([
      { eventId: 'x', status: 'error', error: 'bad input' },
    ]);
  });

  it('action_call updates the call of the same id (ag-ui), keeping its args', () => {
    const s = fold([
      tc('a1', 'isRunning', { toolName: 'show_chart', args: { values: [1, 2] } }),
      ev('action_call', {
        sessionId: S,
        requestId: Q,
        toolCallId: 'a1',
        toolName: 'show_chart',
        status: 'done',
        output: { shown: true },
      }),
    ]);
    expect(s.toolCalls).toEqual([
      {
        eventId: 'a1',
        toolName: 'show_chart',
        args: { values: [1, 2] },
        status: 'done',
        output: { shown: true },
        error: undefined,
      },
    ]);
  });

  it('error: the last one is kept; done: the final status, and partialText only when no text arrived', () => {
    const e1 = { error: 'first', code: 'provider_error', kind: 'provider' as const, retryable: true, timestamp: 't' };
    const e2 = { ...e1, error: 'second', code: 'model_timeout', kind: 'timeout' as const };
    const s = fold([
      ev('message', { content: 'par' }),
      ev('error', e1),
      ev('error', e2),
      ev('done', { status: 'failed', partialText: 'partial' }),
    ]);
    expect(s).toMatchObject({ status: 'failed', text: 'par', error: e2 });
    expect(fold([ev('done', { status: 'aborted', partialText: 'partial' })])).toMatchObject({
      status: 'aborted',
      text: 'partial',
    });
    expect(fold([ev('done', { status: 'finished' })])).toMatchObject({ status: 'finished', text: '' });
  });

  it('is pure: the state given is never changed, and an event that changes nothing returns it', () => {
    const s0 = fold([ev('run', { runId: 'r', requestId: Q }), tc('c1', 'isRunning')]);
    const frozen = JSON.stringify(s0);
    const s1 = reduceTurn(s0, tc('c1', 'done', { output: 1 }));
    expect(JSON.stringify(s0)).toBe(frozen);
    expect(s1).not.toBe(s0);
    expect(reduceTurn(s0, ev('run', { runId: 'other', requestId: 'other' }))).toBe(s0);
    expect(reduceTurn(s0, ev('message', { content: '' }))).toBe(s0);
  });
});

describe('turnMessages (useChat while a turn streams)', () => {
  const toolRow = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
    id: `req-1-ToolCall-${id}`,
    type: 'ai',
    createdAt: 'T',
    content: {
      name: 'get_weather',
      props: {
        id,
        args: { city: 'Oslo' },
        status,
        payload: { requestId: Q, eventId: id, toolName: 'get_weather', args: { city: 'Oslo' }, status, ...extra },
        isToolCall: true,
        toolName: 'get_weather',
      },
    },
  });

  it('the rows the history will store: reasoning, tool rows, then the answer without the reasoning', () => {
    const s = fold([
      ev('run', { runId: 'r', requestId: Q }),
      ev('message', { content: 'Looking' }),
      tc('c1', 'isRunning'),
      tc('c2', 'error', { error: 'nope' }),
      ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'hmm', isComplete: false }),
    ]);
    expect(turnMessages(s, 'T')).toEqual([
      { id: 'req-1-reasoning', type: 'ai', createdAt: 'T', content: 'hmm', isReasoning: true },
      toolRow('c1', 'isRunning'),
      toolRow('c2', 'error', { error: 'nope' }),
      { id: Q, type: 'ai', createdAt: 'T', content: 'Looking' },
    ]);
  });

  it('no answer row before text; reasoning alone is its own row', () => {
    expect(
      turnMessages(fold([ev('run', { runId: 'r', requestId: Q }), tc('c1', 'isRunning')]), 'T').map((m) => m.id),
    ).toEqual(['req-1-ToolCall-c1']);
    expect(
      turnMessages(
        fold([
          ev('run', { runId: 'r', requestId: Q }),
          ev('reasoning', { sessionId: S, requestId: Q, reasoning: 'x', isComplete: false }),
        ]),
        'T',
      ),
    ).toEqual([{ id: 'req-1-reasoning', type: 'ai', createdAt: 'T', content: 'x', isReasoning: true }]);
  });
});
