/**
 * The one typed client of the registry API (registry.md), shared by the CLI
 * (src/cli/registry) and the runtime's domains plugin, on the one outbound
 * request (fetchJson, src/lib/fetch-json.ts).
 *
 * - `requestJson` sends one JSON request and returns status, headers and the
 *   parsed body whatever the status; a server that cannot be reached (refused,
 *   DNS, time-out, abort) is an OracleKitError 503 `unavailable` whose
 *   details say why (`reason`: unreachable, timeout, aborted).
 * - `errorFromReply` turns a non-2xx reply into an OracleKitError carrying
 *   the server's body {statusCode, code, message, field?, details?}.
 * - `RegistryClient` is the typed client: one method per route, each
 *   returning the wire type of src/lib/registry/types.ts and throwing the
 *   server's error on a non-2xx.
 */
import { OracleKitError, messageErrorFactory, type ErrorBody } from '../errors.ts';
import { fetchJson, type FetchJsonReply } from '../fetch-json.ts';
import { REGISTRY_CLIENT_ERRORS } from './errors.ts';
import type {
  KeyCreated,
  DesignRecord,
  DomainView,
  PublicDomainView,
  KeyInfo,
  Page,
  ProposalView,
  KeyRevoked,
  VerificationView,
} from './types.ts';

const clientError = messageErrorFactory(REGISTRY_CLIENT_ERRORS);

interface HttpRequest {
  method: string;
  url: string | URL;
  body?: unknown;
  /** Sent as Authorization: Bearer … */
  bearer?: string;
  headers?: Record<string, string>;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Who answers, for messages ("the local daemon", "the devnet registry"); the URL's origin is added. */
  what: string;
}

type HttpReply<T> = FetchJsonReply<T>;

/**
 * One JSON request to the registry or another server the CLI talks to (fetchJson); never throws on an HTTP
 * status, and a server that cannot be reached is 503 `unavailable` (the CLI's exit 9).
 */
export function requestJson<T = unknown>(r: HttpRequest): Promise<HttpReply<T>> {
  return fetchJson<T>({
    ...r,
    what: `${r.what} at ${new URL(r.url).origin}`,
    fail: (f) => clientError('unavailable', f.message, { details: f.details }),
  });
}

/**
 * The server's error body as an OracleKitError (its status, code, message, field, details); `context` prefixes the
 * message, `hint` ends it.
 */
export function errorFromReply(reply: HttpReply<unknown>, context?: string, hint?: string): OracleKitError {
  const b = (reply.body !== null && typeof reply.body === 'object' ? reply.body : {}) as Partial<ErrorBody>;
  const hasBody = typeof b.code === 'string';
  const message =
    typeof b.message === 'string'
      ? b.message
      : reply.text && !hasBody
        ? `HTTP ${reply.status}: ${reply.text.slice(0, 200)}`
        : `HTTP ${reply.status}`;
  return new OracleKitError({
    status: reply.status,
    code: hasBody ? b.code! : 'http_error',
    message: (context ? `${context}: ${message}` : message) + (hint ? ` — ${hint}` : ''),
    ...(typeof b.field === 'string' ? { field: b.field } : {}),
    ...(b.details && typeof b.details === 'object' ? { details: b.details } : {}),
  });
}

interface RegistryClientOptions {
  /** Base URL of the registry (the daemon's origin, or a remote registry), without /v1. */
  baseUrl: string;
  /** API key (Bearer) of the caller. */
  apiKey?: string;
  /** The local daemon's discovery token, sent instead of the key on admin routes. */
  adminToken?: string;
  timeoutMs?: number;
  /** Who answers, for messages (default "the registry"). */
  what?: string;
  /** Appended to the message of a 401 (how to get a key). */
  unauthorizedHint?: string;
}

interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  /** Send the admin token instead of the API key. */
  admin?: boolean;
  signal?: AbortSignal;
  /** Statuses that count as success (default: any 2xx). */
  ok?: (status: number) => boolean;
}

interface DomainFilters {
  type?: string;
  /** The state (the route's query parameter is `status`). */
  status?: string;
  controller?: string;
  class?: string;
  q?: string;
  limit?: number;
  cursor?: string;
}

const encodeDid = (did: string) => encodeURIComponent(did);

export class RegistryClient {
  readonly baseUrl: string;
  readonly apiKey?: string;
  private readonly o: RegistryClientOptions;

  constructor(o: RegistryClientOptions) {
    this.o = o;
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    if (o.apiKey) this.apiKey = o.apiKey;
  }

  get what(): string {
    return this.o.what ?? 'the registry';
  }

  /** One request; the raw reply whatever its status. */
  async request<T = unknown>(method: string, path: string, c: CallOptions = {}): Promise<HttpReply<T>> {
    const u = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(c.query ?? {}))
      if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    const bearer = c.admin && this.o.adminToken ? this.o.adminToken : this.o.apiKey;
    return requestJson<T>({
      method,
      url: u,
      body: c.body,
      headers: c.headers,
      what: this.what,
      ...(bearer ? { bearer } : {}),
      ...(this.o.timeoutMs ? { timeoutMs: this.o.timeoutMs } : {}),
      ...(c.signal ? { signal: c.signal } : {}),
    });
  }

  /** One request; the body of a success, else the server's error. */
  async call<T = unknown>(method: string, path: string, c: CallOptions = {}): Promise<T> {
    const r = await this.request<T>(method, path, c);
    if (c.ok ? c.ok(r.status) : r.status >= 200 && r.status < 300) return r.body;
    const e = errorFromReply(r);
    if (r.status === 401 && this.o.unauthorizedHint) throw errorFromReply(r, undefined, this.o.unauthorizedHint);
    throw e;
  }

  // ---- domains (registry.md "Domains")
  listDomains(f: DomainFilters = {}, signal?: AbortSignal): Promise<Page<DomainView>> {
    return this.call('GET', '/v1/domains', { query: { ...f }, ...(signal ? { signal } : {}) });
  }
  getDomain(did: string, signal?: AbortSignal): Promise<DomainView> {
    return this.call('GET', `/v1/domains/${encodeDid(did)}`, signal ? { signal } : {});
  }
  /** The public part of a domain (services, type, state), readable without a key and from any origin. */
  getPublicDomain(did: string, signal?: AbortSignal): Promise<PublicDomainView> {
    return this.call('GET', `/public/v1/domains/${encodeDid(did)}`, signal ? { signal } : {});
  }
  registerDomain(body: Record<string, unknown>, idempotencyKey?: string): Promise<DomainView> {
    return this.call('POST', '/v1/domains', {
      body,
      ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
    });
  }
  /** PATCH with If-Match on `version` (412 stale_version when it moved on). */
  updateDomain(did: string, body: Record<string, unknown>, version: number): Promise<DomainView> {
    return this.call('PATCH', `/v1/domains/${encodeDid(did)}`, { body, headers: { 'if-match': `"${version}"` } });
  }
  deactivateDomain(did: string): Promise<DomainView> {
    return this.call('POST', `/v1/domains/${encodeDid(did)}/deactivate`);
  }
  verification(did: string, signal?: AbortSignal): Promise<VerificationView> {
    return this.call('GET', `/v1/domains/${encodeDid(did)}/verification-proposals`, signal ? { signal } : {});
  }
  propose(did: string, body: { package: unknown; description?: string }): Promise<ProposalView> {
    return this.call('POST', `/v1/domains/${encodeDid(did)}/verification-proposals`, { body });
  }
  vote(proposalId: string, option: string): Promise<ProposalView> {
    return this.call('POST', `/v1/proposals/${encodeURIComponent(proposalId)}/votes`, { body: { option } });
  }

  // ---- sample designs (sampling.md "Stored designs")
  /** POST /v1/sampling: the sampling inputs plus projectId; the stored record. */
  saveDesign(input: Record<string, unknown>, projectId: string, idempotencyKey?: string): Promise<DesignRecord> {
    return this.call('POST', '/v1/sampling', {
      body: { ...input, projectId },
      ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
    });
  }
  getDesign(designId: string): Promise<DesignRecord> {
    return this.call('GET', `/v1/sampling/${encodeURIComponent(designId)}`);
  }
  listDesigns(f: { projectId?: string; limit?: number; cursor?: string } = {}): Promise<Page<DesignRecord>> {
    return this.call('GET', '/v1/sampling', { query: { ...f } });
  }
  setDesignVerification(
    designId: string,
    body: { status: 'submitted' | 'approved' | 'rejected'; reason?: string },
  ): Promise<DesignRecord> {
    return this.call('POST', `/v1/sampling/${encodeURIComponent(designId)}/verification`, { body });
  }

  // ---- API keys (admin routes; the local daemon's token or an admin key)
  createKey(body: {
    did: string;
    roles: string[];
    label?: string;
    proof?: { challenge: string; signature: string };
  }): Promise<KeyCreated> {
    return this.call('POST', '/admin/v1/keys', { body, admin: true });
  }
  listKeys(): Promise<{ items: KeyInfo[] }> {
    return this.call('GET', '/admin/v1/keys', { admin: true });
  }
  revokeKey(id: string): Promise<KeyRevoked> {
    return this.call('POST', `/admin/v1/keys/${encodeURIComponent(id)}/revoke`, { admin: true });
  }
}
