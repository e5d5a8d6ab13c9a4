/**
 * useContractOracle(): authorise an oracle to act for the user. It stores the
 * user → oracle delegation on the oracle (POST /delegation), and, when the app
 * passes chain messages (a paid oracle's contract), signs and broadcasts them
 * with the provider's transactSignX. isAuthorized reflects GET /delegation.
 */
import { useCallback, useState } from 'react';
import { useOraclesContext } from './context.tsx';
import { resolveOracleConfig, type OracleOverrides } from './config.ts';
import { OracleClientError } from '../errors.ts';

export interface ContractOracleInput {
  oracleDid: string;
  overrides?: OracleOverrides;
  /** Chain messages to sign with transactSignX (e.g. the oracle's pay-per-use contract). */
  messages?: { typeUrl: string; value: unknown }[];
  memo?: string;
}

export function useContractOracle(): {
  contractOracle: (i: ContractOracleInput) => Promise<{ expiration: number | null; tx?: unknown }>;
  checkAuthorization: (i: { oracleDid: string; overrides?: OracleOverrides }) => Promise<boolean>;
  revoke: (i: { oracleDid: string; overrides?: OracleOverrides }) => Promise<void>;
  isContracting: boolean;
  isAuthorized: boolean | undefined;
  error: Error | undefined;
} {
  const ctx = useOraclesContext();
  const [isContracting, setBusy] = useState(false);
  const [isAuthorized, setAuthorized] = useState<boolean | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const clientOf = useCallback(
    async (oracleDid: string, overrides?: OracleOverrides) => {
      const c = await resolveOracleConfig(oracleDid, { registryUrl: ctx.registryUrl, overrides });
      return ctx.clientFor(oracleDid, c.apiUrl, c.wsUrl);
    },
    [ctx],
  );
  const contractOracle = useCallback(
    async (i: ContractOracleInput) => {
      setBusy(true);
      setError(undefined);
      try {
        const client = await clientOf(i.oracleDid, i.overrides);
        if (i.messages?.length && !ctx.transactSignX)
          throw new OracleClientError(
            400,
            'transact_sign_x_required',
            'contractOracle was given chain messages to sign, but the OraclesProvider has no transactSignX',
          );
        const tx = i.messages?.length ? await ctx.transactSignX!(i.messages, i.memo) : undefined;
        const r = await client.storeDelegation();
        setAuthorized(true);
        return { expiration: r.expiration, ...(tx !== undefined ? { tx } : {}) };
      } catch (e) {
        setError(e as Error);
        throw e;
      } finally {
        setBusy(false);
      }
    },
    [clientOf, ctx],
  );
  const checkAuthorization = useCallback(
    async (i: { oracleDid: string; overrides?: OracleOverrides }) => {
      const r = await (await clientOf(i.oracleDid, i.overrides)).delegationStatus();
      setAuthorized(r.authorized);
      return r.authorized;
    },
    [clientOf],
  );
  const revoke = useCallback(
    async (i: { oracleDid: string; overrides?: OracleOverrides }) => {
      await (await clientOf(i.oracleDid, i.overrides)).revokeDelegation();
      setAuthorized(false);
    },
    [clientOf],
  );
  return { contractOracle, checkAuthorization, revoke, isContracting, isAuthorized, error };
}
