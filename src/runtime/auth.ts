/**
 * Authentication of HTTP requests and socket.io handshakes (protocol.md,
 * "Authentication"; the modes and their risks: runtime.md, "Authentication
 * modes"): `Authorization: Bearer <invocation>` with `X-Auth-Type: ucan`;
 * `x-ucan-delegation` as downstream authority (used only when its issuer is
 * the authenticated user and its audience the oracle), and alone as the login
 * unless the deployment requires invocations (ORACLE_UCAN_AUTH=invocation).
 * An invocation is accepted again until it expires (a bearer credential, as
 * the IXO SDK caches it), or once (ORACLE_UCAN_REPLAY=strict). Until the
 * signing key is loaded every authenticated request gets 401
 * signing_key_missing.
 */
import { runtimeError } from '../lib/protocol/errors.ts';
import {
  MemoryReplayStore,
  verifyDelegation,
  verifyInvocation,
  verifyLoginDelegation,
  type ReplayStore,
} from '../lib/ucan/verify.ts';
import { DEFAULT_DELEGATION_MAX_TTL_S } from '../lib/ucan/ucan.ts';
import type { RuntimeStore } from './store.ts';

export interface AuthUser {
  did: string;
  /** The verified user → oracle delegation (raw token) sent with the request, if any. */
  delegation?: string;
  via: 'invocation' | 'delegation';
  /** The CIDs of every token presented and of their proofs: revoking one ends the sockets it authenticated. */
  cids: string[];
  /** When the credential ends (seconds): the earliest expiry among the tokens presented and their proofs. */
  expiresAt: number;
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

interface AuthInput {
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
class PersistentReplayStore implements ReplayStore {
  private readonly memory: MemoryReplayStore;
  private readonly nowMs: () => number;
  private readonly store: RuntimeStore;
  private lastPurge = 0;

  /** The unexpired CIDs a previous process saw, loaded before the store answers its first check. */
  readonly loaded: Promise<void>;

  constructor(store: RuntimeStore, ready: Promise<void>, nowMs: () => number) {
    this.store = store;
    this.nowMs = nowMs;
    this.memory = new MemoryReplayStore(() => Math.floor(nowMs() / 1000));
    // the table exists once the runtime's migrations ran: at open on SQLite, asynchronously on PostgreSQL or a shared
    // database
    this.loaded = ready.then(() => this.load());
    this.loaded.catch(() => {}); // reaches the caller through `await loaded`
  }

  private async load(): Promise<void> {
    const now = Math.floor(this.nowMs() / 1000);
    for (const r of await this.store.db.all<{ cid: string; expires_at: number }>(
      'SELECT cid, expires_at FROM runtime_used_invocations WHERE expires_at >= ?',
      [now],
    )) {
      this.memory.seen(r.cid, Number(r.expires_at));
    }
  }

  has(cid: string): boolean {
    return this.memory.has(cid);
  }

  seen(cid: string, expiresAt: number): boolean {
    if (this.memory.seen(cid, expiresAt)) return true;
    const now = this.nowMs();
    const purge = now - this.lastPurge > 60_000;
    if (purge) this.lastPurge = now;
    void this.store
      .groupCommit(async () => {
        await this.store.db.run(
          'INSERT INTO runtime_used_invocations (cid, expires_at) VALUES (?, ?) ON CONFLICT (cid) DO NOTHING',
          [cid, expiresAt],
        );
        if (purge)
          await this.store.db.run('DELETE FROM runtime_used_invocations WHERE expires_at < ?', [
            Math.floor(now / 1000),
          ]);
      })
      .catch(() => {});
    return false;
  }
}

/** `any`: an invocation, or a delegation alone; `invocation`: an invocation is required. */
export type UcanAuthMode = 'any' | 'invocation';
/** `bearer`: an invocation may be used again until it expires; `strict`: once. */
export type UcanReplayMode = 'bearer' | 'strict';

interface AuthenticatorOptions {
  store: RuntimeStore;
  oracleDid: string;
  signingKeyLoaded: () => boolean;
  /** Default 'any' (ORACLE_UCAN_AUTH). */
  mode?: UcanAuthMode;
  /** Default 'bearer' (ORACLE_UCAN_REPLAY). */
  replay?: UcanReplayMode;
  /**
   * The longest a delegation that logs in alone may live, in seconds (ORACLE_UCAN_DELEGATION_MAX_TTL_S; default 30
   * days).
   */
  delegationMaxTtlSeconds?: number;
  /** Resolves once the runtime's tables are migrated (OracleRuntime.storeReady; default: already). */
  storeReady?: Promise<void>;
  /** The only users who may log in (ORACLE_ALLOWED_USERS); undefined: any did:key user. */
  allowedUsers?: readonly string[];
  /** The clock a credential's expiry is checked on, ms since the epoch (the runtime's; default the system's). */
  now?: () => number;
}

export class Authenticator {
  private readonly store: RuntimeStore;
  /** The used-invocation store, opened (and loaded from the database) only in strict mode. */
  private strictStore?: PersistentReplayStore;
  private readonly storeReady: Promise<void>;
  private readonly now: () => number;
  readonly oracleDid: string;
  mode: UcanAuthMode;
  replayMode: UcanReplayMode;
  delegationMaxTtlSeconds: number;
  signingKeyLoaded: () => boolean;
  /**
   * Several instances (cluster/): in strict mode an invocation is claimed in the Redis they share, so it is used once
   * across all of them.
   */
  sharedReplay:
    | { claimInvocation(cid: string, expiresAt: number): Promise<boolean>; wasClaimed(cid: string): Promise<boolean> }
    | undefined;

  constructor(o: AuthenticatorOptions) {
    this.store = o.store;
    this.oracleDid = o.oracleDid;
    this.mode = o.mode ?? 'any';
    this.replayMode = o.replay ?? 'bearer';
    this.delegationMaxTtlSeconds = o.delegationMaxTtlSeconds ?? DEFAULT_DELEGATION_MAX_TTL_S;
    this.signingKeyLoaded = o.signingKeyLoaded;
    this.storeReady = o.storeReady ?? Promise.resolve();
    this.allowedUsers = o.allowedUsers ? new Set(o.allowedUsers) : undefined;
    this.now = o.now ?? Date.now;
    if (this.replayMode === 'strict') this.strictStore = new PersistentReplayStore(o.store, this.storeReady, this.now);
  }

  private async replayStore(): Promise<ReplayStore | undefined> {
    if (this.replayMode !== 'strict') return undefined;
    const s = (this.strictStore ??= new PersistentReplayStore(this.store, this.storeReady, this.now));
    try {
      await s.loaded;
    } catch (e) {
      // the database did not answer (PostgreSQL away): the next request loads again rather than failing for good
      if (this.strictStore === s) this.strictStore = undefined;
      throw e;
    }
    return s;
  }

  /** The only users who may log in; undefined: any did:key user. */
  allowedUsers: ReadonlySet<string> | undefined;

  async authenticate(i: AuthInput): Promise<AuthUser> {
    const user = await this.verify(i);
    if (this.allowedUsers && !this.allowedUsers.has(user.did))
      throw runtimeError(
        'user_not_allowed',
        `${user.did} is not among the users this oracle admits (ORACLE_ALLOWED_USERS)`,
      );
    return user;
  }

  /** A delegation that logs in alone (mode `any`): verified under the lifetime bound; in strict mode never a used invocation. */
  private async loginWithDelegation(
    delegation: string,
    isRevoked: (cid: string) => Promise<boolean>,
    now: number,
  ): Promise<AuthUser> {
    const d = await verifyLoginDelegation(delegation, {
      oracleDid: this.oracleDid,
      isRevoked,
      now,
      replay: await this.replayStore(),
      maxTtl: { seconds: this.delegationMaxTtlSeconds, setting: 'ORACLE_UCAN_DELEGATION_MAX_TTL_S' },
    });
    // strict mode, several instances: an invocation used on another instance is in the store they share
    if (this.replayMode === 'strict' && (await this.sharedReplay?.wasClaimed(d.cid)))
      throw runtimeError(
        'replayed',
        'this token was already used as an invocation (on another instance of this oracle); a used invocation ' +
          'never logs in again',
      );
    return { did: d.did, delegation, via: 'delegation', cids: d.cids, expiresAt: d.validUntil };
  }

  private async verify(i: AuthInput): Promise<AuthUser> {
    if (!this.signingKeyLoaded())
      throw runtimeError(
        'signing_key_missing',
        "the oracle's signing key is not loaded yet; retry when /ready says so",
      );
    if (i.authType !== undefined && i.authType.toLowerCase() !== 'ucan')
      throw runtimeError(
        'unsupported_auth_type',
        `X-Auth-Type ${JSON.stringify(i.authType)} is not supported; use ucan`,
      );
    const isRevoked = (cid: string) => this.store.isRevoked(cid);
    const nowSeconds = () => Math.floor(this.now() / 1000);
    let token = i.invocation;
    if (token === undefined && i.authorization !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(i.authorization);
      if (!m) throw runtimeError('malformed_token', 'Authorization must be "Bearer <invocation>"');
      token = m[1];
    }
    if (token !== undefined && token !== '') {
      const v = await verifyInvocation(token, {
        oracleDid: this.oracleDid,
        isRevoked,
        now: nowSeconds(),
        replay: await this.replayStore(),
      });
      if (
        this.replayMode === 'strict' &&
        this.sharedReplay &&
        !(await this.sharedReplay.claimInvocation(v.cid, v.expiration))
      ) {
        throw runtimeError(
          'replayed',
          'this invocation was already used on another instance of this oracle (it accepts each invocation once); ' +
            'send a new one',
        );
      }
      if (i.delegation) {
        const d = await verifyDelegation(i.delegation, {
          oracleDid: this.oracleDid,
          isRevoked,
          user: v.did,
          now: nowSeconds(),
        });
        return {
          did: v.did,
          delegation: i.delegation,
          via: 'invocation',
          cids: [...v.cids, ...d.cids],
          expiresAt: Math.min(v.validUntil, d.validUntil),
        };
      }
      return { did: v.did, via: 'invocation', cids: v.cids, expiresAt: v.validUntil };
    }
    if (i.delegation && this.mode === 'any') return this.loginWithDelegation(i.delegation, isRevoked, nowSeconds());
    if (i.delegation) {
      throw runtimeError(
        'missing_token',
        'this oracle requires an invocation (ORACLE_UCAN_AUTH=invocation): Authorization: Bearer <UCAN invocation> ' +
          'with X-Auth-Type: ucan; a delegation alone does not log in',
      );
    }
    const alone = this.mode === 'any' ? ', or x-ucan-delegation: <user → oracle delegation> alone' : '';
    throw runtimeError(
      'missing_token',
      `authentication required: Authorization: Bearer <UCAN invocation> with X-Auth-Type: ucan${alone}`,
    );
  }
}
