/**
 * A browser wallet's side of UCAN auth for @ixo/oracles-client-sdk: the
 * `createInvocation` / `createDelegation` callbacks that `OraclesProvider`
 * takes, minting with ucanto directly (not with oraclekit's helpers, so the
 * suite does not share a bug with the runtime it tests). Each returns
 * `{serialized, expiresAt}` (base64 of the CAR archive; expiry in ms), which
 * the SDK caches in localStorage until 30 s (invocations) or 5 min
 * (delegations) before `expiresAt`.
 */
import { Delegation, delegate, invoke } from '@ucanto/core';
import { ed25519 } from '@ucanto/principal';
import type * as API from '@ucanto/interface';

interface Minted {
  serialized: string;
  expiresAt: number;
}

export interface WalletOptions {
  /** Lifetime of each invocation in seconds (default 300, a realistic wallet setting). */
  invocationTtl?: number;
  /** Lifetime of each delegation in seconds (default 7 days). */
  delegationTtl?: number;
  /** Audience of what is minted (default: the oracle DID the SDK asks for). */
  audience?: string;
  /** Sign with this key while claiming the wallet's DID (a forged token). */
  forgeWith?: ed25519.EdSigner;
  /** Expiry in the past (seconds before now). */
  expiredBy?: number;
  /** Which tokens `audience`, `forgeWith` and `expiredBy` apply to (default both). */
  bad?: 'invocation' | 'delegation' | 'both';
}

export interface Wallet {
  did: string;
  signer: ed25519.EdSigner;
  /** How many invocations / delegations the SDK asked for. */
  minted: { invocations: number; delegations: number };
  createInvocation(oracleDid: string): Promise<Minted>;
  createDelegation(oracleDid: string): Promise<Minted>;
}

const principal = (did: string): API.Principal => ({ did: () => did as API.DID });

async function encode(d: API.Delegation): Promise<string> {
  const r = await Delegation.archive(d);
  if (r.error) throw r.error;
  return Buffer.from(r.ok).toString('base64');
}

export async function createWallet(o: WalletOptions = {}): Promise<Wallet> {
  const signer = await ed25519.generate();
  const applies = (kind: 'invocation' | 'delegation') => (o.bad ?? 'both') === 'both' || o.bad === kind;
  const issuer = (kind: 'invocation' | 'delegation'): API.Signer =>
    o.forgeWith && applies(kind) ? (o.forgeWith.withDID(signer.did()) as unknown as API.Signer) : signer;
  const expiry = (kind: 'invocation' | 'delegation', ttl: number) =>
    o.expiredBy !== undefined && applies(kind)
      ? Math.floor(Date.now() / 1000) - o.expiredBy
      : Math.floor(Date.now() / 1000) + ttl;
  const audienceFor = (kind: 'invocation' | 'delegation', oracleDid: string) =>
    o.audience && applies(kind) ? o.audience : oracleDid;
  const w: Wallet = {
    did: signer.did(),
    signer,
    minted: { invocations: 0, delegations: 0 },
    async createInvocation(oracleDid) {
      w.minted.invocations++;
      const audience = audienceFor('invocation', oracleDid);
      const expiration = expiry('invocation', o.invocationTtl ?? 300);
      const inv = await invoke({
        issuer: issuer('invocation'),
        audience: principal(audience),
        capability: { can: 'oracle/use', with: audience as API.URI },
        expiration,
        nonce: crypto.randomUUID(),
      }).delegate();
      return { serialized: await encode(inv), expiresAt: expiration * 1000 };
    },
    async createDelegation(oracleDid) {
      w.minted.delegations++;
      const audience = audienceFor('delegation', oracleDid);
      const expiration = expiry('delegation', o.delegationTtl ?? 7 * 24 * 3600);
      const d = await delegate({
        issuer: issuer('delegation'),
        audience: principal(audience),
        capabilities: [{ can: '*', with: signer.did() }],
        expiration,
        nonce: crypto.randomUUID(),
      });
      return { serialized: await encode(d), expiresAt: expiration * 1000 };
    },
  };
  return w;
}
