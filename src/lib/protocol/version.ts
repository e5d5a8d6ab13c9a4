/**
 * Versions of the oracle runtime and of its wire protocol (protocol.md,
 * "Versioning"): additive changes only within a major version. The runtime
 * prints `runtime v<RUNTIME_VERSION>` at boot and reports it on /health.
 */
export const PROTOCOL_VERSION = '1.0.0';
export const RUNTIME_VERSION = '1.0.0';
