/**
 * Resolving an oracle's DID to its URLs through the registry, with the one
 * typed registry client (src/lib/registry/client.ts): the domain record
 * (`GET /v1/domains/:did`) lists services; the oracle's API URL is the
 * service `#api`, its socket URL `#ws` (registry.md; `#ws` defaults to
 * `#api`). An id may be written relative (`#api`) or absolute (`did:…#api`).
 *
 * The registry's errors arrive as the client throws them (OracleKitError
 * with the server's body: `domain_not_found` 404, `unauthenticated` 401, …;
 * `unavailable` 503 when it cannot be reached).
 */
import { RegistryClient } from '../lib/registry/client.ts';
import type { DomainView, Service } from '../lib/registry/types.ts';
import { OracleClientError } from './errors.ts';

export type { Service };

export interface ResolvedOracle {
  did: string;
  apiUrl: string;
  wsUrl: string;
  services: Service[];
}

export interface ResolveOptions {
  /** The registry's client (the CLI passes the one its registry commands use: same registry, same key). */
  registry?: RegistryClient;
  /** Else the registry's base URL (without /v1) … */
  registryUrl?: string;
  /** … and the API key to read it with. */
  apiKey?: string;
  signal?: AbortSignal;
}

export function isDid(s: string): boolean {
  return /^did:[a-z0-9]+:.+/.test(s);
}

function findService(services: Service[], frag: string): Service | undefined {
  return services.find((s) => s.id === frag || s.id.endsWith(frag));
}

export async function resolveOracleDid(did: string, o: ResolveOptions): Promise<ResolvedOracle> {
  const registry =
    o.registry ??
    (o.registryUrl
      ? new RegistryClient({ baseUrl: o.registryUrl, ...(o.apiKey ? { apiKey: o.apiKey } : {}) })
      : undefined);
  if (!registry)
    throw new OracleClientError(
      400,
      'registry_required',
      `resolving ${did} needs a registry (its client, or registryUrl)`,
    );
  const record = (await registry.getDomain(did, o.signal)) as Partial<DomainView> & {
    domain?: { services?: Service[] };
  };
  const services = (record.services ?? record.domain?.services ?? []).filter(
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
  return { did, apiUrl: api.serviceEndpoint, wsUrl: ws?.serviceEndpoint ?? api.serviceEndpoint, services };
}
