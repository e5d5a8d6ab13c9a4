/**
 * The per-user turn rate limit (ORACLE_USER_TURNS_PER_MINUTE, runtime.md "Who may spend the model key"): at most N
 * turns per user in a fixed 60 s window that starts at the user's first turn, counted by @fastify/rate-limit's stores
 * (as the daemon's request limit is): in this process, or with ORACLE_REDIS_URL in the Redis every instance shares
 * (shared-windows.ts), so N instances behind a load balancer still allow N turns, not N times N. Over the limit: 429
 * rate_limited with the seconds until the window ends (Retry-After). 0 turns the limit off.
 *
 * A turn counts wherever it starts (HTTP, socket.io, a plugin's transport, a call: OracleRuntime.admitTurn), keyed by
 * the authenticated user; a use refused after its count (402 payment_required) gives its count back.
 */
import { runtimeError } from '../lib/protocol/errors.ts';
import { localWindows, SharedWindows, type Counted, type WindowStore } from './shared-windows.ts';

const WINDOW_MS = 60_000;

export class TurnRateLimiter {
  private store: WindowStore = localWindows();
  private shared: SharedWindows | undefined;
  private readonly perMinute: number;

  constructor(perMinute: number) {
    this.perMinute = perMinute;
  }

  get enabled(): boolean {
    return this.perMinute > 0;
  }

  /** Counts in the Redis every instance shares from now on (the runtime's ORACLE_REDIS_URL). */
  async share(url: string, oracleDid: string, log: Parameters<typeof SharedWindows.connect>[1]['log']): Promise<void> {
    if (!this.enabled || this.shared) return;
    // beside the cluster's keys of this oracle (cluster/cluster.ts): another oracle on the same Redis counts apart
    const prefix = `oraclekit:rt:${oracleDid || 'oracle'}:turns:`;
    this.shared = await SharedWindows.connect(url, { log, prefix, what: 'turn limit' });
    await this.shared.ready(2000); // the cluster has just reached this Redis: the first turns count shared too
    this.store = this.shared.store();
  }

  /**
   * Counts a turn of this user, or throws 429 rate_limited when the window is full; returns the give-back of that
   * count (for a turn refused afterwards, e.g. unpaid).
   */
  async take(userDid: string): Promise<() => Promise<void>> {
    if (!this.enabled) return async () => {};
    const store = this.store;
    const c = await new Promise<Counted>((resolve, reject) =>
      store.incr(userDid, (e, r) => (e ? reject(e) : resolve(r!)), WINDOW_MS, this.perMinute),
    );
    if (c.current > this.perMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil(c.ttl / 1000));
      throw runtimeError(
        'rate_limited',
        `this oracle allows ${this.perMinute} turns per user per minute (ORACLE_USER_TURNS_PER_MINUTE); retry in ${retryAfterSeconds} s`,
        { details: { retryAfterSeconds, limitPerMinute: this.perMinute } },
      );
    }
    let given = false;
    return async () => {
      if (given) return;
      given = true;
      await store.decr(userDid);
    };
  }

  close(): void {
    this.shared?.close();
  }
}
