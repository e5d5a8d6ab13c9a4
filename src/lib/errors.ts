/**
 * The one error type of oraclekit. Each area (sampling, selection, registry,
 * runtime, …) keeps its own table of codes next to its code; every error
 * carries the HTTP-like status of its class, a stable code, the field and the
 * value that were wrong, and what would be valid.
 *
 * The CLI maps the status to an exit code (EXIT_CODES below, documented in
 * docs/cli.md); the daemon sends {statusCode, code, message, field?, details?}.
 */
export interface ErrorInit {
  status: number;
  code: string;
  message: string;
  field?: string;
  value?: unknown;
  valid?: string;
  details?: Record<string, unknown>;
}

export class OracleKitError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  readonly value?: unknown;
  readonly valid?: string;
  readonly details?: Record<string, unknown>;

  constructor(init: ErrorInit) {
    super(init.message);
    this.name = 'OracleKitError';
    this.status = init.status;
    this.code = init.code;
    if (init.field !== undefined) this.field = init.field;
    if (init.value !== undefined) this.value = init.value;
    if (init.valid !== undefined) this.valid = init.valid;
    if (init.details !== undefined) this.details = init.details;
  }

  /** The wire body, identical for the API and for `--json` errors of the CLI. */
  toBody(): ErrorBody {
    const body: ErrorBody = { statusCode: this.status, code: this.code, message: this.message };
    if (this.field !== undefined) body.field = this.field;
    const details: Record<string, unknown> = { ...(this.details ?? {}) };
    if (this.value !== undefined) details.value = this.value;
    if (this.valid !== undefined) details.valid = this.valid;
    if (Object.keys(details).length > 0) body.details = details;
    return body;
  }
}

export interface ErrorBody {
  statusCode: number;
  code: string;
  message: string;
  field?: string;
  details?: Record<string, unknown>;
}

export function isOracleKitError(e: unknown): e is OracleKitError {
  return e instanceof OracleKitError;
}

/** Exit codes of the CLI, one per class of error. Documented in docs/cli.md. */
export const EXIT_CODES = {
  ok: 0,
  unexpected: 1,
  usage: 2, // oclif's own flag/argument parsing errors
  invalidInput: 3, // 400-like
  conflict: 4, // 409-like (and 412)
  unprocessable: 5, // 422-like
  notFound: 6, // 404
  auth: 7, // 401, 403
  paymentRequired: 8, // 402
  unavailable: 9, // daemon or network unreachable, 5xx, time-outs
  verificationFailed: 10, // `sample verify` / `sample report` found a mismatch
  untrusted: 11, // everything recomputes, but the randomness is not one the verifier can trust
} as const;

export function exitCodeForStatus(status: number): number {
  if (status === 400) return EXIT_CODES.invalidInput;
  if (status === 409 || status === 412) return EXIT_CODES.conflict;
  if (status === 422) return EXIT_CODES.unprocessable;
  if (status === 404) return EXIT_CODES.notFound;
  if (status === 401 || status === 403) return EXIT_CODES.auth;
  if (status === 402) return EXIT_CODES.paymentRequired;
  if (status >= 500) return EXIT_CODES.unavailable;
  return EXIT_CODES.unexpected;
}

/** A compact rendering of any value for an error message. */
export function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return '(missing)';
  try {
    const s = JSON.stringify(v);
    return s.length > 80 ? s.slice(0, 77) + '...' : s;
  } catch {
    return String(v);
  }
}

/** An area's error table: code → HTTP-like status and when it applies. */
export type ErrorTable = Record<string, { status: number; when: string }>;

/**
 * The error builder of an area whose errors name a field, its value and what
 * is valid (sampling, selection); the default message says all three.
 */
export function fieldErrorFactory<T extends ErrorTable>(table: T) {
  return (code: keyof T & string, field: string, value: unknown, valid: string, extra?: { message?: string; details?: Record<string, unknown> }): OracleKitError => {
    const message = extra?.message ?? `${field} ${value === undefined ? 'is missing' : `= ${showValue(value)} is invalid`}; valid: ${valid}`;
    return new OracleKitError({ status: table[code]!.status, code, message, field, value, valid, details: extra?.details });
  };
}

/** The error builder of an area whose errors lead with a message (registry, runtime). */
export function messageErrorFactory<T extends ErrorTable>(table: T) {
  return (code: keyof T & string, message: string, extra: { field?: string; value?: unknown; valid?: string; details?: Record<string, unknown> } = {}): OracleKitError =>
    new OracleKitError({ status: table[code]!.status, code, message, ...extra });
}
