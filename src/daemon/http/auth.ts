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
import type { Registry } from '../registry/index.ts';
import { sha256Hex } from '../../lib/hash.ts';

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

/** Each request's key lookup, shared by the rate limit (which window it counts in) and the /v1 auth. */
const lookups = new WeakMap<FastifyRequest, Promise<Principal | undefined>>();

/**
 * The principal of the request's Bearer API key: undefined without one, or
 * for an unknown or revoked key. Looked up once per request.
 */
export function presentedPrincipal(registry: Registry, req: FastifyRequest): Promise<Principal | undefined> {
  let p = lookups.get(req);
  if (p === undefined) {
    const key = bearer(req);
    p = key === undefined ? Promise.resolve(undefined) : registry.keys.authenticate(key);
    lookups.set(req, p);
  }
  return p;
}

/** The principal of the request's key; 401 without a valid key, 403 read_only_key for a reader's change. */
export async function authenticate(registry: Registry, req: FastifyRequest): Promise<Principal> {
  if (bearer(req) === undefined)
    throw registryError(
      'unauthenticated',
      'send Authorization: Bearer <API key> (create one with `oraclekit daemon keys create`)',
    );
  const p = await presentedPrincipal(registry, req);
  if (!p) throw registryError('unauthenticated', 'the API key is unknown or revoked');
  if (req.method !== 'GET' && req.method !== 'HEAD' && p.roles.includes('reader')) {
    throw registryError(
      'read_only_key',
      `the key of ${p.did} is read-only (role reader): ${req.method} needs a key with another role`,
      { details: { method: req.method, have: p.roles } },
    );
  }
  return p;
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

/** Whether `presented` is the discovery token: their SHA-256s compared in constant time. */
export function tokenMatches(token: string | undefined, presented: string | undefined): boolean {
  if (!token || !presented) return false;
  return timingSafeEqual(Buffer.from(sha256Hex(token)), Buffer.from(sha256Hex(presented)));
}
