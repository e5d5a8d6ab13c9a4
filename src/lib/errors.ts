/**
 * The one error type of oraclekit. Each area (sampling, selection, registry,
 * runtime, …) keeps its own table of codes next to its code; every error
 * carries the HTTP-like status of its class, a stable code, the field and the
 * value that were wrong, and what would be valid.
 *
 * The CLI maps the status to an exit code (EXIT_CODES below, documented in
 * docs/cli.md); the daemon sends {statusCode, code, message, field?, details?}.
 */
interface ErrorInit {
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
    if (this.value !== undefined) details.value = boundedValue(this.value);
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

/** How deep and how long a value an error may carry or render (a hostile body may nest 30,000 deep). */
export const VALUE_LIMITS = { depth: 8, nodes: 256, length: 80 } as const;

/**
 * Whether a value is small enough to go as it is into an error body: at most
 * VALUE_LIMITS.depth levels of arrays and objects and VALUE_LIMITS.nodes
 * values in all. Walks with its own stack, stops at the first excess.
 */
function isSmall(v: unknown): boolean {
  const stack: [unknown, number][] = [[v, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [x, depth] = stack.pop()!;
    if (++nodes > VALUE_LIMITS.nodes) return false;
    if (typeof x !== 'object' || x === null) continue;
    if (depth > VALUE_LIMITS.depth) return false;
    for (const c of Array.isArray(x) ? x : Object.values(x)) stack.push([c, depth + 1]);
  }
  return true;
}

/** Cut a rendering to VALUE_LIMITS.length characters. */
const cut = (s: string): string => (s.length > VALUE_LIMITS.length ? s.slice(0, VALUE_LIMITS.length - 3) + '...' : s);

/** A string quoted, cut to VALUE_LIMITS.length characters with its closing quote ("abc"...). */
const quote = (s: string): string =>
  s.length + 2 > VALUE_LIMITS.length ? JSON.stringify(s.slice(0, VALUE_LIMITS.length - 5)) + '...' : JSON.stringify(s);

/**
 * A rendering of a value that is not small: JSON-like, at most three levels
 * (deeper arrays and objects show as [...] and {...}) and cut to
 * VALUE_LIMITS.length characters. Its recursion is bounded by the three levels,
 * and it stops reading an array or object once the text is long enough.
 */
function renderShallow(v: unknown, levels: number): string {
  if (Array.isArray(v) || (typeof v === 'object' && v !== null)) {
    const isArray = Array.isArray(v);
    if (levels === 0) return isArray ? '[...]' : '{...}';
    const parts: string[] = [];
    let len = 0;
    const entries = isArray ? v : Object.keys(v);
    for (const e of entries) {
      const p = isArray
        ? renderShallow(e, levels - 1)
        : `${quote(e as string)}:${renderShallow((v as Record<string, unknown>)[e as string], levels - 1)}`;
      parts.push(p);
      len += p.length + 1;
      if (len > VALUE_LIMITS.length) {
        parts.push('...');
        break;
      }
    }
    return isArray ? `[${parts.join(',')}]` : `{${parts.join(',')}}`;
  }
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'bigint' || typeof v === 'symbol' || typeof v === 'function')
    return String(typeof v === 'function' ? '(function)' : v);
  return String(JSON.stringify(v) ?? v);
}

/**
 * A compact rendering of any value for an error message: the JSON of a small
 * value, else a bounded rendering; never longer than VALUE_LIMITS.length
 * characters (strings too), never recursing deeper than a few levels, so a
 * hostile value (nested 20,000 deep, or megabytes wide) cannot make an error
 * message fail.
 */
export function showValue(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v === undefined) return '(missing)';
  if (!isSmall(v)) return cut(renderShallow(v, 3));
  try {
    return cut(JSON.stringify(v) ?? String(v));
  } catch {
    return cut(renderShallow(v, 3));
  }
}

/**
 * The value as an error body carries it (`details.value`): the value itself
 * when small (see isSmall), else its bounded rendering (showValue), so an
 * error body is always cheap and safe to serialize.
 */
export function boundedValue(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 1024 ? cut(v) : v;
  return isSmall(v) ? v : showValue(v);
}

/** An area's error table: code → HTTP-like status and when it applies. */
export type ErrorTable = Record<string, { status: number; when: string }>;

/**
 * The error builder of an area whose errors name a field, its value and what
 * is valid (sampling, selection); the default message says all three.
 */
export function fieldErrorFactory<T extends ErrorTable>(table: T) {
  return (
    code: keyof T & string,
    field: string,
    value: unknown,
    valid: string,
    extra?: { message?: string; details?: Record<string, unknown> },
  ): OracleKitError => {
    const message =
      extra?.message ??
      `${field} ${value === undefined ? 'is missing' : `= ${showValue(value)} is invalid`}; valid: ${valid}`;
    return new OracleKitError({
      status: table[code]!.status,
      code,
      message,
      field,
      value,
      valid,
      details: extra?.details,
    });
  };
}

/** The error builder of an area whose errors lead with a message (registry, runtime). */
export function messageErrorFactory<T extends ErrorTable>(table: T) {
  return (
    code: keyof T & string,
    message: string,
    extra: { field?: string; value?: unknown; valid?: string; details?: Record<string, unknown> } = {},
  ): OracleKitError => new OracleKitError({ status: table[code]!.status, code, message, ...extra });
}

/**
 * Faults of the database itself (src/storage/faults.ts maps each backend's errors to them), the same on every
 * HTTP scope: nothing of the request was stored, and a retry may succeed once the fault is gone.
 */
const STORAGE_FAULTS = {
  storage_full: {
    status: 507,
    when:
      "the disk that holds the database is full (ENOSPC, SQLITE_FULL, PostgreSQL's disk_full): nothing of the " +
      'request was stored; retry once space is freed',
  },
  storage_unavailable: {
    status: 503,
    when:
      'the database file cannot be read or written now (an I/O error, a read-only file system, a lock held too ' +
      'long): nothing of the request was stored; retry shortly',
  },
} as const satisfies ErrorTable;

/**
 * The codes of faults the HTTP layer finds before any area's code runs — JSON
 * syntax, schema validation, unknown routes, limits — the same on every HTTP
 * scope (the daemon's /v1 and /admin/v1, the oracle runtime's routes). The
 * area tables (REGISTRY_ERRORS, RUNTIME_ERRORS) include them.
 */
export const HTTP_ERRORS = {
  invalid_json: {
    status: 400,
    when:
      'the body is not JSON (a syntax error, empty with a JSON Content-Type, or __proto__ / ' +
      'constructor.prototype anywhere in it)',
  },
  invalid_body: {
    status: 400,
    when:
      'a body (or path parameter) does not match its schema: not an object, a field of the wrong type, ' +
      'shape or value',
  },
  unknown_field: { status: 400, when: 'a body or query field the route does not know' },
  invalid_query: { status: 400, when: 'a query parameter does not match its schema' },
  invalid_header: { status: 400, when: 'a header does not match its schema' },
  unauthenticated: { status: 401, when: 'a 401 without a more specific code of its area' },
  forbidden: { status: 403, when: 'a 403 without a more specific code of its area' },
  not_found: { status: 404, when: 'no route with this method and path' },
  body_too_deep: {
    status: 400,
    when:
      'the JSON body nests arrays and objects deeper than the limit (64 levels); checked before anything ' +
      'reads the body',
  },
  invalid_url: { status: 400, when: 'the URL is not valid percent-encoding' },
  bad_request: { status: 400, when: 'a request the HTTP parser refuses (malformed request line or headers)' },
  request_timeout: {
    status: 408,
    when: 'the request (headers and body) did not arrive within the time limit; the connection is closed',
  },
  body_too_large: { status: 413, when: 'the body is over the limit' },
  url_too_long: { status: 414, when: 'a path parameter is longer than 8,192 characters' },
  headers_too_large: {
    status: 431,
    when: "the request line and headers are over the HTTP parser's limit (16 KiB); the connection is closed",
  },
  unsupported_media_type: { status: 415, when: 'a body that is not application/json' },
  rate_limited: { status: 429, when: 'too many requests in the window' },
  internal_error: {
    status: 500,
    when: 'an unexpected failure (a bug; logged with the request id); the message carries no secrets',
  },
  database_unavailable: {
    status: 503,
    when:
      'the database server (PostgreSQL, ORACLEKIT_DATABASE_URL; the message names its host, port and database, ' +
      'never a password) cannot be reached now; the request was not acknowledged — retry shortly (a create with ' +
      'its Idempotency-Key: a COMMIT whose answer the broken connection lost may have been applied); the pool reconnects by itself',
  },
  ...STORAGE_FAULTS,
} as const satisfies ErrorTable;

type HttpErrorCode = keyof typeof HTTP_ERRORS;

/**
 * What toErrorBody reads of an error thrown by the HTTP framework (fastify's FastifyError, duck-typed: src/lib imports
 * no framework).
 */
interface HttpFrameworkError {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
  validation?: { keyword?: string; instancePath?: string; message?: string; params?: Record<string, unknown> }[];
  validationContext?: string;
}

function httpBody(code: HttpErrorCode, message: string, extra: Partial<ErrorBody> = {}): ErrorBody {
  return { statusCode: HTTP_ERRORS[code].status, code, message, ...extra };
}

/**
 * THE mapper from any error to the wire body {statusCode, code, message,
 * field?, details?}, shared by every HTTP scope (and the runtime's socket.io
 * handshake): an OracleKitError keeps its own body; a framework error gets
 * the one HTTP_ERRORS code of its fault; anything else is a 500
 * internal_error whose message says nothing of the cause (log the error).
 */
export function toErrorBody(err: unknown): ErrorBody {
  if (isOracleKitError(err)) return err.toBody();
  const e = (typeof err === 'object' && err !== null ? err : {}) as HttpFrameworkError;
  if (Array.isArray(e.validation) && e.validation.length > 0) {
    const v = e.validation[0]!;
    // an area's rule run inside the schema carries its own body (src/daemon/registry/inputs.ts, areaRule)
    const carried = (v.params?.params as { error?: ErrorBody } | undefined)?.error;
    if (carried && typeof carried.statusCode === 'number' && typeof carried.code === 'string') return carried;
    const path = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const ctx = e.validationContext ?? 'body';
    if (v.keyword === 'unrecognized_keys') {
      const keys = (v.params?.keys as string[] | undefined) ?? [];
      const field = [path, keys[0]].filter(Boolean).join('.');
      return httpBody('unknown_field', `${ctx} field ${field} is not known`, { field, details: { unknown: keys } });
    }
    const code: HttpErrorCode =
      ctx === 'querystring' ? 'invalid_query' : ctx === 'headers' ? 'invalid_header' : 'invalid_body';
    const field = path || ctx;
    return httpBody(code, `${field}: ${v.message ?? 'invalid'}`, {
      field,
      details: { issues: e.validation.slice(0, 5).map((i) => ({ path: i.instancePath, message: i.message })) },
    });
  }
  const message = typeof e.message === 'string' ? e.message : '';
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return httpBody('body_too_large', 'the request body is over the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return httpBody('unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return httpBody('invalid_body', 'the body is not as long as its Content-Length says');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return httpBody('invalid_json', 'the body is empty; send a JSON object (or no Content-Type)');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return httpBody('invalid_json', 'the body is not valid JSON, or holds __proto__ or constructor.prototype');
    case 'FST_ERR_BAD_URL':
      return httpBody(
        'invalid_url',
        'the URL is not valid percent-encoding (encode each byte of a path segment as %XX of UTF-8)',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return httpBody('url_too_long', 'a path parameter is over 8192 characters');
    // what the HTTP parser refuses before there is a request (an HTTP server's clientError)
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpBody('request_timeout', 'the request did not arrive in time; the connection is closed');
    case 'HPE_HEADER_OVERFLOW':
      return httpBody('headers_too_large', 'the request line and headers are over 16 KiB; the connection is closed');
  }
  if (typeof e.code === 'string' && e.code.startsWith('HPE_'))
    return httpBody('bad_request', 'the request is not valid HTTP; the connection is closed');
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    if (err instanceof SyntaxError) return httpBody('invalid_json', `the body is not JSON: ${message}`);
    if (status === 401) return httpBody('unauthenticated', message || 'authentication needed');
    if (status === 403) return httpBody('forbidden', message || 'forbidden');
    if (status === 404) return httpBody('not_found', message || 'not found');
    if (status === 413) return httpBody('body_too_large', 'the request body is over the limit');
    if (status === 415) return httpBody('unsupported_media_type', 'send the body as application/json');
    if (status === 429) return httpBody('rate_limited', message || 'too many requests; slow down');
    // any other malformed request
    return { statusCode: status, code: 'invalid_body', message };
  }
  return httpBody('internal_error', 'internal error; see the log with the request id');
}

/**
 * Storage's own codes: refusals when a database is opened (src/storage/files.ts, sqlite.ts) — the daemon exits
 * with the message, the runtime with a `[boot-error]` line — and the faults of a database in use.
 */
export const STORAGE_ERRORS = {
  insecure_database_dir: {
    status: 400,
    when:
      "the database's directory is writable by other users (mode o+w): they could replace or read the " +
      'database, its -wal and -shm files',
  },
  database_corrupt: {
    status: 500,
    when: 'the SQLite file fails its integrity check (PRAGMA quick_check) when it is opened: it is not served',
  },
  ...STORAGE_FAULTS,
} as const satisfies ErrorTable;

export const storageError = messageErrorFactory(STORAGE_ERRORS);
