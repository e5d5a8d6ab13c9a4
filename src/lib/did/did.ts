/**
 * DID syntax (W3C DID Core, anchored) and per-method rules:
 * - did:key — the method-specific id is multibase base58btc ('z') of a
 *   multicodec-prefixed public key: ed25519-pub (0xed, 32 bytes),
 *   secp256k1-pub (0xe7, 33 bytes compressed), p256-pub (0x1200, 33 bytes
 *   compressed); the key bytes must be a valid point of the curve.
 * - did:ixo:entity: — 32 lowercase hex characters.
 * At most 256 characters in all (registry.md leaves the bound to us).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { p256 } from '@noble/curves/nist.js';

const DID_MAX_LENGTH = 256;
export const DID_SYNTAX =
  /^did:[a-z0-9]+:(?:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+$/;
const IXO_ENTITY = /^did:ixo:entity:[0-9a-f]{32}$/;

type DidProblem =
  | 'not_a_string'
  | 'too_long'
  | 'syntax'
  | 'ixo_entity'
  | 'key_multibase'
  | 'key_multicodec'
  | 'key_length'
  | 'key_point';

interface DidCheck {
  ok: boolean;
  problem?: DidProblem;
  reason?: string;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B58_MAP = new Map([...B58].map((c, i) => [c, i]));

/** Decodes base58btc (Bitcoin alphabet); undefined on a character outside it. */
export function base58Decode(s: string): Uint8Array | undefined {
  let n = 0n;
  for (const c of s) {
    const v = B58_MAP.get(c);
    if (v === undefined) return undefined;
    n = n * 58n + BigInt(v);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.push(Number(n & 0xffn));
    n >>= 8n;
  }
  for (const c of s) {
    if (c !== '1') break;
    bytes.push(0);
  }
  return Uint8Array.from(bytes.reverse());
}

export function base58Encode(b: Uint8Array): string {
  let n = 0n;
  for (const x of b) n = (n << 8n) | BigInt(x);
  let out = '';
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const x of b) {
    if (x !== 0) break;
    out = '1' + out;
  }
  return out;
}

/** Unsigned varint (multiformats); [value, bytes read] or undefined. */
function readVarint(b: Uint8Array): [number, number] | undefined {
  let v = 0;
  for (let i = 0; i < Math.min(b.length, 4); i++) {
    const x = b[i]!;
    v += (x & 0x7f) * 2 ** (7 * i);
    if ((x & 0x80) === 0) return [v, i + 1];
  }
  return undefined;
}

const KEY_CODECS: Record<number, { name: string; length: number; valid: (k: Uint8Array) => boolean }> = {
  0xed: { name: 'ed25519-pub', length: 32, valid: (k) => pointOk(() => ed25519.Point.fromBytes(k)) },
  0xe7: { name: 'secp256k1-pub', length: 33, valid: (k) => pointOk(() => secp256k1.Point.fromBytes(k)) },
  0x1200: { name: 'p256-pub', length: 33, valid: (k) => pointOk(() => p256.Point.fromBytes(k)) },
};

function pointOk(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

function fail(problem: DidProblem, reason: string): DidCheck {
  return { ok: false, problem, reason };
}

/** Checks a DID: anchored syntax, length, and the per-method rules above. */
export function checkDid(did: unknown): DidCheck {
  if (typeof did !== 'string') return fail('not_a_string', 'a DID must be a string');
  if (did.length > DID_MAX_LENGTH) return fail('too_long', `a DID is at most ${DID_MAX_LENGTH} characters`);
  if (!DID_SYNTAX.test(did))
    return fail(
      'syntax',
      'W3C DID syntax did:<method>:<method-specific-id> (lowercase method; no path, query, fragment or trailing colon; % escapes as two hex digits)',
    );
  if (did.startsWith('did:ixo:entity:') && !IXO_ENTITY.test(did))
    return fail('ixo_entity', 'did:ixo:entity: followed by exactly 32 lowercase hex characters');
  if (did.startsWith('did:key:')) return checkDidKey(did.slice('did:key:'.length));
  return { ok: true };
}

function checkDidKey(id: string): DidCheck {
  if (!id.startsWith('z') || id.length < 2)
    return fail('key_multibase', "did:key: multibase base58btc (a leading 'z')");
  const bytes = base58Decode(id.slice(1));
  if (!bytes) return fail('key_multibase', 'did:key: base58btc characters only');
  const vi = readVarint(bytes);
  const codec = vi ? KEY_CODECS[vi[0]] : undefined;
  if (!vi || !codec)
    return fail(
      'key_multicodec',
      'did:key: a multicodec ed25519-pub (0xed), secp256k1-pub (0xe7) or p256-pub (0x1200) key',
    );
  const key = bytes.subarray(vi[1]);
  if (key.length !== codec.length)
    return fail('key_length', `did:key: a ${codec.name} key is ${codec.length} bytes, got ${key.length}`);
  if (!codec.valid(key)) return fail('key_point', `did:key: the bytes are not a valid ${codec.name} point`);
  return { ok: true };
}

/** did:key for an ed25519 public key (tests and tools). */
export function didKeyFromEd25519(pub: Uint8Array): string {
  return 'did:key:z' + base58Encode(Uint8Array.from([0xed, 0x01, ...pub]));
}
