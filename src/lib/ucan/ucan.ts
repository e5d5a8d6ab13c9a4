/**
 * UCAN tokens over ucanto (protocol.md, "Authentication"): minting, encoding and decoding. Tokens are ucanto
 * UCANs ("ucan@0.9.1" IPLD blocks) sent as the base64 of a CAR archive (Delegation.archive /
 * Delegation.extract). This is what a client needs to sign requests; checking a token is verify.ts's job, so a
 * browser bundle carries no validator.
 *
 * - invocation: issued by the user (did:key Ed25519), audience exactly the oracle DID, capability
 *   {can: 'oracle/use', with: <oracle DID>}, living at most 900 s.
 * - delegation (x-ucan-delegation, POST /delegation): issued by the user, audience the oracle; it lets the oracle
 *   act for the user downstream, and (when the runtime allows it) logs the user in alone.
 */
import { Delegation, UCAN, invoke, delegate } from '@ucanto/core';
import type * as API from '@ucanto/interface';
import { runtimeError } from '../protocol/errors.ts';
import type { Signer } from '../keys/keys.ts';

/** The ability an invocation of an oracle carries. */
export const ORACLE_ABILITY = 'oracle/use';
/** The default longest lifetime of a delegation that logs in alone (ORACLE_UCAN_DELEGATION_MAX_TTL_S): 30 days. */
export const DEFAULT_DELEGATION_MAX_TTL_S = 30 * 24 * 3600;

/** Seconds since the epoch on the system clock. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Encodes a delegation or invocation view as base64 of its CAR archive. */
export async function encodeToken(d: API.Delegation): Promise<string> {
  const r = await Delegation.archive(d);
  if (r.error) throw r.error;
  return bytesToBase64(r.ok);
}

/** Standard base64 without Buffer, so clients can mint tokens in browsers too. */
function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+$/;

/** Decodes base64(CAR) into a ucanto delegation view; malformed_token otherwise. */
export async function decodeToken(token: string): Promise<API.Delegation> {
  const t = token.trim();
  if (t.length === 0 || t.length > 64_000 || !BASE64.test(t))
    throw runtimeError('malformed_token', 'the token is not base64');
  const bytes = Buffer.from(t, t.includes('-') || t.includes('_') ? 'base64url' : 'base64');
  let r: Awaited<ReturnType<typeof Delegation.extract>>;
  try {
    r = await Delegation.extract(new Uint8Array(bytes));
  } catch {
    throw runtimeError('malformed_token', 'the token is not a CAR archive of a ucanto UCAN');
  }
  if (r.error || !r.ok) throw runtimeError('malformed_token', 'the token is not a CAR archive of a ucanto UCAN');
  try {
    // touch the decoded fields: a CAR with a bogus root fails here
    void r.ok.issuer.did();
    void r.ok.audience.did();
    void r.ok.capabilities;
  } catch {
    throw runtimeError('malformed_token', 'the token does not decode as a UCAN');
  }
  await checkContentAddresses(r.ok);
  return r.ok;
}

/** The token and every proof it carries, depth first. */
export function* chain(d: API.Delegation): Generator<API.Delegation> {
  yield d;
  for (const p of d.proofs) if (Delegation.isDelegation(p)) yield* chain(p as API.Delegation);
}

/**
 * A CAR declares the CID of each block; nothing checks that it matches the bytes. Replay protection and
 * revocation are keyed on the CID, so the same signed UCAN re-wrapped under a made-up CID would be a new
 * token to them. Every block of the chain must therefore be the canonical encoding of its UCAN (dag-ucan's
 * own `write`: DAG-CBOR, or the raw JWT bytes) under the sha256 CID computed from those bytes; anything else
 * is malformed_token.
 */
async function checkContentAddresses(d: API.Delegation): Promise<void> {
  for (const node of chain(d)) {
    const declared = node.cid.toString();
    let computed: { cid: { toString(): string }; bytes: Uint8Array };
    try {
      computed = await UCAN.write(node.data);
    } catch {
      throw runtimeError('malformed_token', `block ${declared} does not encode as a UCAN`);
    }
    if (computed.cid.toString() !== declared || !sameBytes(computed.bytes, node.root.bytes))
      throw runtimeError(
        'malformed_token',
        `block ${declared} is not the content its CID names (its bytes hash to ${computed.cid.toString()}); a UCAN ` +
          `is accepted only under the CID of its canonical encoding`,
      );
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export interface MintOptions {
  issuer: Signer;
  /** The oracle DID. */
  audience: string;
  /** Lifetime in seconds from now (default 300 for invocations, 3600 for delegations). */
  ttlSeconds?: number;
  expiration?: number;
  notBefore?: number;
  proofs?: API.Delegation[];
  nonce?: string;
}

function audienceOf(did: string): API.Principal {
  return { did: () => did as API.DID };
}

/** An invocation of `oracle/use` on the oracle, from a did:key user, as a token. */
export async function mintInvocation(o: MintOptions & { can?: string; withResource?: string }): Promise<string> {
  const inv = invoke({
    issuer: o.issuer,
    audience: audienceOf(o.audience),
    capability: { can: (o.can ?? ORACLE_ABILITY) as API.Ability, with: (o.withResource ?? o.audience) as API.URI },
    expiration: o.expiration ?? nowSeconds() + (o.ttlSeconds ?? 300),
    notBefore: o.notBefore,
    proofs: o.proofs ?? [],
    nonce: o.nonce ?? crypto.randomUUID(),
  });
  return encodeToken(await inv.delegate());
}

/**
 * A user → oracle delegation (the user's capabilities on themselves, `*`), as a token and its view. Each has a nonce
 * of its own: a delegation is revoked by its CID, so two minted in the same second with the same lifetime must not be
 * the same delegation (a fresh one would otherwise be born revoked).
 */
export async function mintDelegation(
  o: MintOptions & { can?: string },
): Promise<{ token: string; delegation: API.Delegation }> {
  const d = await delegate({
    issuer: o.issuer,
    audience: audienceOf(o.audience),
    capabilities: [{ can: (o.can ?? '*') as API.Ability, with: o.issuer.did() }],
    expiration: o.expiration ?? nowSeconds() + (o.ttlSeconds ?? 3600),
    notBefore: o.notBefore,
    proofs: o.proofs ?? [],
    nonce: o.nonce ?? crypto.randomUUID(),
  });
  return { token: await encodeToken(d), delegation: d };
}
