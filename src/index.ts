/**
 * oraclekit's package entry: build an oracle with createOracle (a fastify
 * plugin for your server) or createOracleApp (its own server) (docs/runtime.md),
 * write plugins against the plugin contract (docs/plugins.md), speak the
 * protocol with its shared schemas (docs/protocol.md). Tests of an oracle
 * import oraclekit/testing (src/testing.ts).
 */
export * from './runtime/index.ts';
export * as protocol from './lib/protocol/index.ts';
export type { AnyEvent, SseEventName, Message, Session } from './lib/protocol/index.ts';
export { signerFromMnemonic, generateMnemonic, generateSigner } from './lib/keys/keys.ts';
export { mintInvocation, mintDelegation } from './lib/ucan/ucan.ts';
export { verifyInvocation, verifyDelegation } from './lib/ucan/verify.ts';
export { fetchJson, preconnect } from './lib/fetch-json.ts';
export { readOracleConfig, OracleConfigFileSchema } from './lib/project-files.ts';
export type { OracleConfigFile } from './lib/project-files.ts';
export type { FetchJsonRequest, FetchJsonReply, FetchFailure } from './lib/fetch-json.ts';
