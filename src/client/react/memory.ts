/**
 * useMemoryEngine(oracleDid): whether the oracle's memory capability is
 * loaded (from its public /ready plugin status). The memory plugin's own
 * routes are not defined by the runtime yet; this hook reports availability
 * only until they are.
 */
import { useEffect, useState } from 'react';
import { useOraclesConfig, type OracleOverrides } from './config.ts';
import { OracleClient } from '../client.ts';

export function useMemoryEngine(
  oracleDid: string,
  overrides?: OracleOverrides,
): { isEnabled: boolean; isLoading: boolean; error: Error | undefined } {
  const { config, error: configError } = useOraclesConfig(oracleDid, overrides);
  const [state, setState] = useState<{ isEnabled: boolean; isLoading: boolean; error: Error | undefined }>({
    isEnabled: false,
    isLoading: true,
    error: undefined,
  });
  useEffect(() => {
    if (configError) setState({ isEnabled: false, isLoading: false, error: configError });
    if (!config) return;
    let live = true;
    new OracleClient({ baseUrl: config.apiUrl, oracleDid })
      .ready()
      .then((r) => r.body as { plugins?: { loaded?: string[] } } | null)
      .then(
        (b) =>
          live && setState({ isEnabled: !!b?.plugins?.loaded?.includes('memory'), isLoading: false, error: undefined }),
        (e: Error) => live && setState({ isEnabled: false, isLoading: false, error: e }),
      );
    return () => {
      live = false;
    };
  }, [config, configError, oracleDid]);
  return state;
}
