/**
 * The user's identity in a page: a did:key Ed25519 signer from a BIP39 mnemonic, or a random one. The key code
 * (BIP39 and its word list, SLIP-0010, WebCrypto's Ed25519) is loaded on the first call, not with the page: an app
 * whose wallet signs elsewhere (OraclesProvider's createInvocation) never loads it.
 */
import type { Signer } from '../lib/keys/webcrypto.ts';

export type { Signer } from '../lib/keys/webcrypto.ts';

const keys = () => import('./keys.ts');

/** A new random BIP39 English mnemonic (24 words; 12 with strength 128). */
export async function generateMnemonic(strength: 128 | 256 = 256): Promise<string> {
  return (await keys()).generateMnemonic(strength);
}

/**
 * The signer of a BIP39 mnemonic: the same did:key as the CLI's identity of that mnemonic. A mnemonic that is not
 * BIP39 English is refused (`invalid_mnemonic`).
 * @example
 * const mnemonic = localStorage.getItem('mnemonic') ?? (await generateMnemonic());
 * const signer = await signerFromMnemonic(mnemonic);
 * signer.did(); // did:key:z6Mk…
 */
export async function signerFromMnemonic(
  mnemonic: string,
  opts: { path?: string; passphrase?: string } = {},
): Promise<Signer> {
  return (await keys()).signerFromMnemonic(mnemonic, opts);
}

/** A fresh random signer (an ephemeral identity). */
export async function generateSigner(): Promise<Signer> {
  return (await keys()).generateSigner();
}
