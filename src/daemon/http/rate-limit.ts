/**
 * The rate limit (registry.md "Limits"): @fastify/rate-limit, a fixed window
 * of `max` requests per `timeWindowMs`, on every request but /health. A
 * request with a valid API key counts in its key's window; anything else — no
 * key, the discovery token, a UCAN, a made-up or revoked key — counts against
 * the client's address, so failed authentications are limited per address
 * and a flood of made-up keys opens no window each. Over the limit: 429
 * rate_limited (the one error body) with Retry-After and X-RateLimit-*.
 *
 * With `redisUrl` (daemon.json / ORACLEKIT_REDIS_URL) the windows are counted
 * in Redis, shared by every daemon of a deployment (docs/scaling.md), through
 * the store below. While Redis does not answer, each daemon counts alone:
 * Redis holds nothing of the registry's data, so its outage should not take
 * the registry down, and the per-address limit is what bounds failed
 * authentications.
 */
import { createRedisClient } from '../../runtime/redis.ts';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import { registryError } from '../../lib/registry/errors.ts';
import type { Registry } from '../registry/index.ts';
import { presentedPrincipal } from './auth.ts';

/** How long a request waits for Redis before it is counted locally (a hung server, not a refused one). */
const REDIS_WAIT_MS = 250;

type Store = FastifyRateLimitStore;
type Counted = { current: number; ttl: number };

/** The plugin's own in-memory store (it exports no type for it). */
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
) => Store;

/** What /health says of the rate limit. */
type RateLimitState = { store: 'local' } | { store: 'redis' | 'local'; redis: string };

interface RateLimitOptions {
  registry: Registry;
  max: number;
  timeWindowMs: number;
  redisUrl?: string | undefined;
}

/** Which window a request counts in, as its key generator decided (for the 429's message). */
const windowOf = new WeakMap<FastifyRequest, 'key' | 'address'>();

/** Registers the rate limit on `app` (an onRequest hook at the root); returns its state for /health. */
export async function installRateLimit(app: FastifyInstance, o: RateLimitOptions): Promise<() => RateLimitState> {
  const shared = o.redisUrl ? await SharedWindows.connect(o.redisUrl, app.log) : undefined;
  if (shared) app.addHook('onClose', async () => shared.close());
  const windowSeconds = o.timeWindowMs / 1000;
  await app.register(rateLimit, {
    global: false,
    max: o.max,
    timeWindow: o.timeWindowMs,
    ...(shared ? { store: shared.storeClass() } : {}),
    async keyGenerator(req) {
      // a fault of the database counts against the address; the auth then answers 503
      const p = await presentedPrincipal(o.registry, req).catch(() => undefined);
      windowOf.set(req, p ? 'key' : 'address');
      return p ? `k:${p.keyId}` : `ip:${req.ip}`;
    },
    // no X-RateLimit-* headers below the limit
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder(req, ctx) {
      const per = windowOf.get(req) ?? 'address';
      const retryAfter = Math.max(1, Math.ceil(ctx.ttl / 1000));
      return registryError(
        'rate_limited',
        `rate limit: at most ${ctx.max} requests per ${windowSeconds} s for this ${per === 'key' ? 'key' : 'client address'}; retry in ${retryAfter} s`,
        { details: { max: ctx.max, windowSeconds, retryAfterSeconds: retryAfter, per } },
      );
    },
  });
  const limit = app.rateLimit();
  app.addHook('onRequest', async (req, reply) => {
    if (req.url === '/health' || req.url === '/health/ready') return;
    await limit.call(app, req, reply);
  });
  return () => (shared ? { store: shared.state, redis: shared.where } : { store: 'local' });
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

/** The few node-redis calls used (its client type is generic past what is useful here). */
interface RedisLike {
  readonly isReady: boolean;
  multi(): {
    incr(key: string): ReturnType<RedisLike['multi']>;
    pExpire(key: string, ms: number, mode: 'NX'): ReturnType<RedisLike['multi']>;
    pTTL(key: string): ReturnType<RedisLike['multi']>;
    execAsPipeline(): Promise<unknown[]>;
  };
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error' | 'ready', fn: (e?: Error) => void): unknown;
}

/**
 * The windows in Redis: one pipelined round trip per request — INCR, PEXPIRE
 * NX (the window starts at its first request), PTTL — on the keys
 * `oraclekit:registry:rl:<window>`; needs Redis >= 7. The plugin's local store
 * counts every request too, and answers alone while Redis does not (not
 * connected, an error, no reply within REDIS_WAIT_MS): a warning is logged
 * once per outage, an info line when Redis answers again.
 */
class SharedWindows {
  readonly where: string;
  private readonly local = new LocalStore(false, false);
  private readonly client: RedisLike;
  private readonly log: FastifyBaseLogger;
  private away = false;
  /** Connected at least once (then a lost connection is an outage, logged). */
  private connected = false;

  private constructor(client: RedisLike, where: string, log: FastifyBaseLogger) {
    this.client = client;
    this.where = where;
    this.log = log;
  }

  /**
   * Connects in the background (counting locally until Redis answers) and reconnects for ever: 50 ms doubling to 1 s.
   */
  static async connect(url: string, log: FastifyBaseLogger): Promise<SharedWindows> {
    // a command while disconnected fails at once (and is counted locally) instead of waiting in a queue
    const client = (await createRedisClient({
      url,
      connectTimeoutMs: 2000,
      reconnect: { baseMs: 50, maxMs: 1000 },
    })) as unknown as RedisLike;
    const w = new SharedWindows(client, redisWhere(url), log);
    client.on('error', (e) => w.fallback(e?.message ?? 'error'));
    client.on('ready', () => w.recovered());
    client.connect().catch((e: unknown) => w.fallback((e as Error).message));
    return w;
  }

  /** 'redis' while the count is shared, 'local' while Redis is away. */
  get state(): 'redis' | 'local' {
    return this.client.isReady && !this.away ? 'redis' : 'local';
  }

  /** The store class the plugin instantiates: every instance counts through these windows. */
  storeClass(): new () => Store {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const shared = this;
    return class implements Store {
      incr(key: string, cb: (e: Error | null, r?: Counted) => void, timeWindow: number, max: number): void {
        shared.incr(key, timeWindow, max).then((r) => cb(null, r));
      }
      child(): Store {
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

  /** [count in the window, its milliseconds left]: one pipelined round trip, at most REDIS_WAIT_MS. */
  private async count(id: string, windowMs: number): Promise<[number, number]> {
    const key = 'oraclekit:registry:rl:' + id;
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
    this.away = true; // no outage warning for the requests that the close cuts short
    this.client.destroy();
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
