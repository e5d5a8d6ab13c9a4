/**
 * The BLS check of a drand round, as drand signs it (drand's "crypto/schemes.go"), with @noble/curves:
 * - bls-unchained-g1-rfc9380 (quicknet): signature on G1, public key on G2, over sha256(round as 8-byte big-endian),
 *   hashed to G1 with RFC 9380's G1 tag;
 * - bls-unchained-on-g1: the same, hashed to G1 with the G2 tag (the scheme rfc9380 replaced);
 * - pedersen-bls-chained (default mainnet): signature on G2, public key on G1, over
 *   sha256(previous_signature || round);
 * - pedersen-bls-unchained: the same over sha256(round).
 * A signature, key or message that does not decode is false, never a throw.
 */
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import { createSha256 } from '../hash.ts';
import type { SchemeId } from './drand.ts';

const G1_DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';
const G2_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_';

function message(scheme: SchemeId, round: number, previousSignature: string | undefined): Uint8Array {
  const r = Buffer.alloc(8);
  r.writeBigUInt64BE(BigInt(round));
  const chained = scheme === 'pedersen-bls-chained' ? Buffer.from(previousSignature ?? '', 'hex') : Buffer.alloc(0);
  return createSha256().update(chained).update(r).digest();
}

export function verifyDrandSignature(
  scheme: SchemeId,
  publicKeyHex: string,
  round: number,
  signatureHex: string,
  previousSignatureHex?: string,
): boolean {
  try {
    const msg = message(scheme, round, previousSignatureHex);
    const sig = Uint8Array.from(Buffer.from(signatureHex, 'hex'));
    const pk = Uint8Array.from(Buffer.from(publicKeyHex, 'hex'));
    if (scheme === 'bls-unchained-g1-rfc9380' || scheme === 'bls-unchained-on-g1') {
      const s = bls.shortSignatures;
      const dst = scheme === 'bls-unchained-g1-rfc9380' ? G1_DST : G2_DST;
      return s.verify(s.Signature.fromBytes(sig), s.hash(msg, dst), bls.G2.Point.fromBytes(pk));
    }
    const l = bls.longSignatures;
    return l.verify(l.Signature.fromBytes(sig), l.hash(msg, G2_DST), bls.G1.Point.fromBytes(pk));
  } catch {
    return false;
  }
}
