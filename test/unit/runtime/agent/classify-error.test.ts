import { APICallError, StreamProviderError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../../src/runtime/agent/index.ts';
import { runtimeError } from '../../../../src/lib/protocol/errors.ts';
import { TURN_ERROR_CODES } from '../../../../src/lib/protocol/index.ts';

const apiError = (statusCode: number, isRetryable = false) =>
  new APICallError({
    message: 'Invalid API key',
    url: 'http://model/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    isRetryable,
  });

describe('classifyError', () => {
  it('a provider that refuses the key (401, 403) has its own code, so clients decide on the code', () => {
    expect(classifyError(apiError(401))).toEqual({
      code: 'provider_unauthorized',
      kind: 'provider',
      retryable: false,
      message: 'the model provider failed with HTTP 401: Invalid API key',
    });
    expect(classifyError(apiError(403)).code).toBe('provider_unauthorized');
    expect(classifyError(apiError(500, true))).toMatchObject({
      code: 'provider_error',
      kind: 'provider',
      retryable: true,
    });
  });

  it('no model configured keeps its code (its text names oracle.config.json, which is not a malformed stream)', () => {
    expect(
      classifyError(
        runtimeError(
          'model_not_configured',
          'no model configured: set LLM_BASE_URL and the model in oracle.config.json',
        ),
      ),
    ).toMatchObject({ code: 'model_not_configured', kind: 'provider', retryable: false });
  });

  it('time-outs, malformed streams, unreachable providers and the rest', () => {
    expect(classifyError(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toMatchObject({
      code: 'model_timeout',
      kind: 'timeout',
      retryable: true,
    });
    expect(classifyError(Object.assign(new Error('bad chunk'), { name: 'AI_JSONParseError' }))).toMatchObject({
      code: 'malformed_stream',
      kind: 'malformed_stream',
    });
    expect(classifyError(new TypeError('fetch failed'))).toMatchObject({
      code: 'provider_unreachable',
      kind: 'provider',
      retryable: true,
    });
    expect(classifyError(new Error('something else'))).toEqual({
      code: 'internal_error',
      kind: 'internal',
      retryable: false,
      message: 'something else',
    });
  });

  it("a provider's error inside its stream is the provider failing mid-answer, and may be tried again", () => {
    expect(classifyError(new StreamProviderError({ message: 'overloaded', type: 'server_error' }))).toEqual({
      code: 'provider_error',
      kind: 'provider',
      retryable: true,
      message: 'the model provider failed mid-answer: overloaded',
    });
  });

  it("the provider's Retry-After (seconds, an HTTP date, or retry-after-ms) is kept in seconds", () => {
    const limited = (responseHeaders: Record<string, string>) =>
      new APICallError({
        message: 'slow down',
        url: 'http://model/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 429,
        isRetryable: true,
        responseHeaders,
      });
    const now = () => Date.parse('2026-01-01T00:00:00Z');
    expect(classifyError(limited({ 'retry-after': '3' }), now).retryAfterSeconds).toBe(3);
    expect(classifyError(limited({ 'retry-after': 'Thu, 01 Jan 2026 00:00:20 GMT' }), now).retryAfterSeconds).toBe(20);
    expect(classifyError(limited({ 'retry-after-ms': '1500', 'retry-after': '9' }), now).retryAfterSeconds).toBe(1.5);
    expect(classifyError(limited({ 'retry-after': 'soon' }), now).retryAfterSeconds).toBeUndefined();
    expect(classifyError(apiError(500))).not.toHaveProperty('retryAfterSeconds');
  });

  it('every code it produces is in TURN_ERROR_CODES with the kind it reports', () => {
    for (const e of [
      apiError(401),
      apiError(500),
      new Error('timed out'),
      new Error('invalid json'),
      new Error('ECONNREFUSED'),
      new Error('x'),
    ]) {
      const c = classifyError(e);
      expect(TURN_ERROR_CODES[c.code].kind).toBe(c.kind);
    }
  });
});
