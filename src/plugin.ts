/**
 * oraclekit/plugin: what a plugin shipped as a package of its own (such as
 * @oraclekit/calls) builds on: the plugin contract, the authenticated user of
 * a request, the runtime's errors, the protocol's schemas, the one outbound
 * HTTP helper and the storage contract. It loads none of the runtime's server
 * (createOracle, the bundled plugins), so the runtime can load such a package
 * while it boots.
 */
export * from './runtime/plugin.ts';
export { getUser, type AuthUser } from './runtime/auth.ts';
export { isLoopbackAddress } from './runtime/host-check.ts';
export type { Run } from './runtime/run.ts';
export type { Migration, Storage } from './storage/storage.ts';
export { runtimeError, RUNTIME_ERRORS, type RuntimeErrorCode } from './lib/protocol/errors.ts';
export { IdParamsSchema } from './lib/protocol/http.ts';
export * from './lib/protocol/calls.ts';
export { fetchJson, fetchOutbound, preconnect } from './lib/fetch-json.ts';
export type { FetchJsonRequest, FetchJsonReply, FetchFailure } from './lib/fetch-json.ts';
