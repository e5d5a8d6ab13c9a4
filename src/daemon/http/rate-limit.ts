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
 * runtime/shared-windows.ts. While Redis does not answer, each daemon counts alone:
 * Redis holds nothing of the registry's data, so its outage should not take
 * the registry down, and the per-address limit is what bounds failed
 * authentications.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { SharedWindows, redisWhere } from '../../runtime/shared-windows.ts';
import { registryError } from '../../lib/registry/errors.ts';
import type { Registry } from '../registry/index.ts';
import { presentedPrincipal } from './auth.ts';

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
  const shared = o.redisUrl
    ? await SharedWindows.connect(o.redisUrl, { log: app.log, prefix: 'oraclekit:registry:rl:', what: 'rate limit' })
    : undefined;
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

export { redisWhere };
