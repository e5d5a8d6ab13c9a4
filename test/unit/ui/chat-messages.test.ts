import { describe, expect, it } from 'vitest';
import { explainError, explainRunError, oracleWentAway } from '../../../src/ui/chat-controller.ts';
import { OracleClientError, OracleUnreachableError, PaymentRequiredError } from '../../../src/client/errors.ts';
import type { TurnResult } from '../../../src/client/client.ts';
import { historyItems } from '../../../src/ui/transcript.tsx';

const turn = (error?: TurnResult['error']): TurnResult => ({
  status: 'failed',
  text: '',
  runId: 'r',
  requestId: 'q',
  toolCalls: [],
  reasoning: '',
  rejoins: 0,
  error,
});

describe('chat messages for people', () => {
  it('payment required shows the claim ids and how to pay', () => {
    const m = explainError(new PaymentRequiredError('pay first', ['c-1', 'c-2'], [], {}), 'http://o');
    expect(m).toContain('Payment required');
    expect(m).toContain('c-1, c-2');
    expect(m).toMatch(/Pay the claims/);
  });
  it('unreachable, 401 after re-authorising, no model configured', () => {
    expect(explainError(new OracleUnreachableError('http://o:1', new Error('x')), 'http://o:1')).toMatch(
      /Cannot reach the oracle at http:\/\/o:1/,
    );
    expect(explainError(new OracleClientError(401, 'expired', 'the UCAN expired'), 'http://o')).toMatch(
      /refused your identity \(expired/,
    );
    expect(explainError(new OracleClientError(503, 'model_not_configured', 'no model'), 'http://o')).toMatch(
      /no model configured/,
    );
  });
  it('a provider refusing the model key is named as such (its code, provider_unauthorized)', () => {
    expect(
      explainRunError(
        turn({
          error: 'the model provider failed with HTTP 401: Invalid API key',
          code: 'provider_unauthorized',
          kind: 'provider',
          retryable: false,
          timestamp: '',
        }),
      ),
    ).toMatch(/refused the oracle's key.*LLM_PROVIDER_API_KEY/);
    expect(
      explainRunError(
        turn({
          error: 'the model stream stalled',
          code: 'model_timeout',
          kind: 'timeout',
          retryable: true,
          timestamp: '',
        }),
      ),
    ).toBe('the model stream stalled [model_timeout, retryable]');
    expect(explainRunError(turn())).toBeUndefined();
  });
  it('decides on the code, never on the text', () => {
    expect(
      explainRunError(
        turn({
          error: 'the model provider failed with HTTP 500: invalid key format in upstream',
          code: 'provider_error',
          kind: 'provider',
          retryable: true,
          timestamp: '',
        }),
      ),
    ).toBe('the model provider failed with HTTP 500: invalid key format in upstream [provider_error, retryable]');
    expect(
      explainRunError(
        turn({ error: 'anything', code: 'model_not_configured', kind: 'provider', retryable: false, timestamp: '' }),
      ),
    ).toMatch(/no model configured: set LLM_BASE_URL/);
  });
});

describe('failures in the words of what happened', () => {
  const failed = (error: string, code = 'provider_error') =>
    turn({ error, code, kind: 'provider', retryable: true, timestamp: '' });
  it('a provider that failed after accepting the request stopped mid-answer', () => {
    expect(explainRunError(failed('the model provider failed with HTTP 200: stream broke'))).toBe(
      'The model provider stopped mid-answer (it said: stream broke).',
    );
    expect(explainRunError(failed('the model provider failed mid-answer: overloaded'))).toBe(
      'The model provider stopped mid-answer (it said: overloaded).',
    );
  });
  it('an oracle that went away mid-answer, and a rate limit that names the wait', () => {
    const dropped = new OracleClientError(0, 'stream_dropped', 'the stream ended before its done frame');
    expect(oracleWentAway(dropped)).toBe(true);
    expect(oracleWentAway(new TypeError('terminated'))).toBe(true);
    expect(oracleWentAway(new Error('terminated'))).toBe(false);
    expect(explainError(dropped, 'http://o:1')).toMatch(/^The oracle went away in the middle of the answer/);
    const limited = new OracleClientError(
      429,
      'rate_limited',
      'this oracle allows 1 turns (ORACLE_USER_TURNS_PER_MINUTE)',
      {
        details: { retryAfterSeconds: 42, limitPerMinute: 1 },
      },
    );
    const words = explainError(limited, 'http://o:1');
    expect(words).toContain('wait 42 seconds');
    expect(words).toContain('1 turn a minute');
    expect(words).not.toContain('ORACLE_USER_TURNS_PER_MINUTE');
  });
});

describe('historyItems: a stored session as the chat drew it live', () => {
  it("a failed tool call keeps its reason (the row's last frame), as it was shown live", () => {
    const at = '2026-01-01T00:00:00.000Z';
    const [, answer] = historyItems([
      { id: 'r1-human', type: 'human', content: 'weather?', createdAt: at },
      {
        id: 'r1-ToolCall-c1',
        type: 'ai',
        createdAt: at,
        content: {
          name: 'get_current_weather',
          props: { id: 'c1', args: {}, status: 'error', payload: { error: 'Tool is not loaded.' } },
        },
      },
    ]);
    expect(answer).toMatchObject({ tools: [{ status: 'error', error: 'Tool is not loaded.' }] });
  });

  it('your messages, each turn as one answer with its tool calls, errors as errors', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const items = historyItems([
      { id: 'r1-human', type: 'human', content: 'weather?', createdAt: at },
      {
        id: 'r1-ToolCall-c1',
        type: 'ai',
        createdAt: at,
        content: {
          name: 'get_current_weather',
          props: { id: 'c1', args: { city: 'Oslo' }, status: 'done', output: { t: 1 } },
        },
      },
      { id: 'r1-reasoning', type: 'ai', content: 'thinking', isReasoning: true, createdAt: at },
      { id: 'r1', type: 'ai', content: 'It is **cold**.', createdAt: at },
      { id: 'r2-human', type: 'human', content: 'again', createdAt: at },
      {
        id: 'r2-error',
        type: 'ai',
        createdAt: at,
        content: {
          name: 'Error',
          props: { id: 'error', args: {}, status: 'done', output: 'the model provider failed' },
        },
      },
    ]);
    expect(items).toEqual([
      { kind: 'user', text: 'weather?' },
      {
        kind: 'assistant',
        text: 'It is **cold**.',
        status: 'finished',
        tools: [
          { eventId: 'c1', toolName: 'get_current_weather', args: { city: 'Oslo' }, status: 'done', output: { t: 1 } },
        ],
      },
      { kind: 'user', text: 'again' },
      { kind: 'error', text: 'the model provider failed' },
    ]);
  });

  it("a turn's stored outcome gives its answer the status and usage it showed live; a cancelled empty turn stays", () => {
    const at = '2026-01-01T00:00:00.000Z';
    const usage = { inputTokens: 12, outputTokens: 3, charged: { amount: 2.5, denom: 'uixo' } };
    const items = historyItems([
      { id: 'r1-human', type: 'human', content: 'hi', turn: { status: 'finished', usage }, createdAt: at },
      { id: 'r1', type: 'ai', content: 'Hello.', createdAt: at },
      { id: 'r2-human', type: 'human', content: 'long one', turn: { status: 'aborted' }, createdAt: at },
      { id: 'r2', type: 'ai', content: 'Once upon', createdAt: at },
      { id: 'r3-human', type: 'human', content: 'never mind', turn: { status: 'aborted' }, createdAt: at },
      // a turn still running when the history was read: no outcome yet, nothing drawn for it
      { id: 'r4-human', type: 'human', content: 'still going', createdAt: at },
    ]);
    expect(items).toEqual([
      { kind: 'user', text: 'hi' },
      { kind: 'assistant', text: 'Hello.', tools: [], status: 'finished', usage },
      { kind: 'user', text: 'long one' },
      { kind: 'assistant', text: 'Once upon', tools: [], status: 'aborted' },
      { kind: 'user', text: 'never mind' },
      { kind: 'assistant', text: '', tools: [], status: 'aborted' },
      { kind: 'user', text: 'still going' },
    ]);
  });
});
