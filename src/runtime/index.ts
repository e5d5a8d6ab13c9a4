/**
 * The oracle runtime: createOracle (the one way to stand an oracle up), createOracleApp (it on its own fastify), the
 * plugin contract.
 */
export { createOracle, type Oracle, type OracleMountOptions } from './oracle.ts';
export { createOracleApp, type OracleApp } from './app.ts';
export type { OracleRuntime, OracleAppOptions, OracleHooks, OracleModel } from './runtime.ts';
export { RuntimeEnvSchema, type RuntimeEnv } from './settings.ts';
export { PUBLIC_ROUTES } from './routes.ts';
export type { SocketHandle } from './socket.ts';
export { BootError, type BootLogger } from './boot.ts';
export { RUNTIME_MIGRATIONS } from './migrations.ts';
export { BUNDLED_PLUGINS, userPreferencesPlugin, weatherPlugin } from './plugins/index.ts';
export { getUser, type AuthUser } from './auth.ts';
export * from './plugin.ts';
