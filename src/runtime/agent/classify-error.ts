/**
 * What a failure of the model stream tells the client: an `error` event with
 * a stable code (TURN_ERROR_CODES), its kind, whether a retry may help and a
 * message without secrets.
 */
import { APICallError, StreamProviderError } from 'ai';
import { isOracleKitError } from '../../lib/errors.ts';
import { TURN_ERROR_CODES, type ErrorEvent, type TurnErrorCode } from '../../lib/protocol/index.ts';

export interface ClassifiedError {
  code: TurnErrorCode;
  kind: ErrorEvent['kind'];
  retryable: boolean;
  message: string;
  /** The provider's Retry-After, in seconds. */
  retryAfterSeconds?: number;
}

/**
 * The wait a provider's reply asks for: `retry-after-ms` (OpenAI's), else `retry-after` in seconds or as an HTTP
 * date (RFC 9110 §10.2.3). Undefined without one, or for a value that is neither.
 */
export function retryAfterSeconds(headers: Record<string, string> | undefined, now: number): number | undefined {
  const ms = Number(headers?.['retry-after-ms']);
  if (headers?.['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms / 1000;
  const v = headers?.['retry-after']?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

const of = (code: TurnErrorCode, retryable: boolean, message: string): ClassifiedError => ({
  code,
  kind: TURN_ERROR_CODES[code].kind,
  retryable,
  message,
});

/** An error and its causes (the AI SDK wraps what the provider's reply stream threw). */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** `now` is the runtime's clock, for a Retry-After given as a date. */
export function classifyError(err: unknown, now: () => number = Date.now): ClassifiedError {
  const e = err as { name?: string; message?: string };
  const name = e?.name ?? '';
  const msg = String(e?.message ?? err);
  const tooLong = causes(err).find((c) => (c as { name?: string })?.name === 'ModelLineTooLongError') as
    Error | undefined;
  if (tooLong) return of('model_line_too_long', false, tooLong.message.slice(0, 300));
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const text = `the model provider failed${status ? ` with HTTP ${status}` : ''}: ${msg.slice(0, 200)}`;
    const c = of(status === 401 || status === 403 ? 'provider_unauthorized' : 'provider_error', err.isRetryable, text);
    const wait = retryAfterSeconds(err.responseHeaders, now());
    return wait === undefined ? c : { ...c, retryAfterSeconds: wait };
  }
  // an error chunk inside the stream (OpenRouter and others send one; the AI SDK hands it on as a
  // StreamProviderError): the provider answered, then failed mid-answer
  if (StreamProviderError.isInstance(err))
    return of('provider_error', true, `the model provider failed mid-answer: ${msg.slice(0, 200)}`);
  if (isOracleKitError(err) && err.code === 'model_not_configured')
    return of('model_not_configured', false, msg.slice(0, 300));
  if (/timeout|timed out/i.test(name) || /timeout|timed out/i.test(msg))
    return of('model_timeout', true, `the model stream stalled: ${msg.slice(0, 200)}`);
  if (
    /JSONParse|TypeValidation|InvalidResponseData|EmptyResponseBody|NoOutput|NoContentGenerated/i.test(name) ||
    /json|parse|invalid/i.test(msg)
  ) {
    return of('malformed_stream', true, `the model returned a malformed stream: ${msg.slice(0, 200)}`);
  }
  if (/fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(msg))
    return of('provider_unreachable', true, `the model provider is unreachable: ${msg.slice(0, 200)}`);
  return of('internal_error', false, msg.slice(0, 200));
}

/** The `error` event of a classified failure (its message passed through redact, its time the runtime's clock). */
export function errorEvent(
  c: ClassifiedError,
  o: { redact: (text: string) => string; now: () => number },
): { event: 'error'; data: ErrorEvent } {
  return {
    event: 'error',
    data: {
      error: o.redact(c.message),
      code: c.code,
      kind: c.kind,
      retryable: c.retryable,
      ...(c.retryAfterSeconds !== undefined ? { retryAfterSeconds: c.retryAfterSeconds } : {}),
      timestamp: new Date(o.now()).toISOString(),
    },
  };
}

export const stallError = (timeoutMs: number): ClassifiedError =>
  of('model_timeout', true, `the model stream stalled: no data for ${timeoutMs} ms`);
export const stepLimitError = (maxSteps: number): ClassifiedError =>
  of('step_limit', false, `the agent reached its step limit (${maxSteps}) without an answer`);

/** A bound of the run crossed (run-limits.ts): its code, and a message that names the bound and its setting. */
export function limitError(
  code: 'run_too_long' | 'output_too_large' | 'events_too_large',
  limit: number,
): ClassifiedError {
  const what = {
    run_too_long: `the run reached its maximum duration (${limit} ms, ORACLE_RUN_MAX_MS)`,
    output_too_large: `the run reached its maximum output (${limit} characters of answer and reasoning, ORACLE_RUN_MAX_OUTPUT_CHARS)`,
    events_too_large: `the run's event log reached its maximum size (${limit} bytes, ORACLE_RUN_MAX_EVENT_BYTES)`,
  }[code];
  return of(code, false, `${what}; it was ended`);
}

/**
 * What the turn could not store (the database refused the write: a full disk, a lost server), with the fault's code
 * (storage_full, storage_unavailable, database_unavailable) when the storage gave one.
 */
export function storageError(what: string, fault?: unknown): ClassifiedError {
  const code = isOracleKitError(fault) ? `: ${fault.code}` : '';
  return of(
    'storage_failed',
    true,
    `${what} could not be stored (the database refused the write${code}); the turn is failed`,
  );
}
