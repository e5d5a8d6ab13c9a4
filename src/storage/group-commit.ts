/**
 * The group commit both backends use (`Storage.write`): the writes queued
 * while the event loop was busy form one group, committed together by the
 * backend's `commitBatch` — one transaction, each write in its own SAVEPOINT
 * (a failing write is rolled back alone and its promise rejects), one COMMIT,
 * and each write's promise settled once the group is durable. Groups run one
 * at a time; a group starts on the next turn of the event loop.
 */

/** A write waiting for its group. `tries`: how often it ran already (a deadlock victim runs again). */
export interface QueuedWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  tries: number;
}

export class GroupCommit {
  private queue: QueuedWrite[] = [];
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();
  private readonly commitBatch: (batch: QueuedWrite[]) => Promise<void>;
  /** Groups committed so far (for tests and diagnostics). */
  groups = 0;

  /**
   * `commitBatch` commits a group and settles every write in it (a rejection rejects the writes it has not settled).
   */
  constructor(commitBatch: (batch: QueuedWrite[]) => Promise<void>) {
    this.commitBatch = commitBatch;
  }

  /** Runs fn in the next group; resolves with its result once the group is durable. */
  write<T>(fn: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.enqueue({ fn, resolve: resolve as (v: unknown) => void, reject, tries: 0 }),
    );
  }

  /** Queues a write (again, for a write whose group could not run it) for the next group. */
  enqueue(w: QueuedWrite): void {
    this.queue.push(w);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.next());
  }

  /** Commits the queued writes now, without waiting for the next turn; resolves once every group has run. */
  async flush(): Promise<void> {
    if (this.queue.length > 0) await this.next();
    await this.running;
  }

  private next(): Promise<void> {
    this.running = this.running.then(async () => {
      this.scheduled = false;
      const batch = this.queue;
      this.queue = [];
      if (batch.length === 0) return;
      this.groups++;
      await this.commitBatch(batch).catch((e: unknown) => batch.forEach((w) => w.reject(e)));
    });
    return this.running;
  }
}
