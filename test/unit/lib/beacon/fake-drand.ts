/**
 * A drand chain of our own for tests (no network): a BLS key pair from
 * @noble/curves, chain info in drand's /info shape, and rounds signed exactly
 * as drand signs them — quicknet (bls-unchained-g1-rfc9380: signature on G1
 * over sha256(round as 8-byte big-endian)) and default mainnet
 * (pedersen-bls-chained: signature on G2 over sha256(previous_signature ||
 * round)). Verification in tests goes through production's path.
 */
import { createHash } from 'node:crypto';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';
import type { BeaconRound, ChainInfo } from '../../../../src/lib/beacon/drand.ts';

const G1_DST = 'BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_';
const G2_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_';

const sha = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest();
const roundBytes = (round: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(round));
  return b;
};
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

interface FakeChain {
  info: ChainInfo;
  sign(round: number): BeaconRound;
}

export function fakeChain(
  opts: {
    scheme?: 'bls-unchained-g1-rfc9380' | 'pedersen-bls-chained';
    genesis?: number;
    period?: number;
    seed?: number;
  } = {},
): FakeChain {
  const scheme = opts.scheme ?? 'bls-unchained-g1-rfc9380';
  const seedBytes = new Uint8Array(48).fill(opts.seed ?? 7);
  const g1 = scheme === 'bls-unchained-g1-rfc9380';
  const sigs = g1 ? bls.shortSignatures : bls.longSignatures;
  const { secretKey, publicKey } = sigs.keygen(seedBytes);
  const pk = hex(publicKey.toBytes(true));
  const info: ChainInfo = {
    public_key: pk,
    period: opts.period ?? 3,
    genesis_time: opts.genesis ?? Math.floor(Date.now() / 1000) - 3000,
    hash: createHash('sha256').update(`test chain ${scheme} ${pk}`).digest('hex'),
    schemeID: scheme,
    metadata: { beaconID: 'test' },
  };
  const sigCache = new Map<number, string>();
  const signatureOf = (round: number): string => {
    const cached = sigCache.get(round);
    if (cached) return cached;
    let msg: Uint8Array;
    if (g1) msg = sha(roundBytes(round));
    else msg = sha(Buffer.concat([Buffer.from(round > 1 ? signatureOf(round - 1) : '', 'hex'), roundBytes(round)]));
    const point = g1
      ? bls.shortSignatures.sign(bls.shortSignatures.hash(msg, G1_DST), secretKey)
      : bls.longSignatures.sign(bls.longSignatures.hash(msg, G2_DST), secretKey);
    const s = hex(point.toBytes(true));
    sigCache.set(round, s);
    return s;
  };
  return {
    info,
    sign(round: number): BeaconRound {
      const signature = signatureOf(round);
      const r: BeaconRound = { round, randomness: hex(sha(Buffer.from(signature, 'hex'))), signature };
      if (!g1) r.previous_signature = round > 1 ? signatureOf(round - 1) : '';
      return r;
    },
  };
}
