/**
 * useOracleClient(oracleDid, overrides?): the oracle's config (useOraclesConfig)
 * and a client of it sharing the provider's credentials, with `whenReady()`:
 * a call made before the config resolved waits for it instead of failing (and
 * fails with the config's error when it cannot resolve).
 */
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { OracleClient } from '../client.ts';
import { useOraclesContext } from './context.tsx';
import { useOraclesConfig, type OracleOverrides, type OraclesConfigResult } from './config.ts';

export interface UseOracleClientResult extends OraclesConfigResult {
  client: OracleClient | undefined;
  /** The client once the config is ready (at once when it is). */
  whenReady: () => Promise<OracleClient>;
}

interface Waiter {
  resolve: (c: OracleClient) => void;
  reject: (e: Error) => void;
}

export function useOracleClient(oracleDid: string, overrides?: OracleOverrides): UseOracleClientResult {
  const ctx = useOraclesContext();
  const cfg = useOraclesConfig(oracleDid, overrides);
  const { config, error } = cfg;
  const client = useMemo(
    () => (config ? ctx.clientFor(oracleDid, config.apiUrl, config.wsUrl) : undefined),
    [ctx, config, oracleDid],
  );
  const latest = useRef({ client, error });
  latest.current = { client, error };
  const waiters = useRef<Waiter[]>([]);
  useEffect(() => {
    if (!client && !error) return;
    const ws = waiters.current.splice(0);
    for (const w of ws) {
      if (client) w.resolve(client);
      else w.reject(error!);
    }
  }, [client, error]);
  const whenReady = useCallback((): Promise<OracleClient> => {
    const { client: c, error: e } = latest.current;
    if (c) return Promise.resolve(c);
    if (e) return Promise.reject(e);
    return new Promise((resolve, reject) => waiters.current.push({ resolve, reject }));
  }, []);
  return { ...cfg, client, whenReady };
}
