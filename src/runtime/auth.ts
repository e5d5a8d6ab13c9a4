/**
 * Authentication of HTTP requests and socket.io handshakes (protocol.md,
 * "Authentication"): `Authorization: Bearer <invocation>` with
 * `X-Auth-Type: ucan`; `x-ucan-delegation` as downstream authority (used only
 * when its issuer is the authenticated user and its audience the oracle), and
 * alone only when the deployment allows the fallback. Until the signing key
 * is loaded every authenticated request gets 401 signing_key_missing.
 */
import { runtimeError } from '../lib/protocol/errors.ts';
import { MemoryReplayStore, verifyDelegation, verifyInvocation, type ReplayStore } from '../lib/ucan/index.ts';
import type { RuntimeStore } from './store.ts';

export interface AuthUser {
  did: string;
  /** The verified user → oracle delegation (raw token) sent with the request, if any. */
  delegation?: string;
  via: 'invocation' | 'delegation';
}

const users = new WeakMap<object, AuthUser>();

/** The authenticated user of a request (set by the runtime's auth hook). */
export function getUser(req: object): AuthUser {
  const u = users.get(req);
  if (!u) throw runtimeError('missing_token', 'authentication required');
  return u;
}

export function setUser(req: object, u: AuthUser): void {
  users.set(req, u);
}

export interface AuthInput {
  authorization?: string;
  authType?: string;
  delegation?: string;
  /** socket.io: auth.invocation (no Bearer prefix). */
  invocation?: string;
}

/**
 * Replay protection that survives a restart (protocol.md: remember an
 * invocation's CID until its expiry): CIDs are checked in memory and written
 * to the runtime's database in its group commit; a new process loads the
 * unexpired ones. Expired rows are purged once a minute.
 */
export class PersistentReplayStore implements ReplayStore {
  private readonly memory = new MemoryReplayStore();
  private readonly store: RuntimeStore;
  private lastPurge = 0;

  constructor(store: RuntimeStore) {
    this.store = store;
    const now = Math.floor(Date.now() / 1000);
    for (const r of store.db.all<{ cid: string; expires_at: number }>('SELECT cid, expires_at FROM runtime_used_invocations WHERE expires_at >= ?', [now])) {
      this.memory.seen(r.cid, r.expires_at);
    }
  }

  seen(cid: string, expiresAt: number): boolean {
    if (this.memory.seen(cid, expiresAt)) return true;
    const now = Date.now();
    const purge = now - this.lastPurge > 60_000;
    if (purge) this.lastPurge = now;
    void this.store
      .defer(() => {
        this.store.db.run('INSERT OR IGNORE INTO runtime_used_invocations (cid, expires_at) VALUES (?, ?)', [cid, expiresAt]);
        if (purge) this.store.db.run('DELETE FROM runtime_used_invocations WHERE expires_at < ?', [Math.floor(now / 1000)]);
      })
      .catch(() => {});
    return false;
  }
}

export class Authenticator {
  private readonly replay: ReplayStore;
  private readonly store: RuntimeStore;
  readonly oracleDid: string;
  allowDelegationFallback: boolean;
  signingKeyLoaded: () => boolean;

  constructor(o: { store: RuntimeStore; oracleDid: string; allowDelegationFallback: boolean; signingKeyLoaded: () => boolean }) {
    this.store = o.store;
    this.replay = new PersistentReplayStore(o.store);
    this.oracleDid = o.oracleDid;
    this.allowDelegationFallback = o.allowDelegationFallback;
    this.signingKeyLoaded = o.signingKeyLoaded;
  }

  async authenticate(i: AuthInput): Promise<AuthUser> {
    if (!this.signingKeyLoaded()) throw runtimeError('signing_key_missing', "the oracle's signing key is not loaded yet; retry when /ready says so");
    if (i.authType !== undefined && i.authType.toLowerCase() !== 'ucan') throw runtimeError('unsupported_auth_type', `X-Auth-Type ${JSON.stringify(i.authType)} is not supported; use ucan`);
    const isRevoked = (cid: string) => this.store.isRevoked(cid);
    let token = i.invocation;
    if (token === undefined && i.authorization !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(i.authorization);
      if (!m) throw runtimeError('malformed_token', 'Authorization must be "Bearer <invocation>"');
      token = m[1];
    }
    if (token !== undefined && token !== '') {
      const v = await verifyInvocation(token, { oracleDid: this.oracleDid, isRevoked, replay: this.replay });
      if (i.delegation) {
        await verifyDelegation(i.delegation, { oracleDid: this.oracleDid, isRevoked, user: v.did });
        return { did: v.did, delegation: i.delegation, via: 'invocation' };
      }
      return { did: v.did, via: 'invocation' };
    }
    if (i.delegation && this.allowDelegationFallback) {
      const d = await verifyDelegation(i.delegation, { oracleDid: this.oracleDid, isRevoked, enforceTtl: true });
      return { did: d.did, delegation: i.delegation, via: 'delegation' };
    }
    throw runtimeError('missing_token', 'authentication required: Authorization: Bearer <UCAN invocation> with X-Auth-Type: ucan');
  }
}
