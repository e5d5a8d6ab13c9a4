/**
 * usePayment(oracleDid, overrides?): paying a priced oracle the way the
 * chat's `/pay` does (payments.ts): `status` is what a turn costs and what
 * is owed (`GET /credits/ledger`, loaded on mount and by `refresh`), `pay`
 * accepts the oracle's contract and pays the outstanding claims (all, or
 * `claimIds`; `expectAmount` refuses a total that changed since the user
 * confirmed it). An oracle without the credits plugin: `status` stays
 * undefined and `error` is its 404. Calls before the config resolved wait.
 */
import { useCallback, useEffect, useState } from 'react';
import { creditsStatus, payClaims, type CreditsStatus, type Payment } from '../payments.ts';
import type { OracleOverrides } from './config.ts';
import { useOracleClient } from './client.ts';

export interface UsePaymentResult {
  status: CreditsStatus | undefined;
  refresh: () => Promise<CreditsStatus | undefined>;
  pay: (o?: { claimIds?: string[]; expectAmount?: number }) => Promise<Payment>;
  isPaying: boolean;
  error: Error | undefined;
}

/**
 * A priced oracle's status and paying its outstanding claims with the user's identity (creditsStatus, payClaims).
 * @example
 * const payment = usePayment(oracleDid);
 * if (payment.status && payment.status.owed > 0) void payment.pay({ expectAmount: payment.status.owed });
 */
export function usePayment(oracleDid: string, overrides?: OracleOverrides): UsePaymentResult {
  const { client, whenReady } = useOracleClient(oracleDid, overrides);
  const [status, setStatus] = useState<CreditsStatus | undefined>();
  const [isPaying, setPaying] = useState(false);
  const [error, setError] = useState<Error | undefined>();

  const refresh = useCallback(async () => {
    try {
      const s = await creditsStatus(await whenReady());
      setStatus(s);
      setError(undefined);
      return s;
    } catch (e) {
      setError(e as Error);
      return undefined;
    }
  }, [whenReady]);

  useEffect(() => {
    if (client) void refresh();
  }, [client, refresh]);

  const pay = useCallback(
    async (o: { claimIds?: string[]; expectAmount?: number } = {}) => {
      setPaying(true);
      setError(undefined);
      try {
        const p = await payClaims(await whenReady(), o);
        await refresh();
        return p;
      } catch (e) {
        setError(e as Error);
        throw e;
      } finally {
        setPaying(false);
      }
    },
    [whenReady, refresh],
  );
  return { status, refresh, pay, isPaying, error };
}
