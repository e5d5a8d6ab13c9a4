/**
 * Auth of the daemon. /v1: `Authorization: Bearer <API key>`; the key is
 * looked up by its SHA-256 (keys are 192-bit random, so a fast hash is the
 * right one; nothing to brute-force). Missing, unknown or revoked key → 401;
 * the right key without the role (or not a controller) → 403.
 * /admin/v1: the discovery token (only the local user can read the 0600
 * discovery file) or a key with the admin role.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { registryError } from '../../lib/registry/errors.ts';
import type { Principal, Role } from '../../lib/registry/types.ts';
import { sha256, type Registry } from '../registry/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** The presented API key's SHA-256 once computed ('' without a Bearer key; null before): see presentedKeyHash. */
    keyHash: string | null;
  }
}

export function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S{1,512})\s*$/i.exec(h);
  return m?.[1];
}

/** The last key presented on a connection and its SHA-256. */
interface KeyMemo {
  key: string;
  hash: string;
}

/** Per connection (keyed by its socket, dropped with it): a keep-alive client sends the same key on every request. */
const lastKey = new WeakMap<object, KeyMemo>();

/**
 * Whether two strings are equal, in a time that depends on their length
 * only: every character is compared, with no early exit (the length of an
 * API key is public: they all have the same format).
 */
function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/**
 * SHA-256 (hex) of the presented key, computed once per connection and key
 * (the rate limit and auth of a request share it). A key presented again on
 * the same connection is recognised by a constant-time comparison with the
 * last one (`sameKey`), never by a map lookup or an early-exit comparison on
 * the secret, so the timing says nothing about the key held; a different key
 * is hashed and remembered instead. The hash, and with it the rate limit's
 * window and the key lookup, is the same as hashing every time.
 */
export function keyHash(req: FastifyRequest, key: string): string {
  const socket = req.raw.socket as object | undefined;
  if (socket === undefined || socket === null) return sha256(key);
  const m = lastKey.get(socket);
  if (m !== undefined && sameKey(key, m.key)) return m.hash;
  const hash = sha256(key);
  lastKey.set(socket, { key, hash });
  return hash;
}

/**
 * The SHA-256 of the request's Bearer key ('' when it has none), computed once
 * per request: the rate limit's hook and the /v1 auth both need it (the
 * request is decorated with `keyHash`, server.ts).
 */
export function presentedKeyHash(req: FastifyRequest): string {
  let h = req.keyHash;
  if (h === null || h === undefined) {
    const key = bearer(req);
    h = key ? keyHash(req, key) : '';
    req.keyHash = h;
  }
  return h;
}

/** The principal of the request's key: at once when the key is cached, else after reading it. */
export function authenticate(registry: Registry, req: FastifyRequest): Principal | Promise<Principal> {
  const h = presentedKeyHash(req);
  if (h === '')
    throw registryError(
      'unauthenticated',
      'send Authorization: Bearer <API key> (create one with `oraclekit daemon keys create`)',
    );
  const known = (p: Principal | undefined): Principal => {
    if (!p) throw registryError('unauthenticated', 'the API key is unknown or revoked');
    // the rate limit gives a key its own window once it has authenticated (server.ts, http/limits.ts)
    req.server.rateLimiter?.verified(h);
    if (req.method !== 'GET' && req.method !== 'HEAD' && p.roles.includes('reader')) {
      throw registryError(
        'read_only_key',
        `the key of ${p.did} is read-only (role reader): ${req.method} needs a key with another role`,
        { details: { method: req.method, have: p.roles } },
      );
    }
    return p;
  };
  const hit = registry.keys.cached(h);
  if (hit) return known(hit);
  return registry.keys.authenticateHash(h).then(known);
}

export function requireRole(p: Principal, ...roles: Role[]): void {
  if (!roles.some((r) => p.roles.includes(r))) {
    throw registryError(
      'forbidden_role',
      `this needs the role ${roles.join(' or ')}; the key of ${p.did} has ${p.roles.join(', ')}`,
      { details: { need: roles, have: p.roles } },
    );
  }
}

export function tokenMatches(token: string | undefined, presented: string | undefined): boolean {
  if (!token || !presented) return false;
  const a = Buffer.from(sha256(token));
  const b = Buffer.from(sha256(presented));
  return timingSafeEqual(a, b);
}
