/**
 * Resolving an oracle's DID to its URLs through the registry: the domain
 * record (`GET /v1/domains/:did`) lists services; the oracle's API URL is the
 * service `#api`, its socket URL `#ws` (registry.md). An id may be written
 * relative (`#api`) or absolute (`did:…#api`).
 */
import { OracleClientError, OracleUnreachableError, errorFromResponse } from './errors.ts';

export interface Service {
  id: string;
  type?: string;
  serviceEndpoint: string;
}

export interface ResolvedOracle {
  did: string;
  apiUrl: string;
  wsUrl: string;
  services: Service[];
}

export function isDid(s: string): boolean {
  return /^did:[a-z0-9]+:.+/.test(s);
}

function findService(services: Service[], frag: string): Service | undefined {
  return services.find((s) => s.id === frag || s.id.endsWith(frag));
}

export async function resolveOracleDid(did: string, o: { registryUrl: string; fetch?: typeof fetch; apiKey?: string }): Promise<ResolvedOracle> {
  const f = o.fetch ?? fetch;
  const url = `${o.registryUrl.replace(/\/+$/, '')}/v1/domains/${encodeURIComponent(did)}`;
  let res: Response;
  try {
    res = await f(url, { headers: { accept: 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) } });
  } catch (e) {
    throw new OracleUnreachableError(o.registryUrl, e);
  }
  if (!res.ok) throw await errorFromResponse(res);
  const body = (await res.json()) as { services?: Service[]; domain?: { services?: Service[] } };
  const services = (body.services ?? body.domain?.services ?? []).filter((s) => s && typeof s.id === 'string' && typeof s.serviceEndpoint === 'string');
  const api = findService(services, '#api');
  if (!api) throw new OracleClientError(404, 'no_api_service', `the domain ${did} has no #api service; register the oracle's URL as a service {id:'#api', type:'oracleService', serviceEndpoint}`);
  const ws = findService(services, '#ws');
  return { did, apiUrl: api.serviceEndpoint, wsUrl: ws?.serviceEndpoint ?? api.serviceEndpoint, services };
}
