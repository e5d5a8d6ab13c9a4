/**
 * The Ed25519 secret of a BIP39 mnemonic: the seed (BIP39, no passphrase
 * unless given) turned into a private key by SLIP-0010 along a hardened path
 * (default m/44'/118'/0'/0'/0', 118 being the Cosmos coin type IXO uses). The
 * one derivation of oraclekit's identities, for the CLI's ucanto signer
 * (keys.ts) and the browser's WebCrypto signer (webcrypto.ts) alike; it loads
 * no UCAN code. Secrets never leave this module except as the returned key;
 * nothing here logs.
 */
import { generateMnemonic as bip39Generate, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { OracleKitError } from '../errors.ts';

export const DEFAULT_KEY_PATH = "m/44'/118'/0'/0'/0'";

export function generateMnemonic(strength: 128 | 256 = 256): string {
  return bip39Generate(wordlist, strength);
}

export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(normalise(mnemonic), wordlist);
}

/** A mnemonic as BIP39 reads it: trimmed, lower case, single spaces. */
export function normalise(m: string): string {
  return m.trim().toLowerCase().split(/\s+/).join(' ');
}

const HARDENED = 0x8000_0000;

/** The child indexes of a SLIP-0010 path (`m/44'/118'/…`, hardened only); invalid_key_path otherwise. */
export function parsePath(path: string): number[] {
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
export function secretOf(mnemonic: string, opts: { path?: string; passphrase?: string }): Uint8Array {
  const m = normalise(mnemonic);
  if (!validateMnemonic(m, wordlist)) throw invalidMnemonic();
  return slip10Ed25519(mnemonicToSeedSync(m, opts.passphrase ?? ''), opts.path ?? DEFAULT_KEY_PATH);
}

export function invalidMnemonic(): OracleKitError {
  return new OracleKitError({
    status: 400,
    code: 'invalid_mnemonic',
    message: 'the signing mnemonic is not a valid BIP39 English mnemonic',
    field: 'mnemonic',
  });
}
