/** The chunk signer.ts loads on demand: mnemonics and WebCrypto signers. */
export { generateMnemonic, signerFromMnemonic, generateSigner } from '../lib/keys/webcrypto.ts';
