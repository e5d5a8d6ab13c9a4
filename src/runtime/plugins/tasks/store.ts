/**
 * The tasks queue on Redis. Keys (P = TASKS_KEY_PREFIX:<oracleDid>):
 *   P:task:<id>      the task (JSON)
 *   P:due            ZSET id → run time (ms): scheduled tasks
 *   P:running        ZSET id → lease expiry (ms): claimed by a worker
 *   P:user:<did>     SET of the user's task ids
 * A worker claims the earliest due task atomically (Lua), so with several
 * runtime instances on one queue each due task runs once; the worker renews
 * its lease while the task's turn runs, so only a lease that expires because
 * its worker died (kill -9, a lost machine) puts the task back in P:due, and
 * a restarted runtime (or another instance) runs what was interrupted.
 */
import { randomUUID } from 'node:crypto';
// redis is imported when the store connects, so a daemon without TASKS_STORE_URL never loads it (~30 MB RSS)
import { createRedisClient, type RedisClient } from '../../redis.ts';

export type TaskStatus = 'scheduled' | 'running' | 'done' | 'failed' | 'cancelled';

export interface Task {
  id: string;
  userDid: string;
  sessionId: string;
  title: string;
  prompt: string;
  runAt: number;
  everySeconds?: number;
  status: TaskStatus;
  createdAt: string;
  runs: number;
  lastRunAt?: string;
  lastResult?: string;
  lastError?: string;
}

const CLAIM = `
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 10)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZADD', KEYS[1], now, id)
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1)
if #ids == 0 then return false end
redis.call('ZREM', KEYS[1], ids[1])
redis.call('ZADD', KEYS[2], now + lease, ids[1])
return ids[1]
`;

/** Moves a running task's lease to ARGV[2] when it is still claimed. */
const RENEW = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  return 1
end
return 0
`;

type Client = RedisClient;

export class TaskStore {
  readonly prefix: string;
  readonly timeoutMs: number;
  /** The runtime's clock (a task's createdAt). */
  private readonly now: () => number;
  private client!: Client;
  private readonly url: string;

  constructor(o: { url: string; prefix: string; timeoutMs: number; now: () => number }) {
    this.now = o.now;
    this.prefix = o.prefix;
    this.timeoutMs = o.timeoutMs;
    this.url = o.url;
  }

  /**
   * At start: give up after a few tries (the plugin fails, boot goes on); later: keep reconnecting. Errors surface per
   * command as tool errors.
   */
  private createClient(): Promise<Client> {
    return createRedisClient({
      url: this.url,
      connectTimeoutMs: this.timeoutMs,
      bootTries: 2,
      reconnect: { baseMs: 100, maxMs: 2000 },
    });
  }

  async connect(): Promise<void> {
    this.client ??= await this.createClient();
    try {
      await this.op(() => this.client.connect(), 'connect');
    } catch (e) {
      this.client.destroy();
      throw e;
    }
  }

  async close(): Promise<void> {
    if (!this.client) return;
    try {
      if (this.client.isOpen) await this.op(() => this.client.close(), 'close');
    } catch {
      this.client.destroy();
    }
  }

  /** Every Redis call has a time-out and a clear error. */
  private async op<T>(fn: () => Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, rej) => {
      timer = setTimeout(
        () => rej(new Error(`the task store did not answer ${what} within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    try {
      return await Promise.race([fn(), timeout]);
    } catch (e) {
      const m = (e as Error).message;
      throw new Error(m.startsWith('the task store') ? m : `the task store is unreachable (${what}): ${m}`, {
        cause: e,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  private k(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  async get(id: string): Promise<Task | undefined> {
    const raw = await this.op(() => this.client.get(this.k('task', id)), 'GET');
    return raw ? (JSON.parse(raw) as Task) : undefined;
  }

  async save(t: Task): Promise<void> {
    await this.op(() => this.client.set(this.k('task', t.id), JSON.stringify(t)), 'SET');
  }

  async create(init: Omit<Task, 'id' | 'status' | 'createdAt' | 'runs'>): Promise<Task> {
    const t: Task = {
      ...init,
      id: `task-${randomUUID().slice(0, 8)}`,
      status: 'scheduled',
      createdAt: new Date(this.now()).toISOString(),
      runs: 0,
    };
    await this.op(
      () =>
        this.client
          .multi()
          .set(this.k('task', t.id), JSON.stringify(t))
          .sAdd(this.k('user', t.userDid), t.id)
          .zAdd(this.k('due'), { score: t.runAt, value: t.id })
          .exec(),
      'MULTI create',
    );
    return t;
  }

  async listForUser(userDid: string): Promise<Task[]> {
    const ids = await this.op(() => this.client.sMembers(this.k('user', userDid)), 'SMEMBERS');
    if (ids.length === 0) return [];
    const raws = await this.op(() => this.client.mGet(ids.map((id) => this.k('task', id))), 'MGET');
    return raws
      .filter((r): r is string => typeof r === 'string')
      .map((r) => JSON.parse(r) as Task)
      .sort((a, b) => a.runAt - b.runAt);
  }

  async cancel(t: Task): Promise<Task> {
    const next: Task = { ...t, status: 'cancelled' };
    await this.op(
      () => this.client.multi().set(this.k('task', t.id), JSON.stringify(next)).zRem(this.k('due'), t.id).exec(),
      'MULTI cancel',
    );
    return next;
  }

  /** Claims the earliest due task (or one whose lease expired). */
  async claim(now: number, leaseMs: number): Promise<string | undefined> {
    const r = await this.op(
      () =>
        this.client.eval(CLAIM, {
          keys: [this.k('due'), this.k('running')],
          arguments: [String(now), String(leaseMs)],
        }),
      'EVAL claim',
    );
    return typeof r === 'string' ? r : undefined;
  }

  /**
   * Extends the lease of a task this worker is running (every third of the
   * lease while its turn runs), so a turn longer than TASKS_LEASE_MS is not
   * taken for a dead worker's and run again by another instance; false when
   * the claim is no longer there.
   */
  async renew(id: string, until: number): Promise<boolean> {
    const r = await this.op(
      () => this.client.eval(RENEW, { keys: [this.k('running')], arguments: [id, String(until)] }),
      'EVAL renew',
    );
    return r === 1;
  }

  /** Ends a claim: reschedule at `runAt` (repeat, retry, shutdown) or just release. */
  async release(id: string, rescheduleAt?: number): Promise<void> {
    const m = this.client.multi().zRem(this.k('running'), id);
    if (rescheduleAt !== undefined) m.zAdd(this.k('due'), { score: rescheduleAt, value: id });
    await this.op(() => m.exec(), 'MULTI release');
  }

  async dueScore(id: string): Promise<number | null> {
    return this.op(() => this.client.zScore(this.k('due'), id), 'ZSCORE');
  }
}
