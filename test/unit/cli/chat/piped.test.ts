/** The piped chat's words and exit codes (src/cli/chat/piped.ts; docs/cli.md "Exit codes"). */
import { describe, expect, it } from 'vitest';
import { errorLine, thrownExitCode, toolLine, turnExitCode } from '../../../../src/cli/chat/piped.ts';
import { OracleClientError, OracleUnreachableError, PaymentRequiredError } from '../../../../src/client/errors.ts';
import { TOOL_CALL_STATUSES } from '../../../../src/lib/protocol/events.ts';
import { TURN_ERROR_CODES } from '../../../../src/lib/protocol/messages.ts';

const turnError = (code: string, kind: string) =>
  ({ error: code, code, kind, retryable: false, timestamp: '2026-01-01T00:00:00Z' }) as never;

describe('toolLine', () => {
  it('says every tool status in words, never the protocol name', () => {
    expect(toolLine({ toolName: 'search_domains', status: 'isRunning' })).toBe('[tool] search_domains running');
    expect(toolLine({ toolName: 'search_domains', status: 'done' })).toBe('[tool] search_domains done');
    expect(toolLine({ toolName: 'search_domains', status: 'error', error: 'timed out' })).toBe(
      '[tool] search_domains failed: timed out',
    );
    for (const s of TOOL_CALL_STATUSES) expect(toolLine({ toolName: 't', status: s })).not.toMatch(/isRunning/);
  });
});

describe('exit codes', () => {
  it('a finished turn is 0; the model side (provider, time-out, stream) is 9; payment 8; the rest 1', () => {
    expect(turnExitCode({ status: 'finished' })).toBe(0);
    for (const [code, { kind }] of Object.entries(TURN_ERROR_CODES)) {
      const expected = kind === 'provider' || kind === 'timeout' || kind === 'malformed_stream' ? 9 : 1;
      expect(turnExitCode({ status: 'failed', error: turnError(code, kind) }), code).toBe(expected);
    }
    expect(turnExitCode({ status: 'failed', error: turnError('payment_required', 'payment') })).toBe(8);
    expect(turnExitCode({ status: 'aborted' })).toBe(1);
  });

  it('a thrown error exits with the class of its status; unreachable (status 0) is 9', () => {
    expect(thrownExitCode(new PaymentRequiredError('pay', ['c1'], [], {}))).toBe(8);
    expect(thrownExitCode(new OracleClientError(503, 'model_not_configured', 'no model'))).toBe(9);
    expect(thrownExitCode(new OracleUnreachableError('http://127.0.0.1:9', new Error('x')))).toBe(9);
    expect(thrownExitCode(new OracleClientError(404, 'session_not_found', 'no session'))).toBe(6);
    expect(thrownExitCode(new OracleClientError(401, 'expired', 'expired'))).toBe(7);
    expect(thrownExitCode(new Error('bug'))).toBe(1);
  });
});

describe('errorLine', () => {
  it('is `Error [code] message`, without the code repeated at the end, a second line indented', () => {
    expect(errorLine('provider_error', 'the provider failed [provider_error]')).toBe(
      'Error [provider_error] the provider failed',
    );
    expect(errorLine('provider_error', 'the provider failed [provider_error, retryable]')).toBe(
      'Error [provider_error] the provider failed (retryable: send it again)',
    );
    expect(errorLine('payment_required', 'Payment required.\nPay the claims.')).toBe(
      'Error [payment_required] Payment required.\n  Pay the claims.',
    );
  });
});
