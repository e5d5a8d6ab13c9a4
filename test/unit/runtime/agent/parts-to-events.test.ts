import type { TextStreamPart, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { PartsToEvents } from '../../../../src/runtime/agent/parts-to-events.ts';
import type { AnyEventInput } from '../../../../src/lib/protocol/index.ts';

const part = (p: Record<string, unknown>) => p as unknown as TextStreamPart<ToolSet>;

function mapper(cancelled = false) {
  const events: AnyEventInput[] = [];
  const m = new PartsToEvents({
    sessionId: 's',
    requestId: 'q',
    emit: (e) => events.push(e),
    redact: (t) => t.replaceAll('sk-secret', '[redacted]'),
    now: () => Date.UTC(2030, 0, 2, 3, 4, 5),
    cancelled: () => cancelled,
  });
  return { m, events };
}

describe('PartsToEvents', () => {
  it('reasoning deltas, then one closing frame without text (the IXO SDK appends every frame) before the text', () => {
    const { m, events } = mapper();
    for (const p of [
      { type: 'reasoning-delta', text: 'a' },
      { type: 'reasoning-delta', text: '' },
      { type: 'reasoning-delta', text: 'b' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'text-delta', text: '' },
    ])
      m.push(part(p));
    m.end();
    expect(events).toEqual([
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'a', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: 'b', isComplete: false } },
      { event: 'reasoning', data: { sessionId: 's', requestId: 'q', reasoning: '', isComplete: true } },
      { event: 'message', data: { content: 'Hi' } },
    ]);
  });

  it('reasoning still open at the end of the stream is closed by end()', () => {
    const { m, events } = mapper();
    m.push(part({ type: 'reasoning-delta', text: 'x' }));
    m.end();
    m.end();
    expect(events.map((e) => (e.event === 'reasoning' ? e.data.isComplete : e.event))).toEqual([false, true]);
  });

  it('tool calls: running, then done with the output or error with the redacted message', () => {
    const { m, events } = mapper();
    m.push(part({ type: 'tool-call', toolCallId: 'c1', toolName: 't', input: { a: 1 } }));
    m.push(part({ type: 'tool-result', toolCallId: 'c1', toolName: 't', input: { a: 1 }, output: 42 }));
    m.push(
      part({
        type: 'tool-error',
        toolCallId: 'c2',
        toolName: 't',
        input: {},
        error: new Error('key sk-secret refused'),
      }),
    );
    expect(events.map((e) => e.data)).toEqual([
      { sessionId: 's', requestId: 'q', eventId: 'c1', toolName: 't', args: { a: 1 }, status: 'isRunning' },
      { sessionId: 's', requestId: 'q', eventId: 'c1', toolName: 't', args: { a: 1 }, status: 'done', output: 42 },
      {
        sessionId: 's',
        requestId: 'q',
        eventId: 'c2',
        toolName: 't',
        args: {},
        status: 'error',
        error: 'key [redacted] refused',
      },
    ]);
  });

  it('counts steps, keeps the last finish reason, reports stream errors at the runtime clock unless the run is cancelled', () => {
    const { m, events } = mapper();
    m.push(part({ type: 'finish-step', finishReason: 'tool-calls' }));
    m.push(part({ type: 'finish-step', finishReason: 'stop' }));
    m.push(part({ type: 'error', error: new Error('upstream said sk-secret') }));
    expect([m.stepCount, m.lastFinishReason, m.sawError]).toEqual([2, 'stop', true]);
    expect(events).toMatchObject([
      {
        event: 'error',
        data: {
          code: 'internal_error',
          kind: 'internal',
          error: 'upstream said [redacted]',
          timestamp: '2030-01-02T03:04:05.000Z',
        },
      },
    ]);
    const c = mapper(true);
    c.m.push(part({ type: 'error', error: new Error('aborted') }));
    expect([c.m.sawError, c.events]).toEqual([false, []]);
  });
});
