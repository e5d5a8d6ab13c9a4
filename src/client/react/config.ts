/**
 * useOraclesConfig(oracleDid): where an oracle lives and what it runs —
 * API URL and socket URL from its domain record's `#api`/`#ws` services
 * (resolve.ts, the registry's public read), the model from the oracle's
 * /models. Overrides {baseUrl, wsUrl} win and skip the registry lookup.
 */
import { useEffect, useState } from 'react';
import { useOraclesContext } from './context.tsx';
import { OracleClient } from '../client.ts';
import { resolveOracleDid } from '../resolve.ts';

export interface OracleOverrides {
  baseUrl?: string;
  wsUrl?: string;
}

export interface OracleConfig {
  oracleDid: string;
  apiUrl: string;
  wsUrl: string;
  /** The oracle's default model (its /models), null when it cannot say. */
  model: string | null;
  /** 'overrides' or 'registry'. */
  source: 'overrides' | 'registry';
}

export interface OraclesConfigResult {
  config: OracleConfig | undefined;
  isLoading: boolean;
  isReady: boolean;
  error: Error | undefined;
}

const cache = new Map<string, Promise<OracleConfig>>();

/**
 * Where an oracle lives (resolve.ts: the registry's public read, unless
 * overrides.baseUrl is given) and which model it runs (its public /models;
 * null when the oracle cannot say, which does not stop the config).
 */
export async function resolveOracleConfig(
  oracleDid: string,
  o: { registryUrl?: string; overrides?: OracleOverrides },
): Promise<OracleConfig> {
  const where = o.overrides?.baseUrl
    ? { apiUrl: o.overrides.baseUrl, wsUrl: o.overrides.wsUrl ?? o.overrides.baseUrl, source: 'overrides' as const }
    : { ...(await resolveOracleDid(oracleDid, { registryUrl: o.registryUrl })), source: 'registry' as const };
  // the oracle may be offline or old: its URL still stands, the model is then unknown (null)
  const model = await new OracleClient({ baseUrl: where.apiUrl, oracleDid })
    .models()
    .then((m) => m.default ?? null)
    .catch(() => null);
  return { oracleDid, apiUrl: where.apiUrl, wsUrl: where.wsUrl, model, source: where.source };
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
