/**
 * The tasks worker: polls the queue, runs each due task as an agent turn in
 * the task's session (the answer lands in the session's history, and socket
 * clients get message_cache_invalidation), then marks it done, or schedules
 * the next run of a repeating task. A session that is busy is retried a
 * little later; a task that cannot run posts why into the session.
 */
import type { PluginHost } from '../../plugin.ts';
import type { RuntimeLog } from '../../log.ts';
import type { TaskStore, Task } from './store.ts';
import { isOracleKitError } from '../../../lib/errors.ts';

interface WorkerOptions {
  store: TaskStore;
  host: PluginHost;
  pollMs: number;
  leaseMs: number;
  log: RuntimeLog;
  /** The runtime's clock (ms since the epoch): when a task is due, its lease, its last run. */
  now: () => number;
}

export class TaskWorker {
  private readonly o: WorkerOptions;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private current: Promise<void> | undefined;
  private running: { task: Task; abort: () => void } | undefined;

  constructor(o: WorkerOptions) {
    this.o = o;
  }

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.current = this.tick().finally(() => {
        this.current = undefined;
        this.schedule();
      });
    }, this.o.pollMs);
  }

  /** Aborts the local run of a task (cancel_task). */
  abortLocal(id: string): void {
    if (this.running?.task.id === id) this.running.abort();
  }

  private async tick(): Promise<void> {
    // drain every due task, one at a time
    for (;;) {
      if (this.stopping) return;
      let id: string | undefined;
      try {
        id = await this.o.store.claim(this.o.now(), this.o.leaseMs);
      } catch {
        return; // the store is unreachable: try again next poll
      }
      if (!id) return;
      await this.runOne(id).catch(() => {});
    }
  }

  private async runOne(id: string): Promise<void> {
    const { store, host } = this.o;
    const task = await store.get(id);
    if (!task || task.status === 'cancelled' || task.status === 'done') {
      await store.release(id);
      return;
    }
    let run;
    try {
      run = await host.startTurn(task.userDid, task.sessionId, {
        message: `Scheduled task "${task.title}": ${task.prompt}`,
        metadata: { taskId: task.id },
      });
    } catch (e) {
      if (isOracleKitError(e) && (e.code === 'run_in_progress' || e.code === 'redis_unavailable')) {
        // the session is busy, or the Redis shared by several instances is away (docs/scaling.md): a little later
        await store.release(id, this.o.now() + 1000);
        return;
      }
      const why = isOracleKitError(e) ? `${e.code}: ${e.message}` : (e as Error).message;
      await store.save({ ...task, status: 'failed', lastError: why });
      await store.release(id);
      if (!(isOracleKitError(e) && e.code === 'session_not_found')) {
        try {
          await host.postMessage(task.sessionId, {
            id: `${task.id}-failed-${task.runs + 1}`,
            content: `The scheduled task "${task.title}" could not run: ${why}`,
          });
        } catch {
          // the session is gone
        }
      }
      return;
    }
    await store.save({ ...task, status: 'running' });
    this.running = { task, abort: () => run.abort.abort(new Error('task cancelled')) };
    // the claim lives as long as the turn: another instance takes the task only when this worker is gone
    const renew = setInterval(
      () => void store.renew(id, this.o.now() + this.o.leaseMs).catch(() => {}),
      Math.max(100, Math.floor(this.o.leaseMs / 3)),
    );
    const status = await run.done.finally(() => clearInterval(renew));
    this.running = undefined;
    const latest = (await store.get(id)) ?? task;
    if (status === 'aborted' && latest.status !== 'cancelled') {
      // interrupted (shutdown, or the run was aborted) but not cancelled: run it again (after a restart)
      await store.save({ ...latest, status: 'scheduled' });
      await store.release(id, this.o.now() + (this.stopping ? 0 : 1000));
      return;
    }
    const now = new Date(this.o.now()).toISOString();
    const base: Task = { ...latest, runs: latest.runs + 1, lastRunAt: now, lastResult: run.text.slice(0, 2000) };
    if (status !== 'finished') base.lastError = `the run ${status}`;
    if (latest.status === 'cancelled') {
      await store.save({ ...base, status: 'cancelled' });
      await store.release(id);
    } else if (latest.everySeconds) {
      const next = this.o.now() + latest.everySeconds * 1000;
      await store.save({ ...base, status: 'scheduled', runAt: next });
      await store.release(id, next);
    } else {
      await store.save({ ...base, status: status === 'finished' ? 'done' : 'failed' });
      await store.release(id);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    if (this.current) await Promise.race([this.current, new Promise((r) => setTimeout(r, 5000).unref())]);
  }
}
