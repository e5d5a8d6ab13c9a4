/**
 * The registry's rate limit shared by two real
 * daemon processes (dist/daemon/main.js) through one Redis
 * (ORACLEKIT_REDIS_URL), on one PostgreSQL database (so a key made through
 * one authenticates at the other). Requests split across both daemons:
 * - per client address (no key: 401s) and per API key, 429 comes at the
 *   configured limit in total, not at twice it;
 * - Redis stopped: the documented fallback — each daemon counts alone (so at
 *   most twice the limit in total), nothing fails, /health says so;
 * - Redis back: shared again by itself.
 * Skipped only when the PostgreSQL binaries are missing and CI is unset.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, spawnDaemon, tempHome, waitExit, type Spawned } from '../unit/daemon/harness.ts';
import { postgresAvailable, startPostgres, type PostgresServer } from '../helpers/postgres.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';

const MAX = 20;

describe.skipIf(!postgresAvailable())('two daemons, one Redis: one rate limit', () => {
  let pg: PostgresServer;
  let redis: RedisServer;
  let flush: () => Promise<void>;
  let closeRedisClient: () => void;
  const daemons: Spawned[] = [];
  const cleanups: (() => void)[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    redis = await startRedis();
    const url = pg.createDatabase('shared_limit');
    for (let i = 0; i < 2; i++) {
      const t = tempHome({ oracle: { enabled: false }, rateLimit: { max: MAX, timeWindowMs: 600_000 } });
      cleanups.push(t.cleanup);
      daemons.push(
        await spawnDaemon({ ...t.env, ORACLEKIT_DATABASE_URL: url, ORACLEKIT_REDIS_URL: redis.url }, t.home),
      );
    }
    const c = createClient({ url: redis.url });
    c.on('error', () => {});
    await c.connect();
    flush = async () => void (await c.flushAll());
    closeRedisClient = () => c.destroy();
    await untilStore('redis');
  }, 180_000);

  afterAll(async () => {
    for (const d of daemons) {
      d.child.kill('SIGTERM');
      await waitExit(d.child);
    }
    closeRedisClient?.();
    await redis?.stop();
    await pg?.stop();
    for (const c of cleanups) c();
  });

  async function untilStore(store: 'redis' | 'local'): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const hs = await Promise.all(daemons.map((d) => d.call('GET', '/health')));
      if (hs.every((h) => h.body.rateLimit?.store === store)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`the daemons' rate limit never became ${store}`);
  }

  /** n requests alternating over the daemons: the statuses counted. */
  async function split(n: number, key?: string): Promise<Record<number, number>> {
    const out: Record<number, number> = {};
    for (let i = 0; i < n; i++) {
      const r = await daemons[i % 2]!.call('GET', '/v1/domains?limit=1', { key });
      out[r.status] = (out[r.status] ?? 0) + 1;
      if (r.status === 429) {
        expect(r.body).toMatchObject({ statusCode: 429, code: 'rate_limited', details: { max: MAX } });
        expect(r.headers.get('x-ratelimit-limit')).toBe(String(MAX));
        expect(r.headers.get('x-request-id')).toBeTruthy();
      }
    }
    return out;
  }

  it('per client address (failed authentications): the limit in total across both daemons', async () => {
    await flush();
    expect(await split(3 * MAX)).toEqual({ 401: MAX, 429: 2 * MAX });
    // /health stays exempt
    expect((await daemons[0]!.call('GET', '/health')).status).toBe(200);
  });

  it('per API key: the limit in total across both daemons', async () => {
    await flush(); // the address's window is spent: the key is made with the discovery token, which counts against it
    const k = await adminKey(daemons[1]!, 'did:example:busy', 'member');
    expect(await split(3 * MAX, k)).toEqual({ 200: MAX, 429: 2 * MAX });
  });

  it('Redis stopped: each daemon counts alone (at most twice the limit), nothing fails; Redis back: shared again', async () => {
    await flush();
    const k = await adminKey(daemons[0]!, 'did:example:outage', 'member');
    // the key authenticates once on each daemon while shared (2 of its window)
    for (const d of daemons) expect((await d.call('GET', '/v1/domains?limit=1', { key: k })).status).toBe(200);
    await redis.kill();
    await untilStore('local');
    // each daemon's own window holds its one request: 19 more on each
    expect(await split(3 * MAX, k)).toEqual({ 200: 2 * (MAX - 1), 429: 3 * MAX - 2 * (MAX - 1) });
    await redis.start();
    await untilStore('redis');
    // Redis came back empty: a new shared window
    expect(await split(3 * MAX, k)).toEqual({ 200: MAX, 429: 2 * MAX });
  });
});
