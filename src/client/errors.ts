/**
 * Errors of the headless client. Every failed HTTP reply of the runtime is
 * `{statusCode, code, message, ...details}` (protocol.md, "Conventions"); the
 * client keeps that body whole.
 *
 * Each class carries a `Symbol.for` marker and a static `isInstance`, as the
 * AI SDK's errors do: `instanceof` fails when an app bundles two copies of
 * this package (or `oraclekit/client` next to `@oraclekit/client`), the
 * registry-wide symbol does not.
 */
const CLIENT = Symbol.for('oraclekit.client.error');
const PAYMENT = Symbol.for('oraclekit.client.error.payment_required');
const UNREACHABLE = Symbol.for('oraclekit.client.error.unreachable');

function marked(e: unknown, marker: symbol): boolean {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[marker] === true;
}

export class OracleClientError extends Error {
  readonly [CLIENT] = true;
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;
  constructor(status: number, code: string, message: string, body: Record<string, unknown> = {}) {
    super(message);
    this.name = 'OracleClientError';
    this.status = status;
    this.code = code;
    this.body = body;
  }

  /** True for an OracleClientError (or subclass) from any copy of the package. */
  static isInstance(e: unknown): e is OracleClientError {
    return marked(e, CLIENT);
  }
}

/** HTTP 402: the oracle wants payment; `claims` are the claim ids to pay. */
export class PaymentRequiredError extends OracleClientError {
  readonly [PAYMENT] = true;
  readonly claims: string[];
  readonly outstandingClaims: unknown[];
  constructor(message: string, claims: string[], outstandingClaims: unknown[], body: Record<string, unknown>) {
    super(402, 'payment_required', message, body);
    this.name = 'PaymentRequiredError';
    this.claims = claims;
    this.outstandingClaims = outstandingClaims;
  }

  static override isInstance(e: unknown): e is PaymentRequiredError {
    return marked(e, PAYMENT);
  }
}

/** Which server a request went to: the oracle itself or the registry that resolves its DID. */
type ServerRole = 'oracle' | 'registry';

/**
 * A server could not be reached: connection refused, DNS, reset before a
 * reply, or (in a browser) a reply the page may not read because the server
 * does not allow its origin (CORS). A browser reports all of these the same
 * way, so the message names both causes.
 */
export class OracleUnreachableError extends OracleClientError {
  readonly [UNREACHABLE] = true;
  readonly url: string;
  readonly server: ServerRole;
  constructor(url: string, cause: unknown, server: ServerRole = 'oracle') {
    super(0, `${server}_unreachable`, unreachableMessage(url, cause, server));
    this.name = 'OracleUnreachableError';
    this.url = url;
    this.server = server;
  }

  static override isInstance(e: unknown): e is OracleUnreachableError {
    return marked(e, UNREACHABLE);
  }
}

function unreachableMessage(url: string, cause: unknown, server: ServerRole): string {
  const why = describe(cause);
  const browser = typeof window !== 'undefined' && /failed to fetch|networkerror|load failed/i.test(why);
  const hint = browser ? `: it is down, or it does not allow this page's origin (CORS)` : ` (${why})`;
  return `the ${server} at ${url} is unreachable${hint}`;
}

function describe(e: unknown): string {
  const c = (e as { cause?: { code?: string; message?: string } })?.cause;
  if (c?.code) return c.code;
  if (c?.message) return c.message;
  const m = (e as { message?: unknown })?.message;
  return typeof m === 'string' ? m : String(e);
}

export async function errorFromResponse(res: Response): Promise<OracleClientError> {
  let body: Record<string, unknown> = {};
  const text = await res.text().catch(() => '');
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = { message: text };
  }
  const code = typeof body.code === 'string' ? body.code : `http_${res.status}`;
  const message = typeof body.message === 'string' && body.message ? body.message : `HTTP ${res.status}`;
  if (res.status === 402) {
    const claims = Array.isArray(body.claims) ? body.claims.map(String) : [];
    const outstanding = Array.isArray(body.outstandingClaims) ? body.outstandingClaims : [];
    return new PaymentRequiredError(message, claims, outstanding, body);
  }
  return new OracleClientError(res.status, code, message, body);
}
