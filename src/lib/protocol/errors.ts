/**
 * The runtime area's shared error table: every error the runtime's own
 * routes, SSE streams and socket.io handshake can produce, and the shared
 * codes plugins use too (upstream_error, validation_failed, not_ready).
 * A plugin's own codes live with the plugin (its `errors`, docs/plugins.md)
 * and are merged with these at boot. The wire body is OracleKitError.toBody():
 * {statusCode, code, message, field?, details?} with statusCode equal to the
 * HTTP status (protocol.md, "Conventions").
 */
import { HTTP_ERRORS, messageErrorFactory } from '../errors.ts';

export const RUNTIME_ERRORS = {
  // the HTTP layer's codes (JSON syntax, schema validation, 404 route, limits, internal_error), shared with the
  // registry (src/lib/errors.ts)
  ...HTTP_ERRORS,
  // 400
  validation_failed: { status: 400, when: "a plugin's or the socket.io handshake's own check of its input failed" },
  // 401 — one code per authentication check (protocol.md, "Authentication")
  missing_token: { status: 401, when: 'no Authorization: Bearer invocation (and no allowed delegation fallback)' },
  unsupported_auth_type: { status: 401, when: 'X-Auth-Type is present and not ucan' },
  malformed_token: {
    status: 401,
    when: 'the token is not base64 of a CAR holding a ucanto UCAN, or a block is not the content its CID names',
  },
  wrong_audience: { status: 401, when: 'the audience is not exactly the oracle DID' },
  missing_expiry: { status: 401, when: 'the UCAN has no expiry' },
  expired: { status: 401, when: 'the UCAN (or a proof) has expired' },
  not_yet_valid: { status: 401, when: 'not-before is more than 60 s in the future' },
  ttl_too_long: { status: 401, when: 'expiry is more than 900 s after not-before (or now)' },
  bad_signature: { status: 401, when: 'a signature does not verify' },
  capability_mismatch: {
    status: 401,
    when: "no capability covers the oracle resource; or a delegation logging in alone is an invocation or delegates nothing of the user's",
  },
  proof_chain_misaligned: { status: 401, when: "a proof's audience is not its child's issuer, or a proof is invalid" },
  replayed: { status: 401, when: 'the invocation CID was already used before its expiry' },
  revoked: { status: 401, when: 'the token or one of its proofs is revoked' },
  delegation_issuer_mismatch: { status: 401, when: 'a delegation header not issued by the authenticated user' },
  unsupported_principal: { status: 401, when: 'the issuer is not a did:key Ed25519 identity' },
  signing_key_missing: { status: 401, when: "the runtime's signing key (from its mnemonic) is not loaded yet" },
  // 402
  payment_required: { status: 402, when: 'unpaid use of a priced oracle' },
  // 403
  forbidden: { status: 403, when: 'the resource belongs to another user' },
  origin_not_allowed: {
    status: 403,
    when: 'a socket.io upgrade from a page of another origin than CORS_ORIGINS allows',
  },
  user_not_allowed: {
    status: 403,
    when: 'the authenticated user is not on the oracle’s allow-list (ORACLE_ALLOWED_USERS)',
  },
  // 404
  session_not_found: { status: 404, when: "no such session among the caller's own" },
  run_not_found: { status: 404, when: "no such run among the caller's own" },
  no_active_run: { status: 404, when: 'abort asked for a session with no running run' },
  // 400 (a turn's own input)
  model_not_listed: { status: 400, when: 'a turn names a model that GET /models does not list' },
  // 429
  rate_limited: {
    status: 429,
    when: 'the user started more turns than ORACLE_USER_TURNS_PER_MINUTE allows; retry after Retry-After seconds',
  },
  // 421
  misdirected_host: {
    status: 421,
    when: 'the Host header names another server than this one (the loopback names, or ORACLE_ALLOWED_HOSTS)',
  },
  // 409
  run_in_progress: { status: 409, when: 'a message was sent while the session already has a running run' },
  // 5xx
  plugin_not_installed: {
    status: 501,
    when: "the route is a plugin's whose package is not installed beside the runtime (the message names the package)",
  },
  upstream_error: { status: 502, when: 'an upstream service (model provider, weather API, …) failed' },
  not_ready: { status: 503, when: 'plugins are pending or the signing key is not loaded' },
  model_not_configured: { status: 503, when: 'no LLM_BASE_URL / model configured' },
  redis_unavailable: {
    status: 503,
    when: 'the Redis the instances of this oracle share (ORACLE_REDIS_URL) does not answer; retry shortly',
  },
} as const;

export type RuntimeErrorCode = keyof typeof RUNTIME_ERRORS;

/** Codes of the 401 family, in the order the checks run. */
export const AUTH_ERROR_CODES = Object.entries(RUNTIME_ERRORS)
  .filter(([k, v]) => v.status === 401 && !(k in HTTP_ERRORS))
  .map(([k]) => k as RuntimeErrorCode);

export const runtimeError = messageErrorFactory(RUNTIME_ERRORS);

/** Error kinds of the SSE `error` event. */
export const ERROR_KINDS = [
  'provider',
  'timeout',
  'malformed_stream',
  'tool',
  'step_limit',
  'limit',
  'aborted',
  'internal',
  'payment',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];
