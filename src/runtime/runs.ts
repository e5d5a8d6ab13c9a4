/**
 * Runs: one agent turn each, with an increasing event id per run, a buffer
 * of every event (replay from `after=N`), live subscribers (SSE streams,
 * the socket bridge) and an abort controller. A subscriber that goes away
 * never stops the run; the run's events are stored when it ends.
 *
 * With several instances (ORACLE_REDIS_URL, cluster/): each run is announced
 * and its events fanned out through Redis, so another instance can resume,
 * abort or answer it; a turn is refused with 503 redis_unavailable while
 * Redis does not answer.
 */
import { isOracleKitError } from '../lib/errors.ts';
import { randomUUID } from 'node:crypto';
import {
  initialTurn,
  reduceTurn,
  type AnyEvent,
  type AnyEventInput,
  type DoneStatus,
  type RunStatus,
  type TurnState,
} from '../lib/protocol/index.ts';
import type { RuntimeStore } from './store.ts';
import type { Cluster } from './cluster/index.ts';

export type RunListener = (e: AnyEvent) => void;

export class Run {
  readonly runId: string;
  readonly requestId: string;
  readonly sessionId: string;
  readonly userDid: string;
  status: RunStatus = 'queued';
  readonly events: AnyEvent[] = [];
  readonly abort = new AbortController();
  /** Several instances: resolves once every instance can find the run (its owner and events announced in Redis); at once otherwise. */
  announced: Promise<void> = Promise.resolve();
  /** The run's events folded by reduceTurn: text, reasoning, tool calls, last error. */
  turn: TurnState;
  private readonly listeners = new Set<RunListener>();
  private resolveDone!: (s: DoneStatus) => void;
  readonly done: Promise<DoneStatus>;

  constructor(init: { sessionId: string; userDid: string; requestId?: string; runId?: string }) {
    this.runId = init.runId ?? randomUUID();
    this.requestId = init.requestId ?? randomUUID();
    this.sessionId = init.sessionId;
    this.userDid = init.userDid;
    this.done = new Promise((r) => (this.resolveDone = r));
    this.turn = initialTurn({ runId: this.runId, requestId: this.requestId });
  }

  /** The answer text so far. */
  get text(): string {
    return this.turn.text;
  }

  get finished(): boolean {
    return this.status === 'finished' || this.status === 'aborted' || this.status === 'failed';
  }

  emit(e: AnyEventInput): AnyEvent {
    const ev = { ...e, id: this.events.length + 1 } as AnyEvent;
    this.events.push(ev);
    this.turn = reduceTurn(this.turn, ev);
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch {
        // a broken subscriber never breaks the run
      }
    }
    if (ev.event === 'done') this.resolveDone(ev.data.status);
    return ev;
  }

  /** Replays events after `after`, then follows live; returns the unsubscribe. */
  subscribe(after: number, l: RunListener): () => void {
    for (const e of this.events) if (e.id > after) l(e);
    if (this.events.at(-1)?.event === 'done') return () => {};
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}

export class RunManager {
  private readonly byId = new Map<string, Run>();
  private readonly activeBySession = new Map<string, Run>();
  private readonly latestBySession = new Map<string, Run>();
  private readonly global = new Set<(run: Run, e: AnyEvent) => void>();
  private readonly store: RuntimeStore;
  /** How long a finished run stays in memory (its events stay in SQLite). */
  retainMs: number;
  /** Set when the instances of this oracle share a Redis (runtime.ts connects it at start). */
  cluster: Cluster | undefined;

  constructor(store: RuntimeStore, retainMs = 60_000) {
    this.store = store;
    this.retainMs = retainMs;
  }

  /** Observe every event of every run (the socket.io bridge). */
  onEvent(l: (run: Run, e: AnyEvent) => void): () => void {
    this.global.add(l);
    return () => this.global.delete(l);
  }

  active(sessionId: string): Run | undefined {
    return this.activeBySession.get(sessionId);
  }

  /** The session's latest run while it is in memory. */
  latest(sessionId: string): Run | undefined {
    return this.latestBySession.get(sessionId);
  }

  get(runId: string): Run | undefined {
    return this.byId.get(runId);
  }

  start(init: { sessionId: string; userDid: string }): Run {
    this.cluster?.assertReady();
    const run = new Run(init);
    if (this.cluster) run.announced = this.cluster.own(run);
    this.byId.set(run.runId, run);
    this.activeBySession.set(run.sessionId, run);
    run.status = 'running';
    this.store.background(() =>
      this.store.createRun({
        id: run.runId,
        sessionId: run.sessionId,
        userDid: run.userDid,
        requestId: run.requestId,
        status: 'running',
      }),
    );
    run.subscribe(0, (e) => {
      for (const g of this.global) g(run, e);
    });
    this.latestBySession.set(run.sessionId, run);
    void run.done.then(async (status) => {
      run.status = status === 'finished' ? 'finished' : status === 'aborted' ? 'aborted' : 'failed';
      // the session is free at once; the run's row follows in the next group commit
      if (this.activeBySession.get(run.sessionId) === run) this.activeBySession.delete(run.sessionId);
      await this.storeEnd(run);
      const t = setTimeout(() => {
        this.byId.delete(run.runId);
        if (this.latestBySession.get(run.sessionId) === run) this.latestBySession.delete(run.sessionId);
      }, this.retainMs);
      t.unref();
    });
    return run;
  }

  /**
   * Stores how a run ended (its status and event log), with its row if the start's write was lost. A database
   * that does not answer (PostgreSQL away) is tried again, up to about 10 minutes, so its row does not stay
   * `running` once the server is back; `close()` ends the tries.
   */
  private async storeEnd(run: Run): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.store.defer(() =>
          this.store.endRun(
            { id: run.runId, sessionId: run.sessionId, userDid: run.userDid, requestId: run.requestId },
            run.status,
            run.events,
          ),
        );
        return;
      } catch (e) {
        if (this.closed || attempt >= 40 || !isOracleKitError(e) || e.code !== 'database_unavailable')
          return this.store.onBackgroundError(e);
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 15_000)).unref());
      }
    }
  }

  private closed = false;

  /** Ends the tries of storeEnd (the runtime closes its database next). */
  close(): void {
    this.closed = true;
  }

  abortAll(): void {
    for (const r of this.activeBySession.values()) r.abort.abort(new Error('runtime closing'));
  }

  async settleAll(): Promise<void> {
    await Promise.all([...this.activeBySession.values()].map((r) => r.done));
  }
}
