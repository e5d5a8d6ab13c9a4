/** Barrel of the UCAN module: minting and decoding tokens (ucan.ts), verifying them (verify.ts). */
export * from './ucan.ts';
export * from './verify.ts';
