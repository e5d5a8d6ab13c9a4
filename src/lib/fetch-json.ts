/**
 * The one outbound JSON request of the package: the registry client (and so
 * the CLI), the runtime's plugins and its model probe, the drand relays of
 * `sample select beacon`, the daemon's health probes and the live-call
 * plugin's speech services send their HTTP calls through it (the browser
 * client has its own, OracleClient). A caller that reads the reply itself, as a
 * stream, sends through `fetchOutbound` (the MCP plugins' transport does).
 * A few calls are not JSON both ways (a speech service takes a multipart
 * upload or answers audio): `form` sends a form as it is, `binary` reads the
 * reply as bytes; the time-out and the failures are the same.
 *
 * - every call has a time-out (default 30 s), merged with the caller's abort
 *   signal;
 * - it never throws on an HTTP status: the reply carries the status, the
 *   headers, the text and the body (parsed JSON, else the text, undefined when
 *   empty), and `json` says whether the text was JSON;
 * - a call that gets no answer (refused, unknown host, time-out, aborted)
 *   throws 502 `upstream_error` naming who did not answer, with the reason in
 *   its details; a caller whose area has its own code for that (the registry
 *   client's 503 `unavailable`) passes `fail`.
 *
 * `fetchOk` is the same call for a caller that wants only a 2xx reply: any
 * other status throws one shape, 502 `upstream_error` naming who answered,
 * the status and the upstream's own message (what a plugin's `ctx.fetch`
 * does).
 *
 * The transport is the platform's `fetch` unless a Node process installs its
 * own with `setOutboundTransport` (runtime/outbound.ts: undici with connect,
 * headers and body time-outs and keep-alive, installed by the runtime, the
 * daemon and the CLI), so this module stays pure and runs in browsers too; a
 * caller may pass another `fetch` per call.
 */
import type { OracleKitError } from './errors.ts';
import { runtimeError } from './protocol/errors.ts';

export type FetchFailureReason = 'timeout' | 'aborted' | 'unreachable';

/** Why a call got no answer. */
export interface FetchFailure {
  reason: FetchFailureReason;
  /**
   * One sentence naming who did not answer: "<what> did not answer within N ms", "the call to <what> was
   * aborted", "cannot reach <what>: <cause>".
   */
  message: string;
  /**
   * What goes into an error's details: the URL without its query (it may carry a key), the time-out, the reason, the
   * cause.
   */
  details: { url: string; timeoutMs: number; reason: FetchFailureReason; error?: string; cause?: string };
  /** The error fetch threw (an abort's own error, for callers that rethrow it). */
  error: unknown;
}

export interface FetchJsonRequest {
  /** Default GET. */
  method?: string;
  url: string | URL;
  /** Set on the URL's search parameters; undefined and empty values are left out. */
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON (content-type application/json unless `headers` says otherwise). */
  body?: unknown;
  /** Sent as multipart/form-data instead of `body` (the platform sets the content type and its boundary). */
  form?: FormData;
  /** The reply's body is binary (audio): `bytes` carries a 2xx reply's body, `text` a failed one's. */
  binary?: boolean;
  /** Sent as Authorization: Bearer … */
  bearer?: string;
  headers?: Record<string, string>;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Who answers, for messages ("the weather service", "the devnet registry at https://…"). */
  what: string;
  /** The error thrown when no answer came; default 502 upstream_error with the failure's message and details. */
  fail?: (f: FetchFailure) => Error;
  /** The transport; default the platform's fetch. */
  fetch?: typeof fetch;
}

export interface FetchJsonReply<T> {
  status: number;
  /** A 2xx status. */
  ok: boolean;
  headers: Headers;
  /** The parsed JSON; the text when it is not JSON; undefined when the body is empty. */
  body: T;
  /** Whether the body was JSON. */
  json: boolean;
  text: string;
  /** A 2xx reply's body, with `binary`. */
  bytes?: Uint8Array;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Where the installed transport is kept: on the global object, so that a second copy of this module in the process (a
 * plugin package that resolved oraclekit on its own) sends through the same transport, and the same connections.
 */
const TRANSPORT = Symbol.for('oraclekit.outbound-transport');
const installed = globalThis as { [TRANSPORT]?: typeof fetch };

/** Sets the transport every call uses unless it passes its own `fetch` (undefined: the platform's fetch again). */
export function setOutboundTransport(f: typeof fetch | undefined): void {
  installed[TRANSPORT] = f;
}

/** The transport of a call: its own, else the installed one, else the platform's fetch. */
function transportOf(f: typeof fetch | undefined): typeof fetch {
  return f ?? installed[TRANSPORT] ?? fetch;
}

/** The low-level reason of a failed fetch ("ECONNREFUSED", "getaddrinfo ENOTFOUND …"), if any. */
export function fetchCause(e: unknown): string | undefined {
  let c = (e as { cause?: unknown })?.cause as
    { code?: string; message?: string; errors?: { code?: string }[]; cause?: unknown } | undefined;
  for (let i = 0; c && i < 3; i++) {
    if (c.code) return c.code;
    if (Array.isArray(c.errors) && c.errors[0]?.code) return c.errors[0].code;
    if (c.message) return c.message;
    c = c.cause as typeof c;
  }
  return undefined;
}

/** The default failure when no answer came: 502 upstream_error (a caller's `fail` may fall back on it). */
export function upstreamError(f: FetchFailure): OracleKitError {
  return runtimeError('upstream_error', f.message, { details: f.details });
}

/** One JSON request; never throws on an HTTP status, only when no answer came (see `fail`). */
export async function fetchJson<T = unknown>(r: FetchJsonRequest): Promise<FetchJsonReply<T>> {
  const url = new URL(r.url);
  for (const [k, v] of Object.entries(r.query ?? {}))
    if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
  const headers: Record<string, string> = r.binary ? {} : { accept: 'application/json' };
  if (r.bearer) headers.authorization = `Bearer ${r.bearer}`;
  if (r.body !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, r.headers);
  const timeoutMs = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await transportOf(r.fetch)(url, {
      method: r.method ?? 'GET',
      headers,
      body: r.form ?? (r.body === undefined ? undefined : JSON.stringify(r.body)),
      signal: r.signal ? AbortSignal.any([timeout, r.signal]) : timeout,
    });
  } catch (e) {
    throw (r.fail ?? upstreamError)(failure(r.what, r.signal, url, timeoutMs, timeout, e));
  }
  if (r.binary && res.ok) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      throw (r.fail ?? upstreamError)(failure(r.what, r.signal, url, timeoutMs, timeout, e)); // cut off mid-body
    }
    return { status: res.status, ok: true, headers: res.headers, body: undefined as T, json: false, text: '', bytes };
  }
  const text = await res.text().catch(() => '');
  let body: unknown = text === '' ? undefined : text;
  let json = false;
  if (text !== '') {
    try {
      body = JSON.parse(text);
      json = true;
    } catch {
      // not JSON: the body is the text
    }
  }
  return { status: res.status, ok: res.ok, headers: res.headers, body: body as T, json, text };
}

/** How often one origin is preconnected at most, per transport (ms). */
const PRECONNECT_EVERY_MS = 2_000;
/** How long a preconnect's request may take (ms): a service that never answers holds it no longer. */
const PRECONNECT_TIMEOUT_MS = 10_000;
/** Origins remembered per transport: past this many, the least recently preconnected is forgotten. */
const PRECONNECT_ORIGINS = 64;
/** When each origin was last preconnected, per transport. */
const preconnected = new WeakMap<typeof fetch, Map<string, number>>();

/**
 * Opens a connection to `url`'s origin ahead of a request that must not wait for one: a new connection to a provider
 * costs a TCP and a TLS handshake, a round trip each, before the request is sent. It sends an OPTIONS request to
 * `url` (safe, without a body or credentials) and reads its reply whatever its status; a transport that keeps
 * connections alive (the runtime's) keeps this one for the request that follows. Not HEAD: undici closes a connection
 * after a HEAD request, in case the server sent a body with its reply. Sent at most once every 2 s for one origin on
 * one transport; never throws (the request that follows reports what is wrong with the service).
 */
export function preconnect(url: string | URL, o: { fetch?: typeof fetch } = {}): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
  const f = transportOf(o.fetch);
  let last = preconnected.get(f);
  if (!last) preconnected.set(f, (last = new Map()));
  const now = performance.now();
  const at = last.get(u.origin);
  if (at !== undefined && now - at < PRECONNECT_EVERY_MS) return;
  last.delete(u.origin);
  last.set(u.origin, now);
  if (last.size > PRECONNECT_ORIGINS) last.delete(last.keys().next().value!);
  void f(u, { method: 'OPTIONS', signal: AbortSignal.timeout(PRECONNECT_TIMEOUT_MS) })
    .then((res) => res.arrayBuffer())
    .catch(() => {});
}

/** A request for fetchOk: statuses besides 2xx the caller reads itself (a 404 that means "none") go in `accept`. */
export interface FetchOkRequest extends FetchJsonRequest {
  accept?: number[];
}

/**
 * The upstream's own words of a failed reply, at most 300 characters: `error.message` (with `error.suggested_fix`
 * in brackets when there is one), `error` (a string), `message`, Matrix's `errcode: error`, else the text.
 */
export function upstreamMessage(body: unknown, text: string): string {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const e = b.error;
  const eo = (typeof e === 'object' && e !== null ? e : {}) as { message?: unknown; suggested_fix?: unknown };
  const m =
    (typeof eo.message === 'string'
      ? typeof eo.suggested_fix === 'string' && eo.suggested_fix
        ? `${eo.message} (${eo.suggested_fix})`
        : eo.message
      : undefined) ??
    (typeof e === 'string' ? (typeof b.errcode === 'string' ? `${b.errcode}: ${e}` : e) : undefined) ??
    (typeof b.message === 'string' ? b.message : undefined) ??
    text;
  return m.trim().slice(0, 300);
}

/**
 * The one error of a reply with a status the caller did not want: 502 upstream_error, "<what> answered HTTP
 * <status>: <its message>", with the status, the upstream's code when it sent one (`errcode`, `code` or
 * `error.code`: Matrix's M_… codes, Composio's numbers), and the URL without its query.
 */
export function upstreamReplyError(what: string, url: string | URL, reply: FetchJsonReply<unknown>): OracleKitError {
  const u = new URL(url);
  const said = upstreamMessage(reply.body, reply.text);
  const b = (typeof reply.body === 'object' && reply.body !== null ? reply.body : {}) as Record<string, unknown>;
  const e = (typeof b.error === 'object' && b.error !== null ? b.error : {}) as { code?: unknown };
  const code = [b.errcode, b.code, e.code].find((c) => typeof c === 'string' || typeof c === 'number');
  const hint =
    reply.status === 401 || reply.status === 403 ? ' (the credentials are missing, invalid or lack access)' : '';
  return runtimeError('upstream_error', `${what} answered HTTP ${reply.status}${hint}${said ? `: ${said}` : ''}`, {
    details: {
      upstreamStatus: reply.status,
      url: u.origin + u.pathname,
      ...(code !== undefined ? { upstreamCode: code } : {}),
      ...(reply.status === 429 && reply.headers.get('retry-after')
        ? { retryAfter: reply.headers.get('retry-after') }
        : {}),
    },
  });
}

/**
 * fetchJson for a caller that wants a 2xx reply (or one of `accept`): any other status throws upstreamReplyError; a
 * 2xx reply that should be JSON (not `binary`, not empty) and is not throws 502 upstream_error too.
 */
export async function fetchOk<T = unknown>(r: FetchOkRequest): Promise<FetchJsonReply<T>> {
  const res = await fetchJson<T>(r);
  if (!res.ok && !(r.accept ?? []).includes(res.status)) throw upstreamReplyError(r.what, r.url, res);
  if (res.ok && !r.binary && res.text !== '' && !res.json)
    throw runtimeError('upstream_error', `${r.what} answered with a body that is not JSON`, {
      details: { upstreamStatus: res.status, url: new URL(r.url).origin + new URL(r.url).pathname },
    });
  return res;
}

/** Who answers, the time-out, the error when no answer came, the transport: as in FetchJsonRequest. */
type OutboundOptions = Pick<FetchJsonRequest, 'what' | 'timeoutMs' | 'fail' | 'fetch'>;

/**
 * A request whose reply the caller reads itself, as a stream (the MCP SDK's transport takes it as its `fetch`): sent
 * as fetchJson sends, with the time-out running until the reply's status and headers come (a stream stays open after
 * them), merged with the request's own signal, and the same error when no answer came (502 upstream_error unless
 * `fail`).
 */
export async function fetchOutbound(input: string | URL, init: RequestInit, o: OutboundOptions): Promise<Response> {
  const url = new URL(input);
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = new AbortController();
  const t = setTimeout(
    () => timer.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const own = init.signal ?? undefined;
  try {
    return await transportOf(o.fetch)(input, {
      ...init,
      signal: own ? AbortSignal.any([timer.signal, own]) : timer.signal,
    });
  } catch (e) {
    throw (o.fail ?? upstreamError)(failure(o.what, own, url, timeoutMs, timer.signal, e));
  } finally {
    clearTimeout(t);
  }
}

function failure(
  what: string,
  signal: AbortSignal | undefined,
  url: URL,
  timeoutMs: number,
  timeout: AbortSignal,
  e: unknown,
): FetchFailure {
  const at = { url: url.origin + url.pathname, timeoutMs };
  if (timeout.aborted)
    return {
      reason: 'timeout',
      message: `${what} did not answer within ${timeoutMs} ms`,
      details: { ...at, reason: 'timeout' },
      error: e,
    };
  if (signal?.aborted)
    return {
      reason: 'aborted',
      message: `the call to ${what} was aborted`,
      details: { ...at, reason: 'aborted' },
      error: e,
    };
  const error = (e as Error)?.message ?? String(e);
  const cause = fetchCause(e);
  return {
    reason: 'unreachable',
    message: `cannot reach ${what}: ${cause ?? error}`,
    details: { ...at, reason: 'unreachable', error, ...(cause ? { cause } : {}) },
    error: e,
  };
}
