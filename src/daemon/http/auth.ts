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
  }
}

export function bearer(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer\s+(\S{1,512})\s*$/i.exec(h);
  return m?.[1];
}

/**
 * The request's key and its SHA-256, kept on the request itself (a symbol
 * slot: one hidden-class transition V8 learns once, where a WeakMap entry per
 * request cost an ephemeron for the GC to trace).
 */
const HASHED = Symbol('oraclekit.keyHash');
type Hashed = FastifyRequest & { [HASHED]?: { key: string; hash: string } };

/** SHA-256 of the presented key, computed once per request (rate limit and auth share it). */
export function keyHash(req: FastifyRequest, key: string): string {
  const slot = (req as Hashed)[HASHED];
  if (slot !== undefined && slot.key === key) return slot.hash;
  const hash = sha256(key);
  (req as Hashed)[HASHED] = { key, hash };
  return hash;
}

/** The principal of the request's key: at once when the key is cached, else after reading it. */
export function authenticate(registry: Registry, req: FastifyRequest): Principal | Promise<Principal> {
  const key = bearer(req);
  if (!key) throw registryError('unauthenticated', 'send Authorization: Bearer <API key> (create one with `oraclekit daemon keys create`)');
  const h = keyHash(req, key);
  const hit = registry.keys.cached(h);
  if (hit) return known(req, h, hit);
  return registry.keys.authenticateHash(h).then((p) => known(req, h, p));
}

/** The looked-up principal of key hash `h`, or 401; its rate-limit window, and the reader role's read-only rule. */
function known(req: FastifyRequest, h: string, p: Principal | undefined): Principal {
  if (!p) throw registryError('unauthenticated', 'the API key is unknown or revoked');
  // the rate limit gives a key its own window once it has authenticated (server.ts, http/limits.ts)
  req.server.rateLimiter?.verified(h);
  if (req.method !== 'GET' && req.method !== 'HEAD' && p.roles.includes('reader')) {
    throw registryError('read_only_key', `the key of ${p.did} is read-only (role reader): ${req.method} needs a key with another role`, { details: { method: req.method, have: p.roles } });
  }
  return p;
}

export function requireRole(p: Principal, ...roles: Role[]): void {
  if (!roles.some((r) => p.roles.includes(r))) {
    throw registryError('forbidden_role', `this needs the role ${roles.join(' or ')}; the key of ${p.did} has ${p.roles.join(', ')}`, { details: { need: roles, have: p.roles } });
  }
}

export function tokenMatches(token: string | undefined, presented: string | undefined): boolean {
  if (!token || !presented) return false;
  const a = Buffer.from(sha256(token));
  const b = Buffer.from(sha256(presented));
  return timingSafeEqual(a, b);
}
