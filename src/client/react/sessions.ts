/** useOracleSessions(oracleDid): the user's sessions on an oracle, with create and delete. */
import { useCallback, useEffect, useState } from 'react';
import type { Session } from '../../lib/protocol/index.ts';
import type { OracleOverrides } from './config.ts';
import { useOracleClient } from './client.ts';

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
  const { client, whenReady, error: configError } = useOracleClient(oracleDid, overrides);
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
      const s = await (await whenReady()).createSession(title);
      await refetch();
      return s;
    },
    [whenReady, refetch],
  );
  const deleteSession = useCallback(
    async (id: string) => {
      await (await whenReady()).deleteSession(id);
      await refetch();
    },
    [whenReady, refetch],
  );
  return { sessions, total, isLoading, error, createSession, deleteSession, refetch };
}
