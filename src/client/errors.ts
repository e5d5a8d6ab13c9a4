/**
 * Errors of the headless client. Every failed HTTP reply of the runtime is
 * `{statusCode, code, message, ...details}` (protocol.md, "Conventions"); the
 * client keeps that body whole.
 */
export class OracleClientError extends Error {
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
}

/** HTTP 402: the oracle wants payment; `claims` are the claim ids to pay. */
export class PaymentRequiredError extends OracleClientError {
  readonly claims: string[];
  readonly outstandingClaims: unknown[];
  constructor(message: string, claims: string[], outstandingClaims: unknown[], body: Record<string, unknown>) {
    super(402, 'payment_required', message, body);
    this.name = 'PaymentRequiredError';
    this.claims = claims;
    this.outstandingClaims = outstandingClaims;
  }
}

/** The oracle could not be reached (connection refused, DNS, reset before a reply). */
export class OracleUnreachableError extends OracleClientError {
  constructor(url: string, cause: unknown) {
    super(0, 'oracle_unreachable', `the oracle at ${url} is unreachable (${describe(cause)})`);
    this.name = 'OracleUnreachableError';
  }
}

function describe(e: unknown): string {
  const c = (e as { cause?: { code?: string; message?: string } })?.cause;
  if (c?.code) return c.code;
  if (c?.message) return c.message;
  return e instanceof Error ? e.message : String(e);
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
