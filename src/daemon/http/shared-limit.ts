/**
 * The rate limit shared by every daemon of a deployment (daemon.json
 * `redisUrl` / ORACLEKIT_REDIS_URL; docs/scaling.md, "Several registry
 * daemons"): the same windows as the local RateLimiter (http/limits.ts) —
 * per API key once it has authenticated, per client address otherwise — but
 * counted in Redis, so N daemons allow the limit in total, not N times it.
 *
 * One round trip per request: INCR, PEXPIRE NX (the window starts at its
 * first request and lasts `windowMs`, as the local one) and PTTL (the
 * Retry-After), pipelined. Keys: `oraclekit:registry:rl:k:<sha256 of the
 * key>` or `…:ip:<address>`, gone when their window ends. Needs Redis >= 7
 * (PEXPIRE … NX).
 *
 * While Redis does not answer (not connected, an error, or no reply within
 * REDIS_WAIT_MS) a request is counted by this process alone — the local
 * RateLimiter, which counts every request all along, so it takes over with
 * this process's share of the window already counted — and a warning is
 * logged once per outage; when Redis answers again the shared count resumes
 * (an info line). Why not refuse (503) instead: Redis holds nothing of the
 * registry's data, so its outage should not take the registry down; and why
 * not stop limiting: the per-address limit is what bounds failed
 * authentications. During the outage N daemons allow up to N times the
 * limit, as they did before it was shared.
 */
import type { FastifyBaseLogger } from 'fastify';
import { RateLimiter } from './limits.ts';

/** How long a request waits for Redis before it is counted locally (a hung server, not a refused one). */
export const REDIS_WAIT_MS = 250;

/** The few commands used, as node-redis types them (its client type is generic past what is useful here). */
interface Pipeline {
  incr(key: string): Pipeline;
  pExpire(key: string, ms: number, mode: 'NX'): Pipeline;
  pTTL(key: string): Pipeline;
  execAsPipeline(): Promise<unknown[]>;
}
interface RedisLike {
  readonly isReady: boolean;
  multi(): Pipeline;
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error' | 'ready', fn: (e?: Error) => void): unknown;
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

export class SharedRateLimiter {
  readonly max: number;
  readonly windowMs: number;
  /** Counts every request too; decides alone while Redis is away. */
  readonly local: RateLimiter;
  /** Where the shared counters are (host and port only). */
  readonly where: string;
  private readonly prefix = 'oraclekit:registry:rl:';
  private away = false;
  /** Connected at least once (then a lost connection is an outage, logged). */
  private connected = false;
  private readonly client: RedisLike;
  private readonly log: Pick<FastifyBaseLogger, 'warn' | 'info'>;

  private constructor(
    client: RedisLike,
    max: number,
    windowMs: number,
    where: string,
    log: Pick<FastifyBaseLogger, 'warn' | 'info'>,
  ) {
    this.client = client;
    this.log = log;
    this.max = max;
    this.windowMs = windowMs;
    this.local = new RateLimiter(max, windowMs);
    this.where = where;
  }

  /**
   * Connects in the background (the daemon serves at once, counting locally
   * until Redis answers) and reconnects for ever: 50 ms doubling to 1 s.
   */
  static async create(
    url: string,
    max: number,
    windowMs: number,
    log: Pick<FastifyBaseLogger, 'warn' | 'info'>,
  ): Promise<SharedRateLimiter> {
    const { createClient } = await import('redis');
    const client = createClient({
      url,
      // a command while disconnected fails at once (and is counted locally) instead of waiting in a queue
      disableOfflineQueue: true,
      socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) },
    }) as unknown as RedisLike;
    const l = new SharedRateLimiter(client, max, windowMs, redisWhere(url), log);
    client.on('error', (e) => l.fallback(e?.message ?? 'error'));
    client.on('ready', () => l.recovered());
    client.connect().catch((e: unknown) => l.fallback((e as Error).message));
    return l;
  }

  /** 'redis' while the count is shared, 'local' while Redis is away (for /health). */
  get store(): 'redis' | 'local' {
    return this.client.isReady && !this.away ? 'redis' : 'local';
  }

  /** Open local windows (for tests and diagnostics). */
  get size(): number {
    return this.local.size;
  }

  idOf(keyHash: string | undefined, address: string): string {
    return this.local.idOf(keyHash, address);
  }

  /** A key authenticated (http/auth.ts): its first request here counts in its own window, shared too. */
  verified(keyHash: string): void {
    if (this.local.verified(keyHash) && this.client.isReady)
      this.count('k:' + keyHash).catch((e: unknown) => this.fallback((e as Error).message));
  }

  /**
   * Counts one request of `id`: undefined within the limit, else the seconds
   * until its window resets. A promise while Redis is connected; the local
   * answer at once while it is not.
   */
  hit(id: string, now: number = Date.now()): number | undefined | Promise<number | undefined> {
    const local = this.local.hit(id, now);
    if (!this.client.isReady) {
      // before the first connection at start this is not an outage (a refused connect is: the 'error' event)
      if (this.connected) this.fallback('not connected');
      return local;
    }
    return this.count(id).then(
      ([n, pttl]) => {
        this.recovered();
        return n <= this.max ? undefined : Math.max(1, Math.ceil((pttl > 0 ? pttl : this.windowMs) / 1000));
      },
      (e: unknown) => {
        this.fallback((e as Error).message);
        return local;
      },
    );
  }

  close(): void {
    this.away = true; // no outage warning for the requests that the close cuts short
    this.client.destroy();
  }

  /** [count in the window, its milliseconds left]: one pipelined round trip, at most REDIS_WAIT_MS. */
  private async count(id: string): Promise<[number, number]> {
    const key = this.prefix + id;
    let timer: NodeJS.Timeout | undefined;
    try {
      const r = await Promise.race([
        this.client.multi().incr(key).pExpire(key, this.windowMs, 'NX').pTTL(key).execAsPipeline(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_WAIT_MS} ms`)), REDIS_WAIT_MS);
        }),
      ]);
      return [Number(r[0]), Number(r[2])];
    } finally {
      clearTimeout(timer);
    }
  }

  private fallback(cause: string): void {
    if (this.away) return;
    this.away = true;
    this.log.warn(
      { redis: this.where, cause },
      `rate limit: the shared Redis at ${this.where} does not answer (${cause}); counting in this process alone until it is back (N daemons allow up to N times the limit meanwhile)`,
    );
  }

  private recovered(): void {
    this.connected = true;
    if (!this.away) return;
    this.away = false;
    this.log.info(
      { redis: this.where },
      `rate limit: the shared Redis at ${this.where} answers again; counting shared`,
    );
  }
}
