/**
 * OraclesProvider: the wallet, signing callbacks and the per-user-and-oracle
 * credential cache every hook shares. One UcanAuth per (user DID, oracle DID):
 * its delegation is minted once — concurrent hooks wait for the same mint —
 * and renewed before expiry or after a 401. Invocations are single-use on
 * this runtime (a replayed CID is refused), so each request gets a new one.
 */
import { createContext, useContext, useMemo, useRef, type ReactNode } from 'react';
import { UcanAuth, type MintedDelegation } from '../auth.ts';
import { OracleClient } from '../client.ts';
import type { Signer } from '../signer.ts';

export interface OraclesWallet {
  /** The user's DID (did:key Ed25519). */
  did: string;
  /** The user's ucanto signer, when the app holds the key (else pass createInvocation/createDelegation). */
  signer?: Signer;
  /** A wallet address, for apps that show it and for transactSignX. */
  address?: string;
  /** The user's Matrix account, for getOpenIdToken. */
  matrix?: { baseUrl: string; userId: string; accessToken: string };
  [k: string]: unknown;
}

export type TransactSignX = (messages: { typeUrl: string; value: unknown }[], memo?: string) => Promise<unknown>;

export interface OraclesProviderProps {
  initialWallet: OraclesWallet;
  /** Signs and broadcasts chain messages (useContractOracle's `messages`); not needed for a free oracle. */
  transactSignX?: TransactSignX;
  /** Mints a user → oracle delegation elsewhere (a wallet); default: with initialWallet.signer. */
  createDelegation?: (o: { oracleDid: string; ttlSeconds: number }) => Promise<MintedDelegation>;
  /** Mints an invocation elsewhere; default: with initialWallet.signer. */
  createInvocation?: (o: { oracleDid: string; ttlSeconds: number }) => Promise<string>;
  /** The registry that resolves oracle DIDs to their #api/#ws services. */
  registryUrl?: string;
  children?: ReactNode;
}

/** An AG-UI action registered with useAgAction. */
export interface AgActionDef<A = unknown> {
  name: string;
  description: string;
  /** zod 3 / zod 4 schema or JSON Schema of the arguments. */
  parameters: unknown;
  handler: (args: A) => unknown;
  render?: (p: { status: 'isRunning' | 'done' | 'error'; args: A; output?: unknown }) => ReactNode;
}

export interface OraclesContextValue {
  wallet: OraclesWallet;
  /** Actions registered with useAgAction, by name. */
  actions: Map<string, AgActionDef>;
  transactSignX: TransactSignX | undefined;
  registryUrl?: string;
  /** The shared credential cache of this user for an oracle. */
  authFor(oracleDid: string): UcanAuth;
  /** A client of an oracle at a URL, sharing the credential cache. */
  clientFor(oracleDid: string, baseUrl: string, wsUrl?: string): OracleClient;
}

const OraclesContext = createContext<OraclesContextValue | null>(null);

/**
 * The user's identity and credentials for every hook below it: one UcanAuth per oracle, the delegation minted once.
 * @example
 * const signer = await signerFromMnemonic(mnemonic);
 * root.render(
 *   <OraclesProvider initialWallet={{ did: signer.did(), signer }} registryUrl="http://127.0.0.1:4100">
 *     <Chat />
 *   </OraclesProvider>,
 * );
 */
export function OraclesProvider(p: OraclesProviderProps): ReactNode {
  const auths = useRef(new Map<string, UcanAuth>());
  const clients = useRef(new Map<string, OracleClient>());
  const actions = useRef(new Map<string, AgActionDef>());
  const { initialWallet, transactSignX, createDelegation, createInvocation, registryUrl } = p;
  const value = useMemo<OraclesContextValue>(() => {
    const authFor = (oracleDid: string) => {
      const key = `${initialWallet.did}|${oracleDid}`;
      let a = auths.current.get(key);
      if (!a) {
        a = new UcanAuth(oracleDid, {
          did: initialWallet.did,
          signer: initialWallet.signer,
          createDelegation,
          createInvocation,
        });
        auths.current.set(key, a);
      }
      return a;
    };
    return {
      wallet: initialWallet,
      actions: actions.current,
      transactSignX,
      registryUrl,
      authFor,
      clientFor(oracleDid, baseUrl, wsUrl) {
        const key = `${initialWallet.did}|${oracleDid}|${baseUrl}|${wsUrl ?? ''}`;
        let c = clients.current.get(key);
        if (!c) {
          c = new OracleClient({ baseUrl, wsUrl, oracleDid, did: initialWallet.did, ucanAuth: authFor(oracleDid) });
          clients.current.set(key, c);
        }
        return c;
      },
    };
  }, [initialWallet, transactSignX, createDelegation, createInvocation, registryUrl]);
  return <OraclesContext.Provider value={value}>{p.children}</OraclesContext.Provider>;
}

export function useOraclesContext(): OraclesContextValue {
  const v = useContext(OraclesContext);
  if (!v) throw new Error('useOraclesContext must be used within a OraclesProvider');
  return v;
}
