/**
 * The registry area's one error table (registry.md "Errors"): every error the
 * daemon sends — its own, and the HTTP layer's (HTTP_ERRORS: JSON syntax,
 * validation, 404 route, body too large, internal_error) that the one mapper
 * `toErrorBody` (src/lib/errors.ts) gives fastify's errors.
 * Sampling errors (sampling.md) pass through with their own codes.
 */
import { fieldErrorFactory, HTTP_ERRORS, messageErrorFactory } from '../errors.ts';

export const REGISTRY_ERRORS = {
  // the HTTP layer's codes (JSON syntax, schema validation, 404 route, limits, internal_error), shared with the runtime
  ...HTTP_ERRORS,
  unauthenticated: { status: 401, when: 'no Authorization: Bearer key, or an unknown or revoked key' },
  rate_limited: { status: 429, when: 'too many requests for this key in the window' },
  // 400 syntax
  missing_field: { status: 400, when: 'a required field is absent' },
  invalid_did: {
    status: 400,
    when: 'a DID fails the anchored W3C syntax or its method rule (did:key, did:ixo:entity:)',
  },
  invalid_type: {
    status: 400,
    when: 'domain type is not one of Organisation, Project, Asset, Device, Protocol, Oracle, Request',
  },
  class_protocol_mismatch: { status: 400, when: 'class and its alias protocol both given and different' },
  invalid_controllers: { status: 400, when: 'controllers not 1–16 unique DIDs (after adding the caller)' },
  invalid_metadata: {
    status: 400,
    when: 'metadata not an object, over 16 KiB, deeper than 8, or with __proto__/constructor/prototype keys',
  },
  invalid_service: {
    status: 400,
    when: 'a service is not {id, type, serviceEndpoint} with an http(s) URL without credentials, or ids repeat',
  },
  invalid_date: { status: 400, when: 'validFrom/validUntil not RFC 3339 with a zone' },
  class_required: { status: 400, when: 'class missing for a type other than Protocol' },
  invalid_also_known_as: { status: 400, when: 'alsoKnownAs not a non-empty string of at most 256 characters' },
  invalid_package: { status: 400, when: 'a verification package is not {documents: [{url, hash}]}' },
  invalid_role: {
    status: 400,
    when: 'a role other than admin, representative, voter, verifier, member, reader; or reader with another role',
  },
  did_proof_required: {
    status: 400,
    when: 'creating a key without a DID proof where the deployment sets requireDidProof',
  },
  did_proof_invalid: {
    status: 400,
    when:
      "a key's DID proof is malformed, names another DID or other roles, is for a DID that is not a did:key, " +
      'or its signature does not verify',
  },
  did_proof_stale: {
    status: 400,
    when:
      "a key's DID proof challenge was issued more than 5 minutes ago (or over 1 minute ahead), or was " +
      'already used',
  },
  // 401 / 403
  forbidden_role: { status: 403, when: 'the key lacks the role the route needs' },
  read_only_key: {
    status: 403,
    when: 'a key with the reader role (read-only) sent a request that writes (any method but GET and HEAD)',
  },
  not_controller: { status: 403, when: 'the caller is not a controller of the domain' },
  not_in_snapshot: { status: 403, when: "the voter is not in the proposal's voter snapshot" },
  // 404
  domain_not_found: { status: 404, when: 'no domain with this DID' },
  design_not_found: { status: 404, when: 'no design with this id' },
  proposal_not_found: { status: 404, when: 'no proposal with this id' },
  key_not_found: { status: 404, when: 'no API key with this id' },
  // 409 conflicts
  duplicate_also_known_as: { status: 409, when: 'alsoKnownAs already used in this class by a live domain' },
  idempotency_conflict: { status: 409, when: 'Idempotency-Key reused with a different body' },
  invalid_state: { status: 409, when: 'the domain, proposal or design is not in a state that allows this' },
  domain_deactivated: { status: 409, when: 'the domain is deactivated (terminal)' },
  proposal_open: { status: 409, when: 'the domain already has an open verification proposal' },
  proposal_closed: {
    status: 409,
    when:
      'the proposal is no longer open (passed, executed, rejected, vetoed, expired, cancelled) or its ' +
      'deadline passed',
  },
  already_voted: { status: 409, when: 'a second vote while revoting is off' },
  not_eligible: { status: 409, when: 'the domain is not eligible (verified and active) for this activity' },
  design_immutable: { status: 409, when: 'the design is approved or rejected; recalculate to make a new version' },
  no_voters: { status: 409, when: 'the deployment has no voters configured; no proposal can be made' },
  // 412 / 413 / 428 / 429
  stale_version: { status: 412, when: 'If-Match does not name the current version' },
  if_match_required: { status: 428, when: 'PATCH without If-Match' },
  // 422 semantics
  unknown_protocol: { status: 422, when: 'class is not a registered, active Protocol domain' },

  dates_out_of_order: { status: 422, when: 'validUntil not after validFrom' },
  valid_until_past: { status: 422, when: 'validUntil already past' },
  // 5xx
  unavailable: { status: 503, when: 'the daemon is shutting down or cannot be reached (CLI)' },
} as const;

export const registryError = messageErrorFactory(REGISTRY_ERRORS);

/** A field error in the house style: names the field, the value and what is valid. */
export const fieldError = fieldErrorFactory(REGISTRY_ERRORS);

/** The codes the registry client (client.ts) makes itself; the others are the server's, REGISTRY_ERRORS. */
export const REGISTRY_CLIENT_ERRORS = {
  unavailable: {
    status: 503,
    when:
      'the registry (or another server) cannot be reached: refused, unknown host, no answer within the ' +
      'time-out, or aborted',
  },
  http_error: {
    status: 500,
    when: 'a server answered an error status without an error body ({code, message}); the status is kept',
  },
} as const;
