/**
 * Identities of oraclekit: did:key Ed25519 principals derived from a BIP39
 * mnemonic. The seed (BIP39, no passphrase unless given) is turned into an
 * Ed25519 private key by SLIP-0010 (mnemonic.ts); the key is handed to
 * ucanto's ed25519 signer so the same principal signs UCANs. A browser signs
 * with the same key through webcrypto.ts, without ucanto.
 *
 * Secrets (mnemonic, private key) never leave this module except as the
 * signer object; nothing here logs.
 */
import { ed25519 } from '@ucanto/principal';
import type { EdSigner } from '@ucanto/principal/ed25519';
import { ed25519 as edCurve } from '@noble/curves/ed25519.js';
import { base58btc } from 'multiformats/bases/base58';
import { secretOf } from './mnemonic.ts';

export { generateMnemonic, isValidMnemonic } from './mnemonic.ts';

export type Signer = EdSigner;

/** The Ed25519 signer (did:key) of a BIP39 mnemonic. */
export async function signerFromMnemonic(
  mnemonic: string,
  opts: { path?: string; passphrase?: string } = {},
): Promise<Signer> {
  return ed25519.derive(secretOf(mnemonic, opts));
}

/** A fresh random did:key signer (tests, ephemeral identities). */
export async function generateSigner(): Promise<Signer> {
  return ed25519.generate();
}

export function isDidKeyEd25519(did: string): boolean {
  // multicodec ed25519-pub (0xed) in base58btc starts with z6Mk
  return /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{40,50}$/.test(did);
}

/** The did:key of an Ed25519 public key (multicodec 0xed, base58btc). */
export function didKeyFromPublicKey(pub: Uint8Array): string {
  const bytes = new Uint8Array(2 + pub.length);
  bytes[0] = 0xed;
  bytes[1] = 0x01;
  bytes.set(pub, 2);
  return `did:key:${base58btc.encode(bytes)}`;
}

/** The did:key of a mnemonic, synchronously (same key as signerFromMnemonic). */
export function didFromMnemonic(mnemonic: string, opts: { path?: string; passphrase?: string } = {}): string {
  const secret = secretOf(mnemonic, opts);
  return didKeyFromPublicKey(edCurve.getPublicKey(secret));
}
