/**
 * Checking UCAN tokens (protocol.md, "Authentication"): decoding, signature verification and capability parsing
 * are ucanto's; this module only orders the checks so each failure gets its own code
 * (src/lib/protocol/errors.ts). Minting and decoding are in ucan.ts.
 *
 * Model (docs/protocol.md, "Auth model"):
 * - invocation: issued by the user (did:key Ed25519), audience exactly the oracle DID, capability
 *   {can: 'oracle/use', with: <oracle DID>}, expiry at most 900 s after not-before (or now). Any did:key user may
 *   invoke an oracle's `oracle/use` directly; proofs, when attached, must form an aligned, valid chain.
 * - delegation: a user → oracle delegation logs the user in alone within a maximum lifetime of its own (`maxTtl`).
 * - replay: with a ReplayStore an invocation is one-use (its CID remembered until its expiry); without one it is
 *   a bearer credential for its lifetime.
 */
import { Delegation, UCAN } from '@ucanto/core';
import { Verifier, ed25519 } from '@ucanto/principal';
import { capability, Schema } from '@ucanto/validator';
import type * as API from '@ucanto/interface';
import type * as NodeCryptoModule from 'node:crypto';
type NodeCrypto = typeof NodeCryptoModule;
import { runtimeError } from '../protocol/errors.ts';
import { isDidKeyEd25519 } from '../keys/keys.ts';
import { chain, decodeToken, nowSeconds, ORACLE_ABILITY } from './ucan.ts';

/** The longest an invocation may live (expiry − not-before or now). */
const MAX_TTL_SECONDS = 900;
const CLOCK_SKEW_SECONDS = 60;

type Ed25519Check = (payload: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;

/**
 * node:crypto when this runs in Node (a synchronous native verify, about
 * 40 µs), reached without a static import so the module still loads in
 * browsers, where WebCrypto is used instead (asynchronous, which in Node
 * costs a thread-pool round trip per signature).
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the 32 key bytes follow. */
const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

async function ed25519Check(publicKey: Uint8Array): Promise<Ed25519Check> {
  if (nodeCrypto) {
    const der = new Uint8Array(ED25519_SPKI_PREFIX.length + publicKey.length);
    der.set(ED25519_SPKI_PREFIX);
    der.set(publicKey, ED25519_SPKI_PREFIX.length);
    const key = nodeCrypto.createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
    return (payload, signature) => nodeCrypto.verify(null, payload, key, signature);
  }
  const key = await crypto.subtle.importKey('raw', new Uint8Array(publicKey), { name: 'Ed25519' }, false, ['verify']);
  return (payload, signature) =>
    crypto.subtle.verify({ name: 'Ed25519' }, key, new Uint8Array(signature), new Uint8Array(payload));
}

/**
 * A ucanto verifier for a did:key Ed25519 issuer whose primitive is the
 * platform's native Ed25519 instead of @noble/ed25519's pure JS (about 50x
 * faster). ucanto still parses the DID, encodes the signed payload and checks
 * the signature algorithm.
 */
type NativeVerifier = {
  did(): string;
  verify(payload: Uint8Array, signature: { code: number; raw: Uint8Array }): Promise<boolean>;
};
const verifierCache = new Map<string, Promise<NativeVerifier>>();

async function nativeVerifier(did: string): Promise<NativeVerifier> {
  // parsed once per key (a did:key is base58btc; decoding it on every request cost more than the signature check)
  let v = verifierCache.get(did);
  if (!v) {
    if (verifierCache.size > 10_000) verifierCache.clear();
    v = (async () => {
      const parsed = Verifier.parse(did as API.DID<'key'>) as unknown as { did(): string; publicKey: Uint8Array };
      const check = await ed25519Check(parsed.publicKey);
      const id = parsed.did();
      return {
        did: () => id,
        verify: async (payload, signature) =>
          signature.code === ed25519.Verifier.signatureCode && (await check(payload, signature.raw)),
      } satisfies NativeVerifier;
    })();
    verifierCache.set(did, v);
    v.catch(() => verifierCache.delete(did));
  }
  return v;
}

export interface ReplayStore {
  /** true when cid was already seen (and is remembered until expiresAt, seconds). */
  seen(cid: string, expiresAt: number): boolean;
  /** true when cid was seen and is still remembered; remembers nothing. */
  has(cid: string): boolean;
}

/** An in-memory replay store: CIDs remembered until their expiry. */
export class MemoryReplayStore implements ReplayStore {
  private readonly map = new Map<string, number>();
  /**
   * Size at which expired entries are swept (doubles while the live ones alone exceed it, so a sweep stays amortised
   * O(1)).
   */
  private sweepAt = 10_000;
  private readonly now: () => number;
  /** `now`: the clock in seconds since the epoch (default the system's). */
  constructor(now: () => number = nowSeconds) {
    this.now = now;
  }
  seen(cid: string, expiresAt: number): boolean {
    const now = this.now();
    if (this.map.size > this.sweepAt) {
      for (const [k, exp] of this.map) if (exp < now) this.map.delete(k);
      this.sweepAt = Math.max(10_000, this.map.size * 2);
    }
    if (this.has(cid)) return true;
    this.map.set(cid, expiresAt);
    return false;
  }
  has(cid: string): boolean {
    const prev = this.map.get(cid);
    return prev !== undefined && prev >= this.now();
  }
}

interface VerifyOptions {
  oracleDid: string;
  /** CIDs refused (the token or any proof). */
  isRevoked?: (cid: string) => boolean | Promise<boolean>;
  replay?: ReplayStore;
  /** The time to check expiry and not-before against, seconds since the epoch (default the system clock's). */
  now?: number;
  /** Enforce the 900 s TTL (invocations). */
  enforceTtl?: boolean;
  /**
   * Enforce this TTL in seconds instead (a delegation used alone to authenticate); the setting's name for the error
   * message.
   */
  maxTtl?: { seconds: number; setting: string };
}

interface VerifiedUcan {
  /** The authenticated user (the token's issuer). */
  did: string;
  cid: string;
  expiration: number;
  view: API.Delegation;
  /** The CIDs of the token and of every proof in its chain (revoking any of them ends the credential). */
  cids: string[];
  /** When the credential ends (seconds): the earliest expiry in its chain. */
  validUntil: number;
}

/** The CIDs and the earliest expiry of a verified chain. */
function credentialOf(d: API.Delegation): { cids: string[]; validUntil: number } {
  const cids: string[] = [];
  let validUntil = Infinity;
  for (const node of chain(d)) {
    cids.push(node.cid.toString());
    validUntil = Math.min(validUntil, node.expiration);
  }
  return { cids, validUntil };
}

async function checkCommon(d: API.Delegation, o: VerifyOptions): Promise<void> {
  const now = o.now ?? nowSeconds();
  for (const node of chain(d)) {
    const iss = node.issuer.did();
    if (!isDidKeyEd25519(iss))
      throw runtimeError('unsupported_principal', `issuer ${iss} is not a did:key Ed25519 identity`);
    const cid = node.cid.toString();
    if (await o.isRevoked?.(cid)) throw runtimeError('revoked', `UCAN ${cid} is revoked`);
    const exp = node.expiration;
    if (exp == null || !Number.isFinite(exp)) throw runtimeError('missing_expiry', 'the UCAN has no expiry');
    if (exp <= now) throw runtimeError('expired', `the UCAN expired at ${new Date(exp * 1000).toISOString()}`);
    const nbf = node.notBefore;
    if (nbf != null && nbf > now + CLOCK_SKEW_SECONDS)
      throw runtimeError('not_yet_valid', `the UCAN is not valid before ${new Date(nbf * 1000).toISOString()}`);
    const ok = await UCAN.verifySignature(node.data, await nativeVerifier(iss));
    if (!ok) throw runtimeError('bad_signature', 'a UCAN signature does not verify');
    for (const p of node.proofs) {
      if (!Delegation.isDelegation(p))
        throw runtimeError('proof_chain_misaligned', 'a proof is referenced but not included');
      if ((p as API.Delegation).audience.did() !== iss)
        throw runtimeError('proof_chain_misaligned', "a proof's audience is not its child's issuer");
    }
  }
  if (o.enforceTtl || o.maxTtl) {
    // without not-before the lifetime is measured from this oracle's clock: a client clock ahead of it by up to
    // CLOCK_SKEW_SECONDS is tolerated, and past that the message says which clock may be wrong
    const fromOracleClock = d.notBefore == null;
    const now = o.now ?? nowSeconds();
    const start = d.notBefore ?? now;
    const max = o.maxTtl?.seconds ?? MAX_TTL_SECONDS;
    const lives = d.expiration - start;
    if (lives > max + (fromOracleClock ? CLOCK_SKEW_SECONDS : 0)) {
      const what = o.maxTtl
        ? `a delegation that logs in alone may live at most ${max} s (${o.maxTtl.setting})`
        : `an invocation may live at most ${max} s`;
      const clock = fromOracleClock
        ? ` The UCAN has no not-before, so its lifetime is counted from this oracle's clock ` +
          `(${new Date(now * 1000).toISOString()}): if the token was minted with a lifetime of at most ${max} s, the oracle's clock is behind the client's by about ${lives - max} s (set not-before, or fix the clock that is wrong).`
        : '';
      throw runtimeError('ttl_too_long', `the UCAN lives ${lives} s; ${what}.${clock}`);
    }
  }
}

/** The ucanto capability an invocation must carry for this oracle. */
function oracleCapability(oracleDid: string) {
  return capability({ can: ORACLE_ABILITY, with: Schema.literal(oracleDid as API.URI) });
}

/** Verifies an invocation token with every check of protocol.md; throws a 401 OracleKitError with its code. */
export async function verifyInvocation(token: string, o: VerifyOptions): Promise<VerifiedUcan> {
  const d = await decodeToken(token);
  if (d.audience.did() !== o.oracleDid)
    throw runtimeError('wrong_audience', `the audience is ${d.audience.did()}, not this oracle`);
  await checkCommon(d, { ...o, enforceTtl: true, maxTtl: undefined });
  const cap = oracleCapability(o.oracleDid);
  const covered = d.capabilities.some((c) => !cap.match({ capability: c, delegation: d } as never).error);
  if (!covered) throw runtimeError('capability_mismatch', `no capability ${ORACLE_ABILITY} with ${o.oracleDid}`);
  const cid = d.cid.toString();
  if (o.replay?.seen(cid, d.expiration))
    throw runtimeError(
      'replayed',
      'this invocation was already used (this oracle accepts each invocation once); send a new one',
    );
  return { did: d.issuer.did(), cid, expiration: d.expiration, view: d, ...credentialOf(d) };
}

/**
 * Verifies a user → oracle delegation token. `user`, when given, must be its
 * issuer (a delegation from another user is refused).
 */
export async function verifyDelegation(token: string, o: VerifyOptions & { user?: string }): Promise<VerifiedUcan> {
  const d = await decodeToken(token);
  if (d.audience.did() !== o.oracleDid)
    throw runtimeError('wrong_audience', `the audience is ${d.audience.did()}, not this oracle`);
  await checkCommon(d, o);
  if (o.user !== undefined && d.issuer.did() !== o.user)
    throw runtimeError('delegation_issuer_mismatch', 'the delegation was not issued by the authenticated user');
  return { did: d.issuer.did(), cid: d.cid.toString(), expiration: d.expiration, view: d, ...credentialOf(d) };
}

/**
 * Verifies a delegation that logs the user in alone (no invocation with it): verifyDelegation's checks, and it
 * must actually delegate to the oracle the user's own authority (a capability whose resource is its issuer, as
 * `{can: '*', with: <user DID>}`), must not be an invocation of this oracle (`oracle/use` on it), and, with a
 * replay store (strict mode), must not be a CID already used as an invocation.
 */
export async function verifyLoginDelegation(token: string, o: VerifyOptions): Promise<VerifiedUcan> {
  const v = await verifyDelegation(token, o);
  const caps = v.view.capabilities;
  const cap = oracleCapability(o.oracleDid);
  if (caps.some((c) => !cap.match({ capability: c, delegation: v.view } as never).error))
    throw runtimeError(
      'capability_mismatch',
      `this token invokes ${ORACLE_ABILITY} on this oracle: it is an invocation, not a delegation; send it as ` +
        `Authorization: Bearer <invocation> with X-Auth-Type: ucan`,
    );
  if (!caps.some((c) => c.with === v.did)) {
    const shown = caps
      .slice(0, 3)
      .map((c) => `${c.can} on ${String(c.with).slice(0, 80)}`)
      .join(', ');
    throw runtimeError(
      'capability_mismatch',
      `a delegation that logs in alone must delegate the user's own capabilities to the oracle (a capability with ` +
        `${v.did}, e.g. {can: '*', with: '${v.did}'}); this one delegates ${shown || 'nothing'}`,
    );
  }
  if (o.replay?.has(v.cid))
    throw runtimeError(
      'replayed',
      'this token was already used as an invocation; a used invocation never logs in again',
    );
  return v;
}
