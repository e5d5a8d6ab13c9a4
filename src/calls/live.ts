/**
 * The calls that are live in this process (docs/live-agent.md, "Limits"): each
 * one counted against its user's and the process's caps from its creation to
 * its end, and ended by the oracle itself when nobody uses it — no user joined
 * within the join time-out, the user left and did not come back within the
 * grace, its session was deleted, or a credential its user presented for it was
 * revoked. Only a live call's room may be joined; the end of a call is final.
 */
import type { Call } from 'oraclekit/plugin';
import { callsError } from './errors.ts';

export interface LiveCallLimits {
  /** Live calls one user may have at once (CALLS_MAX_PER_USER). */
  perUser: number;
  /** Live calls of the process at once (CALLS_MAX_PER_PROCESS). */
  perProcess: number;
  /** A call no user joined this long after its creation ends (ms, CALLS_JOIN_TIMEOUT_S). */
  joinTimeoutMs: number;
  /** A call whose user left and did not come back this long after ends (ms, CALLS_LEFT_GRACE_S). */
  leftGraceMs: number;
}

/** How often live calls' sessions and credentials are checked (ms): a deleted session or a revocation ends within it. */
const CHECK_EVERY_MS = 2_000;

interface LiveCall {
  callId: string;
  userDid: string;
  sessionId: string;
  /** The credentials (UCAN CIDs) the user presented to create and join it: revoking one ends it. */
  cids: Set<string>;
  present: boolean;
  timer: NodeJS.Timeout | undefined;
  /** What the agent says once the call's user hears it (the call's, else the oracle's). */
  greeting: string | undefined;
}

interface LiveCallsOptions {
  limits: LiveCallLimits;
  /** Whether the user's session still exists. */
  sessionExists(userDid: string, sessionId: string): Promise<boolean>;
  isRevoked(cid: string): Promise<boolean>;
  /** Ends a call the oracle ended (its row, its key, its agent and room), saying why. */
  end(userDid: string, callId: string, why: string): Promise<void>;
  log: (line: string) => void;
}

export class LiveCalls {
  private readonly o: LiveCallsOptions;
  private readonly calls = new Map<string, LiveCall>();
  /** Calls being created: counted against the caps before their row exists. */
  private readonly reserved = new Map<string, number>();
  private checker: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(o: LiveCallsOptions) {
    this.o = o;
  }

  get limits(): LiveCallLimits {
    return this.o.limits;
  }

  private countOf(userDid: string): number {
    let n = this.reserved.get(userDid) ?? 0;
    for (const c of this.calls.values()) if (c.userDid === userDid) n++;
    return n;
  }

  private get total(): number {
    let n = this.calls.size;
    for (const r of this.reserved.values()) n += r;
    return n;
  }

  /**
   * Holds a place for a new call of this user, or throws: 429 calls_per_user_exceeded past the user's cap, 503
   * calls_busy past the process's, each with the seconds after which a place may be free (a call that nobody joins
   * ends after the join time-out). The place is released by the returned function unless the call is added.
   */
  reserve(userDid: string): () => void {
    const retryAfterSeconds = Math.max(1, Math.ceil(this.o.limits.joinTimeoutMs / 1000));
    if (this.countOf(userDid) >= this.o.limits.perUser)
      throw callsError(
        'calls_per_user_exceeded',
        `you have ${this.o.limits.perUser} live call(s), the most this oracle allows at once; end one, or retry in ${retryAfterSeconds} s`,
        { details: { retryAfterSeconds, limit: this.o.limits.perUser } },
      );
    if (this.total >= this.o.limits.perProcess)
      throw callsError(
        'calls_busy',
        `this oracle has ${this.o.limits.perProcess} live calls, the most it takes at once; retry in ${retryAfterSeconds} s`,
        { details: { retryAfterSeconds, limit: this.o.limits.perProcess } },
      );
    this.reserved.set(userDid, (this.reserved.get(userDid) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.reserved.get(userDid) ?? 1) - 1;
      if (n > 0) this.reserved.set(userDid, n);
      else this.reserved.delete(userDid);
    };
  }

  /** A created call: live until it ends; it ends by itself if its user does not join within the join time-out. */
  add(call: Call, cids: readonly string[], greeting?: string): void {
    const c: LiveCall = {
      greeting,
      callId: call.callId,
      userDid: call.userDid,
      sessionId: call.sessionId,
      cids: new Set(cids),
      present: false,
      timer: undefined,
    };
    this.calls.set(call.callId, c);
    this.arm(c, this.o.limits.joinTimeoutMs, `no user joined within ${this.o.limits.joinTimeoutMs / 1000} s`);
    this.checker ??= setInterval(() => void this.check(), CHECK_EVERY_MS).unref();
  }

  /** Whether a call's room may be joined: only while the call is live in this process. */
  has(callId: string): boolean {
    return this.calls.has(callId);
  }

  /** The greeting of a live call. */
  greetingOf(callId: string): string | undefined {
    return this.calls.get(callId)?.greeting;
  }

  /** More credentials the user presented for the call (a sync). */
  presented(callId: string, cids: readonly string[]): void {
    const c = this.calls.get(callId);
    if (c) for (const cid of cids) c.cids.add(cid);
  }

  /** The call's user joined (true) or left (false) its room. */
  presence(callId: string, userDid: string, present: boolean): void {
    const c = this.calls.get(callId);
    if (!c || c.userDid !== userDid || c.present === present) return;
    c.present = present;
    if (present) {
      clearTimeout(c.timer);
      c.timer = undefined;
    } else {
      this.arm(
        c,
        this.o.limits.leftGraceMs,
        `the user left and did not come back within ${this.o.limits.leftGraceMs / 1000} s`,
      );
    }
  }

  private arm(c: LiveCall, ms: number, why: string): void {
    clearTimeout(c.timer);
    c.timer = setTimeout(() => void this.endLive(c, why), ms);
    c.timer.unref();
  }

  /** The call is no longer live (it ended): its place is free and its room refuses every token. */
  remove(callId: string): void {
    const c = this.calls.get(callId);
    if (!c) return;
    clearTimeout(c.timer);
    this.calls.delete(callId);
    if (this.calls.size === 0 && this.checker) {
      clearInterval(this.checker);
      this.checker = undefined;
    }
  }

  private async endLive(c: LiveCall, why: string): Promise<void> {
    if (this.calls.get(c.callId) !== c) return;
    this.remove(c.callId);
    this.o.log(`[calls] ${c.callId}: ended: ${why}`);
    await this.o.end(c.userDid, c.callId, why).catch((e: unknown) => {
      this.o.log(`[calls] ${c.callId}: ending failed: ${(e as Error).message}`);
    });
  }

  /** Ends every live call whose session is gone or one of whose credentials was revoked. */
  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      for (const c of [...this.calls.values()]) {
        if (!(await this.o.sessionExists(c.userDid, c.sessionId).catch(() => true)))
          await this.endLive(c, 'its session was deleted');
        else
          for (const cid of c.cids)
            if (await this.o.isRevoked(cid).catch(() => false)) {
              await this.endLive(c, "the user's credential was revoked");
              break;
            }
      }
    } finally {
      this.checking = false;
    }
  }

  /** Ends every live call (the process is closing: its agents and the embedded endpoint go with it). */
  async endAll(why: string): Promise<void> {
    await Promise.all([...this.calls.values()].map((c) => this.endLive(c, why)));
    this.close();
  }

  /** Stops the timers. */
  close(): void {
    for (const c of this.calls.values()) clearTimeout(c.timer);
    this.calls.clear();
    clearInterval(this.checker);
    this.checker = undefined;
  }
}
