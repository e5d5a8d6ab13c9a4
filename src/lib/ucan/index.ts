/** Barrel of the UCAN module (ucan.ts): minting, encoding and verifying tokens. */
export * from './ucan.ts';
