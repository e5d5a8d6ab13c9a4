/**
 * did:key Ed25519 signers for the client, over WebCrypto: the same principal as keys.ts's ucanto signer of the same
 * mnemonic (BIP39 seed, SLIP-0010 along the same path, the same did:key and the same deterministic signatures),
 * computed by the platform's PBKDF2, HMAC-SHA-512, SHA-256 and Ed25519 instead of JavaScript hashes, a JavaScript
 * curve and ucanto, so a page pays for the BIP39 word list and little else. mnemonic.ts is the synchronous
 * derivation the CLI and the runtime use; test/unit/lib/keys/webcrypto.test.ts holds the two to the same keys.
 *
 * The private key is imported as a non-extractable CryptoKey; only the public key is read out. Needs WebCrypto's
 * Ed25519: Node.js 22 or later, Chrome 137, Firefox 129, Safari 17 or later.
 */
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { didKeyFromEd25519 } from '../did/did.ts';
import { OracleKitError } from '../errors.ts';
import { DEFAULT_KEY_PATH, invalidMnemonic, normalise, parsePath } from './mnemonic.ts';

/** A user's signer: its did:key and Ed25519 signatures of UCAN payloads. A ucanto Ed25519 signer is one too. */
export interface Signer {
  did(): `did:key:${string}`;
  sign(payload: Uint8Array): { raw: Uint8Array } | PromiseLike<{ raw: Uint8Array }>;
}

type Bytes = Uint8Array<ArrayBuffer>;
const subtle = () => globalThis.crypto.subtle;
const utf8 = (s: string): Bytes => new TextEncoder().encode(s.normalize('NFKD'));

/** A new random BIP39 English mnemonic: 24 words, or 12 with strength 128. */
export async function generateMnemonic(strength: 128 | 256 = 256): Promise<string> {
  const entropy = crypto.getRandomValues(new Uint8Array(strength / 8));
  const check = new Uint8Array(await subtle().digest('SHA-256', entropy));
  const bits = [...entropy, check[0]!].map((b) => b.toString(2).padStart(8, '0')).join('');
  const words: string[] = [];
  for (let i = 0; i < (strength + strength / 32) / 11; i++)
    words.push(wordlist[parseInt(bits.slice(i * 11, i * 11 + 11), 2)]!);
  entropy.fill(0);
  return words.join(' ');
}

let index: Map<string, number> | undefined;

/** Whether a normalised mnemonic is BIP39 English: known words, 12 to 24 of them, and its checksum. */
async function isValid(m: string): Promise<boolean> {
  index ??= new Map(wordlist.map((w, i) => [w, i]));
  const words = m.split(' ');
  if (![12, 15, 18, 21, 24].includes(words.length)) return false;
  let bits = '';
  for (const w of words) {
    const i = index.get(w);
    if (i === undefined) return false;
    bits += i.toString(2).padStart(11, '0');
  }
  const cs = words.length / 3;
  const entropy = Uint8Array.from(bits.slice(0, -cs).match(/.{8}/g)!, (b) => parseInt(b, 2));
  const hash = new Uint8Array(await subtle().digest('SHA-256', entropy));
  return hash[0]!.toString(2).padStart(8, '0').slice(0, cs) === bits.slice(-cs);
}

async function hmacSha512(key: Bytes, data: Bytes): Promise<Bytes> {
  const k = await subtle().importKey('raw', key, { name: 'HMAC', hash: 'SHA-512' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', k, data));
}

/** The Ed25519 secret of a mnemonic: SLIP-0010 along `path` from its BIP39 seed (PBKDF2-SHA-512, 2048 rounds). */
async function secretOf(mnemonic: string, opts: { path?: string; passphrase?: string }): Promise<Bytes> {
  const m = normalise(mnemonic);
  if (!(await isValid(m))) throw invalidMnemonic();
  const path = parsePath(opts.path ?? DEFAULT_KEY_PATH);
  const pw = await subtle().importKey('raw', utf8(m), 'PBKDF2', false, ['deriveBits']);
  const salt = utf8(`mnemonic${opts.passphrase ?? ''}`);
  const seed = new Uint8Array(
    await subtle().deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations: 2048 }, pw, 512),
  );
  let I = await hmacSha512(new TextEncoder().encode('ed25519 seed'), seed);
  for (const i of path) {
    const data = new Uint8Array(37);
    data.set(I.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, i, false);
    I = await hmacSha512(I.slice(32), data);
  }
  seed.fill(0);
  return I.slice(0, 32);
}

/** The PKCS8 (RFC 5958) form of an Ed25519 private key: this DER prefix, then the 32-byte seed. */
const PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];

/** The signer of a 32-byte Ed25519 secret. */
async function signerFromSecret(secret: Bytes): Promise<Signer> {
  const pkcs8 = Uint8Array.from([...PKCS8_PREFIX, ...secret]);
  secret.fill(0);
  let key: CryptoKey;
  let pub: Uint8Array;
  try {
    // once extractable, to read the public key (JWK `x`), then kept non-extractable for signing
    const jwk = await subtle().exportKey('jwk', await subtle().importKey('pkcs8', pkcs8, 'Ed25519', true, ['sign']));
    pub = Uint8Array.from(atob(jwk.x!.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    key = await subtle().importKey('pkcs8', pkcs8, 'Ed25519', false, ['sign']);
  } catch (cause) {
    throw new OracleKitError({
      status: 500,
      code: 'ed25519_unsupported',
      message:
        `this environment's WebCrypto cannot sign with Ed25519 (${String(cause)}); valid: Node.js 22 or later, ` +
        'Chrome 137, Firefox 129, Safari 17 or later',
    });
  } finally {
    pkcs8.fill(0);
  }
  const did = didKeyFromEd25519(pub) as `did:key:${string}`;
  return {
    did: () => did,
    sign: async (payload) => ({ raw: new Uint8Array(await subtle().sign('Ed25519', key, payload as Bytes)) }),
  };
}

/** The signer of a BIP39 mnemonic (the did:key of keys.ts's signerFromMnemonic); invalid_mnemonic otherwise. */
export async function signerFromMnemonic(
  mnemonic: string,
  opts: { path?: string; passphrase?: string } = {},
): Promise<Signer> {
  return signerFromSecret(await secretOf(mnemonic, opts));
}

/** A fresh random signer (ephemeral identities). */
export async function generateSigner(): Promise<Signer> {
  return signerFromSecret(crypto.getRandomValues(new Uint8Array(32)));
}
