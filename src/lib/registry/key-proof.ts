/**
 * The DID proof of an API key's creation (registry.md, "DID proof at key
 * creation"): the holder of the key's DID signs a challenge that names the
 * DID, the roles and the time, so an admin cannot mint a key in someone
 * else's name without them. Shared by the daemon (which checks it,
 * src/daemon/registry/did-proof.ts) and the CLI (which makes it with the
 * identity it holds).
 *
 *   oraclekit-api-key <did> <roles, sorted, unique, comma-separated> <issuedAt, ISO 8601 UTC with milliseconds, as
 * toISOString>
 *
 * The signature is over the UTF-8 bytes of that line, base64url (or base64)
 * of 64 bytes: Ed25519 for an ed25519 did:key; ECDSA over SHA-256, compact
 * (r‖s, low S) for a secp256k1 or P-256 did:key — the conventions of the QR
 * sign-in (src/cli/identity/qr.ts). Only did:key DIDs can prove: their public
 * key is in the DID itself.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p256 } from '@noble/curves/nist.js';
import { base58Decode } from '../did/did.ts';

export interface KeyProof {
  challenge: string;
  signature: string;
}

const PREFIX = 'oraclekit-api-key';

/** The challenge line to sign for a key of `did` with `roles`, issued at `at` (ms). */
export function keyProofChallenge(did: string, roles: readonly string[], at: number): string {
  return `${PREFIX} ${did} ${[...new Set(roles)].sort().join(',')} ${new Date(at).toISOString()}`;
}

/** The proof for a key of `did` with `roles`, signed by `signer` (the DID's own Ed25519 key) at `now`. */
export async function signKeyProof(
  signer: { sign(bytes: Uint8Array): PromiseLike<{ raw: Uint8Array }> | { raw: Uint8Array } },
  did: string,
  roles: readonly string[],
  now: number,
): Promise<KeyProof> {
  const challenge = keyProofChallenge(did, roles, now);
  const sig = await signer.sign(new TextEncoder().encode(challenge));
  return { challenge, signature: Buffer.from(sig.raw).toString('base64url') };
}

interface ParsedChallenge {
  did: string;
  roles: string;
  issuedAt: number;
}

/** The parts of a challenge line, or undefined when it is not one. */
export function parseKeyProofChallenge(challenge: string): ParsedChallenge | undefined {
  const m = /^oraclekit-api-key (did:\S+) ([a-z,]+) (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/.exec(challenge);
  if (!m) return undefined;
  const issuedAt = Date.parse(m[3]!);
  // the time exactly as toISOString writes it: a date that does not exist (02-30) does not round-trip
  return Number.isFinite(issuedAt) && new Date(issuedAt).toISOString() === m[3]
    ? { did: m[1]!, roles: m[2]!, issuedAt }
    : undefined;
}

const CURVES = {
  0xed: { len: 32, verify: (sig: Uint8Array, msg: Uint8Array, pub: Uint8Array) => ed25519.verify(sig, msg, pub) },
  0xe7: { len: 33, verify: (sig: Uint8Array, msg: Uint8Array, pub: Uint8Array) => secp256k1.verify(sig, msg, pub) },
  0x1200: { len: 33, verify: (sig: Uint8Array, msg: Uint8Array, pub: Uint8Array) => p256.verify(sig, msg, pub) },
} as const;

/** The multicodec and public key of a did:key, or undefined (another method, or not a key we know). */
function keyOf(
  did: string,
): { verify: (sig: Uint8Array, msg: Uint8Array, pub: Uint8Array) => boolean; pub: Uint8Array } | undefined {
  if (!did.startsWith('did:key:z')) return undefined;
  const b = base58Decode(did.slice('did:key:z'.length));
  if (!b || b.length < 3) return undefined;
  // the three codecs as varints: 0xed 0x01, 0xe7 0x01, 0x80 0x24
  const [code, at] = b[0] === 0x80 && b[1] === 0x24 ? [0x1200, 2] : b[1] === 0x01 ? [b[0]!, 2] : [-1, 0];
  const c = CURVES[code as keyof typeof CURVES] as (typeof CURVES)[keyof typeof CURVES] | undefined;
  if (!c || b.length - at !== c.len) return undefined;
  return { verify: c.verify, pub: b.subarray(at) };
}

/** Whether a DID can make a proof (a did:key of ed25519, secp256k1 or P-256). */
export function canProve(did: string): boolean {
  return keyOf(did) !== undefined;
}

/** 64 bytes from base64url or base64 text, or undefined. */
export function decodeSignature(s: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]{86}(?:==)?$/.test(s)) return undefined;
  const b = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return b.length === 64 ? new Uint8Array(b) : undefined;
}

/** Whether `signature` is the DID's key's signature over `challenge`. */
export function verifyKeyProof(did: string, challenge: string, signature: Uint8Array): boolean {
  const k = keyOf(did);
  if (!k) return false;
  try {
    return k.verify(signature, new TextEncoder().encode(challenge), k.pub);
  } catch {
    return false;
  }
}
