/**
 * UCAN credentials of one user for one oracle (protocol.md, "Authentication").
 *
 * - Invocations are single-use (the runtime refuses a replayed CID), so a new
 *   one is minted per request and per socket handshake; they live `invocationTtl`
 *   seconds (default 300, the runtime accepts at most 900).
 * - The delegation (user → oracle, `x-ucan-delegation`) is minted once, cached,
 *   and renewed `renewMargin` seconds before it expires.
 * - After a 401 the caller asks `renew(attempt)`: attempt 0 → only a new
 *   invocation; attempt 1 → a new delegation as well.
 *
 * Minting goes through `createInvocation` / `createDelegation` when given (a
 * wallet that signs elsewhere), else through the user's Ed25519 signer.
 */
import type { Signer } from './signer.ts';

/**
 * The token writer (CBOR and CAR for a proof-less UCAN, byte for byte ucanto's)
 * is loaded on the first mint with a signer, not with the page: an app whose
 * wallet mints elsewhere (createInvocation) never loads it.
 */
const ucan = () => import('../lib/ucan/token.ts');

/** The ability an invocation of an oracle carries (the runtime's ORACLE_ABILITY). */
const ORACLE_ABILITY = 'oracle/use';

export interface MintedDelegation {
  token: string;
  /** Expiry, seconds since the epoch. */
  expiration: number;
}

export interface AuthSource {
  /** The user's DID (did:key). */
  did?: string;
  signer?: Signer;
  createInvocation?: (o: { oracleDid: string; ttlSeconds: number }) => Promise<string>;
  createDelegation?: (o: { oracleDid: string; ttlSeconds: number }) => Promise<MintedDelegation>;
}

export interface AuthOptions {
  invocationTtl?: number;
  delegationTtl?: number;
  renewMargin?: number;
  /** Send the delegation header on every request (default true). */
  sendDelegation?: boolean;
  /**
   * Keep one invocation minted ahead, so a request does not wait for signing
   * (each is still used once; a spare older than a third of its lifetime is
   * dropped). Default false. The chat TUI turns it on.
   */
  premint?: boolean;
  now?: () => number;
}

const nowS = () => Math.floor(Date.now() / 1000);

export class UcanAuth {
  readonly oracleDid: string;
  private readonly src: AuthSource;
  private readonly o: Required<Omit<AuthOptions, 'now'>> & { now: () => number };
  private delegation: MintedDelegation | undefined;
  private pendingDelegation: Promise<MintedDelegation> | undefined;
  private spare: { token: Promise<string>; at: number } | undefined;
  /** How many delegations / invocations were minted (observability, tests). */
  minted = { invocations: 0, delegations: 0 };

  constructor(oracleDid: string, src: AuthSource, o: AuthOptions = {}) {
    if (!src.signer && !(src.createInvocation && src.createDelegation) && !src.createInvocation) {
      throw new Error('UcanAuth needs a signer or createInvocation');
    }
    this.oracleDid = oracleDid;
    this.src = src;
    this.o = {
      invocationTtl: 300,
      delegationTtl: 3600,
      renewMargin: 120,
      sendDelegation: true,
      premint: false,
      now: nowS,
      ...o,
    };
  }

  get userDid(): string | undefined {
    return this.src.did ?? this.src.signer?.did();
  }

  async invocation(): Promise<string> {
    if (!this.o.premint) return this.mintInvocation();
    const s = this.spare;
    this.spare = undefined;
    const fresh = s && this.o.now() - s.at < this.o.invocationTtl / 3 ? s.token : undefined;
    const token = fresh ?? this.mintInvocation();
    // mint the next one off the critical path
    setTimeout(() => this.prepare(), 0);
    try {
      return await token;
    } catch (e) {
      if (fresh) return this.mintInvocation();
      throw e;
    }
  }

  /** Mints a spare invocation now (premint mode), so the next request does not wait. */
  prepare(): void {
    if (!this.o.premint || this.spare) return;
    const token = this.mintInvocation();
    token.catch(() => {
      if (this.spare?.token === token) this.spare = undefined;
    });
    this.spare = { token, at: this.o.now() };
  }

  private async mintInvocation(): Promise<string> {
    this.minted.invocations++;
    if (this.src.createInvocation)
      return this.src.createInvocation({ oracleDid: this.oracleDid, ttlSeconds: this.o.invocationTtl });
    return (await ucan()).mintToken({
      issuer: this.src.signer!,
      audience: this.oracleDid,
      capabilities: [{ can: ORACLE_ABILITY, with: this.oracleDid }],
      expiration: nowS() + this.o.invocationTtl,
      nonce: crypto.randomUUID(),
    });
  }

  /** The cached delegation, minted (once, even under concurrent callers) when missing or near expiry. */
  async currentDelegation(): Promise<MintedDelegation | undefined> {
    if (!this.src.signer && !this.src.createDelegation) return undefined;
    const d = this.delegation;
    if (d && d.expiration - this.o.renewMargin > this.o.now()) return d;
    this.pendingDelegation ??= this.mintDelegation().finally(() => (this.pendingDelegation = undefined));
    return this.pendingDelegation;
  }

  private async mintDelegation(): Promise<MintedDelegation> {
    this.minted.delegations++;
    let d: MintedDelegation;
    if (this.src.createDelegation)
      d = await this.src.createDelegation({ oracleDid: this.oracleDid, ttlSeconds: this.o.delegationTtl });
    else {
      const expiration = this.o.now() + this.o.delegationTtl;
      // a fresh nonce: a renewed delegation must get a new CID (the old one may be revoked)
      const token = await (
        await ucan()
      ).mintToken({
        issuer: this.src.signer!,
        audience: this.oracleDid,
        capabilities: [{ can: '*', with: this.src.signer!.did() }],
        expiration,
        nonce: crypto.randomUUID(),
      });
      d = { token, expiration };
    }
    this.delegation = d;
    return d;
  }

  /** Headers of one authenticated request (a fresh invocation each time). */
  async headers(): Promise<Record<string, string>> {
    const h: Record<string, string> = { authorization: `Bearer ${await this.invocation()}`, 'x-auth-type': 'ucan' };
    if (this.o.sendDelegation) {
      const d = await this.currentDelegation();
      if (d) h['x-ucan-delegation'] = d.token;
    }
    return h;
  }

  /** socket.io handshake auth. */
  async socketAuth(): Promise<{ invocation: string; ucanDelegation?: string }> {
    const d = this.o.sendDelegation ? await this.currentDelegation() : undefined;
    return { invocation: await this.invocation(), ...(d ? { ucanDelegation: d.token } : {}) };
  }

  /**
   * After a 401: attempt 0 renews the invocation only (nothing to do: each request mints one); attempt ≥ 1 drops the
   * delegation too.
   */
  renew(attempt: number): void {
    if (attempt >= 1) this.delegation = undefined;
  }
}
