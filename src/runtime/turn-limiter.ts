/**
 * The per-user turn rate limit (ORACLE_USER_TURNS_PER_MINUTE, runtime.md "Who may spend the model key"):
 * at most N turns per user in any 60 s window, on this instance; the next is refused with 429 rate_limited
 * and the seconds until a turn is free again (Retry-After). 0 turns the limit off.
 */
import { runtimeError } from '../lib/protocol/errors.ts';

const WINDOW_MS = 60_000;

export class TurnRateLimiter {
  private readonly starts = new Map<string, number[]>();
  private readonly perMinute: number;
  private readonly now: () => number;

  /** `now`: the clock, ms since the epoch (the runtime's; tests of the window replace it). */
  constructor(perMinute: number, now: () => number = Date.now) {
    this.perMinute = perMinute;
    this.now = now;
  }

  /** Counts a turn of this user, or throws 429 rate_limited when the window is full. */
  take(userDid: string): void {
    if (this.perMinute <= 0) return;
    const now = this.now();
    if (this.starts.size > 10_000) this.sweep(now);
    const recent = (this.starts.get(userDid) ?? []).filter((t) => now - t < WINDOW_MS);
    if (recent.length >= this.perMinute) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000));
      this.starts.set(userDid, recent);
      throw runtimeError(
        'rate_limited',
        `this oracle allows ${this.perMinute} turns per user per minute (ORACLE_USER_TURNS_PER_MINUTE); retry in ${retryAfterSeconds} s`,
        { details: { retryAfterSeconds, limitPerMinute: this.perMinute } },
      );
    }
    recent.push(now);
    this.starts.set(userDid, recent);
  }

  private sweep(now: number): void {
    for (const [did, ts] of this.starts) if (ts.every((t) => now - t >= WINDOW_MS)) this.starts.delete(did);
  }
}
