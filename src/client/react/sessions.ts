/** useOracleSessions(oracleDid): the user's sessions on an oracle, with create and delete. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Session } from '../../lib/protocol/index.ts';
import { useOraclesContext } from './context.tsx';
import { useOraclesConfig, type OracleOverrides } from './config.ts';

export interface UseOracleSessionsResult {
  sessions: Session[];
  total: number;
  isLoading: boolean;
  error: Error | undefined;
  createSession: (title?: string) => Promise<Session>;
  deleteSession: (sessionId: string) => Promise<void>;
  refetch: () => Promise<void>;
}

export function useOracleSessions(oracleDid: string, overrides?: OracleOverrides): UseOracleSessionsResult {
  const ctx = useOraclesContext();
  const { config, error: configError } = useOraclesConfig(oracleDid, overrides);
  const client = useMemo(
    () => (config ? ctx.clientFor(oracleDid, config.apiUrl, config.wsUrl) : undefined),
    [ctx, config, oracleDid],
  );
  const [sessions, setSessions] = useState<Session[]>([]);
  const [total, setTotal] = useState(0);
  const [isLoading, setLoading] = useState(true);
  const [error, setError] = useState<Error | undefined>();

  const refetch = useCallback(async () => {
    if (!client) return;
    setLoading(true);
    try {
      const r = await client.listSessions({ limit: 200 });
      setSessions(r.sessions);
      setTotal(r.total);
      setError(undefined);
    } catch (e) {
      setError(e as Error);
    } finally {
      setLoading(false);
    }
  }, [client]);

  useEffect(() => {
    void refetch();
  }, [refetch]);
  useEffect(() => {
    if (configError) {
      setError(configError);
      setLoading(false);
    }
  }, [configError]);

  const createSession = useCallback(
    async (title?: string) => {
      if (!client) throw new Error('the oracle config is not ready yet');
      const s = await client.createSession(title);
      await refetch();
      return s;
    },
    [client, refetch],
  );
  const deleteSession = useCallback(
    async (id: string) => {
      if (!client) throw new Error('the oracle config is not ready yet');
      await client.deleteSession(id);
      await refetch();
    },
    [client, refetch],
  );
  return { sessions, total, isLoading, error, createSession, deleteSession, refetch };
}
