/**
 * useOraclesConfig(oracleDid): where an oracle lives and what it runs —
 * API URL and socket URL from its domain record's `#api`/`#ws` services in
 * the registry, model from the record's metadata or the oracle's /models,
 * price from the record's metadata. Overrides {baseUrl, wsUrl} win and skip
 * the registry lookup.
 */
import { useEffect, useState } from 'react';
import { useOraclesContext } from './context.tsx';
import { OracleClientError, OracleUnreachableError, errorFromResponse } from '../errors.ts';

export interface OracleOverrides {
  baseUrl?: string;
  wsUrl?: string;
}

export interface OracleConfig {
  oracleDid: string;
  apiUrl: string;
  wsUrl: string;
  name?: string;
  model?: string | null;
  price?: unknown;
  /** 'overrides' or 'registry'. */
  source: 'overrides' | 'registry';
}

export interface OraclesConfigResult {
  config: OracleConfig | undefined;
  isLoading: boolean;
  isReady: boolean;
  error: Error | undefined;
}

interface DomainRecord {
  services?: { id: string; type?: string; serviceEndpoint: string }[];
  metadata?: { model?: string; price?: unknown; name?: string; [k: string]: unknown };
  domain?: DomainRecord;
}

const cache = new Map<string, Promise<OracleConfig>>();

export async function resolveOracleConfig(
  oracleDid: string,
  o: { registryUrl?: string; overrides?: OracleOverrides },
): Promise<OracleConfig> {
  if (o.overrides?.baseUrl) {
    const apiUrl = o.overrides.baseUrl;
    let model: string | null | undefined;
    try {
      const res = await fetch(`${apiUrl.replace(/\/+$/, '')}/models`);
      if (res.ok) model = ((await res.json()) as { default?: string | null }).default;
    } catch {
      model = undefined; // the oracle may be offline; the URL still stands
    }
    return { oracleDid, apiUrl, wsUrl: o.overrides.wsUrl ?? apiUrl, model, source: 'overrides' };
  }
  if (!o.registryUrl)
    throw new OracleClientError(
      400,
      'registry_required',
      `resolving ${oracleDid} needs the OraclesProvider's registryUrl (or overrides.baseUrl)`,
    );
  const url = `${o.registryUrl.replace(/\/+$/, '')}/v1/domains/${encodeURIComponent(oracleDid)}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (e) {
    throw new OracleUnreachableError(o.registryUrl, e);
  }
  if (!res.ok) throw await errorFromResponse(res);
  const raw = (await res.json()) as DomainRecord;
  const rec = raw.domain ?? raw;
  const services = rec.services ?? [];
  const api = services.find((s) => s.id === '#api' || s.id.endsWith('#api'));
  if (!api) throw new OracleClientError(404, 'no_api_service', `the domain ${oracleDid} has no #api service`);
  const ws = services.find((s) => s.id === '#ws' || s.id.endsWith('#ws'));
  let model = rec.metadata?.model ?? null;
  if (!model) {
    try {
      const m = await fetch(`${api.serviceEndpoint.replace(/\/+$/, '')}/models`);
      if (m.ok) model = ((await m.json()) as { default?: string | null }).default ?? null;
    } catch {
      model = null;
    }
  }
  return {
    oracleDid,
    apiUrl: api.serviceEndpoint,
    wsUrl: ws?.serviceEndpoint ?? api.serviceEndpoint,
    name: rec.metadata?.name,
    model,
    price: rec.metadata?.price,
    source: 'registry',
  };
}

export function useOraclesConfig(oracleDid: string | undefined, overrides?: OracleOverrides): OraclesConfigResult {
  const { registryUrl } = useOraclesContext();
  const [state, setState] = useState<OraclesConfigResult>({
    config: undefined,
    isLoading: !!oracleDid,
    isReady: false,
    error: undefined,
  });
  const baseUrl = overrides?.baseUrl;
  const wsUrl = overrides?.wsUrl;
  useEffect(() => {
    if (!oracleDid) return;
    let live = true;
    const key = `${oracleDid}|${registryUrl ?? ''}|${baseUrl ?? ''}|${wsUrl ?? ''}`;
    let p = cache.get(key);
    if (!p) {
      p = resolveOracleConfig(oracleDid, { registryUrl, overrides: baseUrl ? { baseUrl, wsUrl } : undefined });
      cache.set(key, p);
      p.catch(() => cache.delete(key));
    }
    setState((s) => ({ ...s, isLoading: true }));
    p.then(
      (config) => live && setState({ config, isLoading: false, isReady: true, error: undefined }),
      (error: Error) => live && setState({ config: undefined, isLoading: false, isReady: false, error }),
    );
    return () => {
      live = false;
    };
  }, [oracleDid, registryUrl, baseUrl, wsUrl]);
  return state;
}
