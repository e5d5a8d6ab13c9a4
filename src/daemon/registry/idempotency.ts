/**
 * Idempotency-Key on creates: the same key and body replays the stored reply;
 * another body → 409. The reply is stored in the same transaction as the
 * write it answers.
 */
import { fieldError, registryError } from '../../lib/registry/errors.ts';
import type { Principal } from '../../lib/registry/types.ts';
import { nowIso, type RegistryContext, lockForUpdate } from './common.ts';
import { canonicalJson, sha256Hex } from '../../lib/hash.ts';

export interface Created<T> {
  status: number;
  body: T;
  location?: string;
}

export class Idempotency {
  private readonly ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.ctx = ctx;
  }

  /** `body` gives the request body as sent (called only when there is a key: the hash binds the key to it). */
  async run<T>(
    p: Principal,
    key: string | undefined,
    route: string,
    body: () => unknown,
    fn: () => Promise<Created<T>>,
  ): Promise<Created<T> & { replayed: boolean }> {
    if (key === undefined) return { ...(await fn()), replayed: false };
    if (key.length < 1 || key.length > 255 || /[^\x21-\x7e]/.test(key))
      throw fieldError('invalid_header', 'Idempotency-Key', key, '1 to 255 visible ASCII characters');
    const hash = sha256Hex(route + '\n' + canonicalJson(body()));
    const db = this.ctx.db;
    return db.tx(async () => {
      // a second daemon with the same key waits here for the first one's COMMIT, then replays its reply
      await lockForUpdate(db, { name: `idempotency\n${p.did}\n${key}` });
      const prev = await db.get<{ body_hash: string; status_code: number; response: string; location: string | null }>(
        'SELECT body_hash, status_code, response, location FROM idempotency WHERE principal = ? AND key = ?',
        [p.did, key],
      );
      if (prev) {
        if (prev.body_hash !== hash)
          throw registryError('idempotency_conflict', `Idempotency-Key ${key} was used with a different body`, {
            field: 'Idempotency-Key',
            value: key,
          });
        const out: Created<T> & { replayed: boolean } = {
          status: prev.status_code,
          body: JSON.parse(prev.response) as T,
          replayed: true,
        };
        if (prev.location) out.location = prev.location;
        return out;
      }
      const r = await fn();
      await db.run(
        'INSERT INTO idempotency (principal, key, route, body_hash, status_code, response, location, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [p.did, key, route, hash, r.status, JSON.stringify(r.body), r.location ?? null, nowIso(this.ctx.now())],
      );
      return { ...r, replayed: false };
    });
  }
}
