import { describe, expect, it } from 'vitest';
import {
  AnyEventSchema,
  encodeFrame,
  OracleEventParser,
  SSE_EVENT_NAMES,
  RUNTIME_ERRORS,
  AUTH_ERROR_CODES,
  WrappedEventSchema,
  type AnyEvent,
} from '../../../../src/lib/protocol/index.ts';

describe('protocol schemas', () => {
  it('encodes frames that the client parser reads back, across chunk boundaries and heartbeats', () => {
    const events: AnyEvent[] = [
      { id: 1, event: 'run', data: { runId: 'r', requestId: 'q' } },
      { id: 2, event: 'message', data: { content: 'line1\nline2 "quoted"' } },
      {
        id: 3,
        event: 'tool_call',
        data: {
          sessionId: 's',
          requestId: 'q',
          eventId: 'e',
          toolName: 't',
          args: { a: 1 },
          status: 'done',
          output: [1],
        },
      },
      {
        id: 4,
        event: 'error',
        data: {
          error: 'x',
          code: 'provider_error',
          kind: 'provider',
          retryable: true,
          timestamp: new Date(0).toISOString(),
        },
      },
      { id: 5, event: 'done', data: { status: 'failed', partialText: 'p' } },
    ];
    const wire = events.map(encodeFrame).join(': heartbeat\n\n');
    for (const f of events.map(encodeFrame)) expect(f.split('\n').filter((l) => l.startsWith('data:'))).toHaveLength(1);
    const p = new OracleEventParser();
    const got: AnyEvent[] = [];
    for (let i = 0; i < wire.length; i += 7) got.push(...p.push(wire.slice(i, i + 7)));
    expect(got).toEqual(events);
  });

  it('rejects unknown events and bad payloads', () => {
    expect(AnyEventSchema.safeParse({ id: 1, event: 'nope', data: {} }).success).toBe(false);
    expect(AnyEventSchema.safeParse({ id: 1, event: 'done', data: { status: 'weird' } }).success).toBe(false);
    expect(
      WrappedEventSchema.safeParse({
        eventName: 'reasoning',
        payload: { sessionId: 's', requestId: 'r', eventId: '1', reasoning: 'x', isComplete: true },
      }).success,
    ).toBe(true);
    expect(SSE_EVENT_NAMES).toEqual(['run', 'reasoning', 'message', 'tool_call', 'action_call', 'error', 'done']);
  });

  it('has one 401 code per authentication check', () => {
    for (const c of [
      'missing_token',
      'malformed_token',
      'wrong_audience',
      'expired',
      'not_yet_valid',
      'ttl_too_long',
      'bad_signature',
      'replayed',
      'revoked',
      'delegation_issuer_mismatch',
      'signing_key_missing',
    ]) {
      expect(AUTH_ERROR_CODES).toContain(c);
      expect(RUNTIME_ERRORS[c as keyof typeof RUNTIME_ERRORS].status).toBe(401);
    }
  });
});
