/**
 * The one DID → URL resolver: an oracle's DID to its API and socket URLs,
 * through the registry's public read of the domain record
 * (`GET /public/v1/domains/:did`: services, type, state; no key, CORS open to
 * any origin, so a browser can do it). The API URL is the service `#api`, the
 * socket URL `#ws` (default `#api`); an id may be written relative (`#api`)
 * or absolute (`did:…#api`).
 *
 * Failures name the registry, never the oracle: unreachable (down, or in a
 * browser a CORS refusal) is OracleUnreachableError with `server: 'registry'`;
 * a reply with an error status keeps the registry's code (`domain_not_found`
 * 404, …) with a message that says which registry answered what.
 */
import { RegistryClient } from '../lib/registry/client.ts';
import { isOracleKitError } from '../lib/errors.ts';
import type { PublicDomainView, Service } from '../lib/registry/types.ts';
import { OracleClientError, OracleUnreachableError } from './errors.ts';

export type { Service };

export interface ResolvedOracle {
  did: string;
  apiUrl: string;
  wsUrl: string;
  services: Service[];
  /** The domain's state in the registry ('verified', 'registered', …). */
  state?: string;
}

export interface ResolveOptions {
  /** The registry's client (the CLI passes the one its registry commands use). */
  registry?: RegistryClient;
  /** Else the registry's base URL (without /v1). */
  registryUrl?: string;
  signal?: AbortSignal;
}

export function isDid(s: string): boolean {
  return /^did:[a-z0-9]+:.+/.test(s);
}

function findService(services: Service[], frag: string): Service | undefined {
  return services.find((s) => s.id === frag || s.id.endsWith(frag));
}

/**
 * An oracle's API and socket URLs from the registry's public record of its DID (no key needed).
 * @example
 * const { apiUrl, wsUrl } = await resolveOracleDid('did:ixo:entity:…', { registryUrl: 'http://127.0.0.1:4100' });
 */
export async function resolveOracleDid(did: string, o: ResolveOptions): Promise<ResolvedOracle> {
  const registry = o.registry ?? (o.registryUrl ? new RegistryClient({ baseUrl: o.registryUrl }) : undefined);
  if (!registry)
    throw new OracleClientError(
      400,
      'registry_required',
      `resolving ${did} needs a registry: registryUrl (or overrides.baseUrl to skip the lookup)`,
    );
  let record: PublicDomainView;
  try {
    record = await registry.getPublicDomain(did, o.signal);
  } catch (e) {
    throw registryFailure(registry.baseUrl, did, e);
  }
  const services = (record.services ?? []).filter(
    (s) => s && typeof s.id === 'string' && typeof s.serviceEndpoint === 'string',
  );
  const api = findService(services, '#api');
  if (!api)
    throw new OracleClientError(
      404,
      'no_api_service',
      `the domain ${did} has no #api service; register the oracle's URL as a service {id:'#api', type:'oracleService', serviceEndpoint}`,
    );
  const ws = findService(services, '#ws');
  return {
    did,
    apiUrl: api.serviceEndpoint,
    wsUrl: ws?.serviceEndpoint ?? api.serviceEndpoint,
    services,
    ...(record.state ? { state: record.state } : {}),
  };
}

/** The registry client's error as the client's, naming the registry and why it failed. */
function registryFailure(url: string, did: string, e: unknown): Error {
  if (!isOracleKitError(e)) return e as Error;
  const details = (e.details ?? {}) as { reason?: string; error?: string; cause?: string };
  if (e.code === 'unavailable' && details.reason !== 'aborted')
    return new OracleUnreachableError(url, { message: details.cause ?? details.error ?? e.message }, 'registry');
  const why =
    e.status === 401 || e.status === 403
      ? `it answered ${e.status} (${e.message}): it serves no public domain records without an API key`
      : `it answered ${e.status} (${e.message})`;
  return new OracleClientError(e.status, e.code, `the registry at ${url} could not resolve ${did}: ${why}`, {
    code: e.code,
    message: e.message,
  });
}
