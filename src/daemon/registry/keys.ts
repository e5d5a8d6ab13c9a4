/**
 * API keys: created with roles (the secret shown once, stored as its
 * SHA-256), listed without secrets, revoked; and the principal of a presented
 * key, read by its hash on every request (a revocation, by this daemon or
 * another on the same database, counts at once).
 */
import { randomBytes } from 'node:crypto';
import { fieldError, registryError } from '../../lib/registry/errors.ts';
import { requireDid } from '../../lib/registry/domain.ts';
import {
  ROLES,
  type KeyCreated,
  type KeyInfo,
  type KeyRevoked,
  type Principal,
  type Role,
} from '../../lib/registry/types.ts';
import type { KeyProof } from '../../lib/registry/key-proof.ts';
import { nowIso, type RegistryContext } from './common.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { DidProofs } from './did-proof.ts';

export class Keys {
  private readonly ctx: RegistryContext;
  /** The DID proofs at creation (did-proof.ts): optional, or required by the deployment's requireDidProof. */
  private readonly proofs = new DidProofs();

  constructor(ctx: RegistryContext) {
    this.ctx = ctx;
  }

  /** The body's shape is the schema's (keyCreateBody); the DID, each role and the DID proof have codes of their own. */
  async create(did: string, roles: readonly string[], label?: string, proof?: KeyProof): Promise<KeyCreated> {
    requireDid('did', did);
    for (const r of roles)
      if (!(ROLES as readonly string[]).includes(r)) throw fieldError('invalid_role', 'roles', r, ROLES.join(', '));
    if (roles.includes('reader') && new Set(roles).size > 1)
      throw fieldError('invalid_role', 'roles', roles, 'reader alone (a read-only key), or any of the other roles');
    this.proofs.check(did, roles, proof, this.ctx.config.requireDidProof, this.ctx.now());
    const id = 'key_' + randomBytes(6).toString('hex');
    const key = `ok_${id.slice(4)}_${randomBytes(24).toString('base64url')}`;
    const createdAt = nowIso(this.ctx.now());
    const uniq = [...new Set(roles)] as Role[];
    await this.ctx.db.run(
      'INSERT INTO api_keys (id, hash, prefix, did, roles, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [id, sha256Hex(key), key.slice(0, 16), did, JSON.stringify(uniq), label ?? null, createdAt],
    );
    return { id, key, did, roles: uniq, createdAt };
  }

  async list(): Promise<KeyInfo[]> {
    return (
      await this.ctx.db.all<{
        id: string;
        prefix: string;
        did: string;
        roles: string;
        label: string | null;
        created_at: string;
        revoked_at: string | null;
      }>('SELECT id, prefix, did, roles, label, created_at, revoked_at FROM api_keys ORDER BY created_at, id')
    ).map((r) => ({
      id: r.id,
      prefix: r.prefix,
      did: r.did,
      roles: JSON.parse(r.roles) as Role[],
      label: r.label,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }));
  }

  async revoke(id: string): Promise<KeyRevoked> {
    const row = await this.ctx.db.get<{ revoked_at: string | null }>('SELECT revoked_at FROM api_keys WHERE id = ?', [
      id,
    ]);
    if (!row) throw registryError('key_not_found', `no API key ${id}`, { field: 'id', value: id });
    const at = row.revoked_at ?? nowIso(this.ctx.now());
    await this.ctx.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', [at, id]);
    return { id, revokedAt: at };
  }

  /** The principal of a presented key, or undefined (unknown or revoked). */
  async authenticate(key: string): Promise<Principal | undefined> {
    const row = await this.ctx.db.get<{ id: string; did: string; roles: string; revoked_at: string | null }>(
      'SELECT id, did, roles, revoked_at FROM api_keys WHERE hash = ?',
      [sha256Hex(key)],
    );
    if (!row || row.revoked_at !== null) return undefined;
    return { keyId: row.id, did: row.did, roles: JSON.parse(row.roles) as Role[] };
  }
}
