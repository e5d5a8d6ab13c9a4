/**
 * Identities of oraclekit: did:key Ed25519 principals derived from a BIP39
 * mnemonic. The seed (BIP39, no passphrase unless given) is turned into an
 * Ed25519 private key by SLIP-0010 along a hardened path (default
 * m/44'/118'/0'/0'/0', 118 being the Cosmos coin type IXO uses); the key is
 * handed to ucanto's ed25519 signer so the same principal signs UCANs.
 *
 * Secrets (mnemonic, private key) never leave this module except as the
 * signer object; nothing here logs.
 */
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { ed25519 } from '@ucanto/principal';
import type { EdSigner } from '@ucanto/principal/ed25519';
import { ed25519 as edCurve } from '@noble/curves/ed25519.js';
import { base58btc } from 'multiformats/bases/base58';
import { OracleKitError } from '../errors.ts';

export type Signer = EdSigner;
const DEFAULT_KEY_PATH = "m/44'/118'/0'/0'/0'";

export function generateMnemonic(strength: 128 | 256 = 256): string {
  return bip39Generate(wordlist, strength);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalise(mnemonic), wordlist);
}

function normalise(m: string): string {
  return m.trim().toLowerCase().split(/\s+/).join(' ');
}

const HARDENED = 0x8000_0000;

function parsePath(path: string): number[] {
  const parts = path.split('/');
  if (parts[0] !== 'm') throw invalidPath(path);
  return parts.slice(1).map((p) => {
    const m = /^(\d+)'$/.exec(p);
    if (!m) throw invalidPath(path); // SLIP-0010 ed25519 supports hardened children only
    const n = Number(m[1]);
    if (n >= HARDENED) throw invalidPath(path);
    return n + HARDENED;
  });
}

function invalidPath(path: string): OracleKitError {
  return new OracleKitError({
    status: 400,
    code: 'invalid_key_path',
    message: `key path ${path} is invalid; valid: m/<n>'/<n>'… (hardened only)`,
    field: 'path',
    value: path,
  });
}

/** SLIP-0010 ed25519: the 32-byte private key at `path` of `seed`. */
function slip10Ed25519(seed: Uint8Array, path: string = DEFAULT_KEY_PATH): Uint8Array {
  let I = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed);
  let key = I.slice(0, 32);
  let chain = I.slice(32);
  for (const index of parsePath(path)) {
    const data = new Uint8Array(37);
    data[0] = 0;
    data.set(key, 1);
    new DataView(data.buffer).setUint32(33, index, false);
    I = hmac(sha512, chain, data);
    key = I.slice(0, 32);
    chain = I.slice(32);
  }
  return key;
}

/** The Ed25519 secret a mnemonic derives (SLIP-10 on its BIP39 seed); a mnemonic that is not BIP39 English is refused. */
function secretOf(mnemonic: string, opts: { path?: string; passphrase?: string }): Uint8Array {
  const m = normalise(mnemonic);
  if (!validateMnemonic(m, wordlist)) {
    throw new OracleKitError({
      status: 400,
      code: 'invalid_mnemonic',
      message: 'the signing mnemonic is not a valid BIP39 English mnemonic',
      field: 'mnemonic',
    });
  }
  return slip10Ed25519(mnemonicToSeedSync(m, opts.passphrase ?? ''), opts.path ?? DEFAULT_KEY_PATH);
}

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
