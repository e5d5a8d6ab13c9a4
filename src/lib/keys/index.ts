/** Barrel of the keys module (keys.ts): mnemonics, did:key signers. */
export * from './keys.ts';
