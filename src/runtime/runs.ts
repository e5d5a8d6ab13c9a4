/**
 * The run manager: starts runs (run.ts), finds them by id or session, keeps a
 * finished run in memory for a while and stores its events when it ends.
 *
 * With several instances (ORACLE_REDIS_URL, cluster/): each run is announced
 * and its events fanned out through Redis, so another instance can resume,
 * abort or answer it; a turn is refused with 503 redis_unavailable while
 * Redis does not answer.
 */
import { backoffMs } from '../lib/backoff.ts';
import { isOracleKitError } from '../lib/errors.ts';
import { initialTurn, reduceTurn, type AnyEvent } from '../lib/protocol/index.ts';
import type { RuntimeStore } from './store.ts';
import { Run } from './run.ts';

/** What the run manager needs from the instances' shared bus (cluster/Cluster implements it). */
interface RunBus {
  /** Throws 503 redis_unavailable while the bus does not answer: a turn is refused rather than run unseen. */
  assertReady(): void;
  /** Announces a run of this instance and fans its events out; resolves once every instance can find it. */
  own(run: Run): Promise<void>;
}

export class RunManager {
  private readonly byId = new Map<string, Run>();
  private readonly activeBySession = new Map<string, Run>();
  private readonly latestBySession = new Map<string, Run>();
  private readonly global = new Set<(run: Run, e: AnyEvent) => void>();
  private readonly store: RuntimeStore;
  /** How long a finished run stays in memory (its events stay in SQLite). */
  retainMs: number;
  /** Set when the instances of this oracle share a Redis (OracleRuntime.connectCluster, before the oracle serves). */
  bus: RunBus | undefined;

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
    this.bus?.assertReady();
    const run = new Run(init);
    if (this.bus) run.announced = this.bus.own(run);
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
        await this.store.groupCommit(() =>
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
        await new Promise((r) => setTimeout(r, backoffMs(attempt, { baseMs: 100, maxMs: 15_000 })).unref());
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

/**
 * What GET /runs/:id replays of a run no longer in memory: its stored event log after `after`, ending with `done`.
 * A log without one — the process running the turn stopped before the turn ended (the next boot marks its row
 * failed), or the turn's end could not be stored — ends with a `run_interrupted` error and `done {status: failed}`
 * numbered after both the log and `after`: a rejoin never gets an empty stream, nor waits for an end that never comes.
 */
export function storedReplay(
  log: AnyEvent[],
  after: number,
  ids: { runId: string; requestId: string },
  now: () => number,
): AnyEvent[] {
  const replay = log.filter((e) => e.id > after);
  if (log.some((e) => e.event === 'done')) return replay;
  const text = log.reduce(reduceTurn, initialTurn(ids)).text;
  const next = Math.max(after, log.at(-1)?.id ?? 0) + 1;
  const error: AnyEvent = {
    id: next,
    event: 'error',
    data: {
      error: 'this run never ended: the process running it stopped, or its end could not be stored',
      code: 'run_interrupted',
      kind: 'internal',
      retryable: true,
      timestamp: new Date(now()).toISOString(),
    },
  };
  return [...replay, error, { id: next + 1, event: 'done', data: { status: 'failed', partialText: text } }];
}
