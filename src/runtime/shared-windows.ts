/**
 * Rate-limit windows for @fastify/rate-limit, counted in Redis and shared by every process of a deployment: the
 * daemon's request limit (daemon/http/rate-limit.ts) and the runtime's per-user turn limit (turn-limiter.ts) count
 * through this store. @fastify/rate-limit's own LocalStore counts every request too, and answers alone while Redis
 * does not (not connected, an error, no reply within REDIS_WAIT_MS): a warning is logged once per outage, an info
 * line when Redis answers again. Redis holds nothing but counts, so its outage should not take the service down.
 */
import { createRequire } from 'node:module';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { createRedisClient } from './redis.ts';

/** How long a count waits for Redis before it is counted locally (a hung server, not a refused one). */
const REDIS_WAIT_MS = 250;

export type Counted = { current: number; ttl: number };

/** @fastify/rate-limit's store, and the give-back of one count (a request refused for another reason). */
export interface WindowStore extends FastifyRateLimitStore {
  decr(key: string): Promise<void>;
}

/** The plugin's own in-memory store (it exports no type for it). */
const PluginLocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => FastifyRateLimitStore & { lru: { get(key: string): { current: number } | undefined } };

/** @fastify/rate-limit's LocalStore (a fixed window per key in this process), with `decr`. */
export function localWindows(): WindowStore {
  const store = new PluginLocalStore(false, false);
  return Object.assign(store, {
    async decr(key: string) {
      const c = store.lru.get(key);
      if (c && c.current > 0) c.current--;
    },
  });
}

/** `redis://host:port` of a URL, without user or password (for logs and /health). */
export function redisWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'redis';
  }
}

/** The log lines of an outage (pino's, fastify's). */
interface OutageLog {
  warn(o: object, msg: string): void;
  info(o: object, msg: string): void;
}

/** The few node-redis calls used (its client type is generic past what is useful here). */
interface RedisLike {
  readonly isReady: boolean;
  multi(): {
    incr(key: string): ReturnType<RedisLike['multi']>;
    pExpire(key: string, ms: number, mode: 'NX'): ReturnType<RedisLike['multi']>;
    pTTL(key: string): ReturnType<RedisLike['multi']>;
    execAsPipeline(): Promise<unknown[]>;
  };
  decr(key: string): Promise<unknown>;
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error' | 'ready', fn: (e?: Error) => void): unknown;
}

/**
 * The windows in Redis: one pipelined round trip per count — INCR, PEXPIRE NX (the window starts at its first
 * count), PTTL — on the keys `<prefix><window>`; needs Redis >= 7.
 */
export class SharedWindows {
  readonly where: string;
  private readonly local = localWindows();
  private readonly client: RedisLike;
  private readonly log: OutageLog;
  private readonly prefix: string;
  /** What the outage lines call the limit ("rate limit", "turn limit"). */
  private readonly what: string;
  private away = false;
  /** Connected at least once (then a lost connection is an outage, logged). */
  private connected = false;

  private constructor(client: RedisLike, where: string, o: { log: OutageLog; prefix: string; what: string }) {
    this.client = client;
    this.where = where;
    this.log = o.log;
    this.prefix = o.prefix;
    this.what = o.what;
  }

  /**
   * Connects in the background (counting locally until Redis answers) and reconnects for ever: 50 ms doubling to 1 s.
   */
  static async connect(url: string, o: { log: OutageLog; prefix: string; what: string }): Promise<SharedWindows> {
    // a command while disconnected fails at once (and is counted locally) instead of waiting in a queue
    const client = (await createRedisClient({
      url,
      connectTimeoutMs: 2000,
      reconnect: { baseMs: 50, maxMs: 1000 },
    })) as unknown as RedisLike;
    const w = new SharedWindows(client, redisWhere(url), o);
    client.on('error', (e) => w.fallback(e?.message ?? 'error'));
    client.on('ready', () => w.recovered());
    client.connect().catch((e: unknown) => w.fallback((e as Error).message));
    return w;
  }

  /** Resolves once Redis answered (or after `ms`): counts made before that are this process's alone. */
  async ready(ms: number): Promise<void> {
    for (const end = Date.now() + ms; !this.client.isReady && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 10));
  }

  /** 'redis' while the count is shared, 'local' while Redis is away. */
  get state(): 'redis' | 'local' {
    return this.client.isReady && !this.away ? 'redis' : 'local';
  }

  /** The store: every count goes through these windows. */
  store(): WindowStore {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const shared = this;
    return {
      incr(key: string, cb: (e: Error | null, r?: Counted) => void, timeWindow: number, max: number): void {
        shared.incr(key, timeWindow, max).then((r) => cb(null, r));
      },
      child() {
        return this;
      },
      decr: (key: string) => shared.decr(key),
    };
  }

  /** The store class @fastify/rate-limit instantiates (its `store` option). */
  storeClass(): new () => FastifyRateLimitStore {
    const store = this.store();
    return class implements FastifyRateLimitStore {
      incr(key: string, cb: (e: Error | null, r?: Counted) => void, timeWindow: number, max: number): void {
        store.incr(key, cb, timeWindow, max);
      }
      child(): FastifyRateLimitStore {
        return this;
      }
    };
  }

  private async incr(key: string, timeWindow: number, max: number): Promise<Counted> {
    const local = await new Promise<Counted>((resolve) =>
      this.local.incr(key, (_e, r) => resolve(r!), timeWindow, max),
    );
    if (!this.client.isReady) {
      // before the first connection at start this is not an outage (a refused connect is: the 'error' event)
      if (this.connected) this.fallback('not connected');
      return local;
    }
    try {
      const [current, ttl] = await this.count(key, timeWindow);
      this.recovered();
      return { current, ttl: ttl > 0 ? ttl : timeWindow };
    } catch (e) {
      this.fallback((e as Error).message);
      return local;
    }
  }

  private async decr(key: string): Promise<void> {
    await this.local.decr(key);
    if (this.client.isReady) await this.client.decr(this.prefix + key).catch(() => {});
  }

  /** [count in the window, its milliseconds left]: one pipelined round trip, at most REDIS_WAIT_MS. */
  private async count(id: string, windowMs: number): Promise<[number, number]> {
    const key = this.prefix + id;
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await Promise.race([
        this.client.multi().incr(key).pExpire(key, windowMs, 'NX').pTTL(key).execAsPipeline(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_WAIT_MS} ms`)), REDIS_WAIT_MS);
        }),
      ]);
      return [Number(r[0]), Number(r[2])];
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    this.away = true; // no outage warning for the counts that the close cuts short
    this.client.destroy();
  }

  private fallback(cause: string): void {
    if (this.away) return;
    this.away = true;
    this.log.warn(
      { redis: this.where, cause },
      `${this.what}: the shared Redis at ${this.where} does not answer (${cause}); counting in this process alone until it is back (N processes allow up to N times the limit meanwhile)`,
    );
  }

  private recovered(): void {
    this.connected = true;
    if (!this.away) return;
    this.away = false;
    this.log.info(
      { redis: this.where },
      `${this.what}: the shared Redis at ${this.where} answers again; counting shared`,
    );
  }
}
