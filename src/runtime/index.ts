/** The oracle runtime: createOracleApp, the daemon's mount, the plugin contract. */
export { createOracleApp, mountOracleRuntime, type OracleApp } from './app.ts';
export { OracleRuntime, type OracleAppOptions, type OracleHooks } from './runtime.ts';
export { registerOracleRuntime, type RuntimeRoutesOptions, PUBLIC_ROUTES } from './routes.ts';
export { attachSocketIo, type SocketHandle } from './socket.ts';
export { BootError, type BootLogger } from './boot.ts';
export { RUNTIME_MIGRATIONS } from './migrations.ts';
export { BUNDLED_PLUGINS, userPreferencesPlugin, weatherPlugin } from './plugins/index.ts';
export { getUser, type AuthUser } from './auth.ts';
export * from './plugin.ts';
