/**
 * The rate limit shared through Redis (src/daemon/http/shared-limit.ts),
 * against a real redis-server: two limiters (two daemons) on one Redis count
 * one window together; with Redis away each counts alone (the local limiter,
 * a warning logged once), and the shared count resumes when it is back.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedRateLimiter, redisWhere } from '../../../../src/daemon/http/shared-limit.ts';
import { startRedis, type RedisServer } from '../../../helpers/redis.ts';

function logger() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    log: {
      warn: (_o: unknown, msg?: string) => void lines.push({ level: 'warn', msg: msg ?? '' }),
      info: (_o: unknown, msg?: string) => void lines.push({ level: 'info', msg: msg ?? '' }),
    },
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

/** n hits of id alternating over the limiters: how many were let through. */
async function allowed(ls: SharedRateLimiter[], id: string, n: number): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await ls[i % ls.length]!.hit(id)) === undefined) ok++;
  return ok;
}

describe('SharedRateLimiter on a real Redis', () => {
  let redis: RedisServer;
  const made: SharedRateLimiter[] = [];
  const make = async (url: string, max: number, log = logger().log) => {
    const l = await SharedRateLimiter.create(url, max, 60_000, log as never);
    made.push(l);
    return l;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const l of made) l.close();
    await redis?.stop();
  });

  it('two limiters on one Redis: the limit in total, not twice; Retry-After from the window left', async () => {
    const a = await make(redis.url, 5);
    const b = await make(redis.url, 5);
    await until(() => a.store === 'redis' && b.store === 'redis', 'connected');
    expect(await allowed([a, b], 'ip:10.0.0.1', 12)).toBe(5);
    const retry = await a.hit('ip:10.0.0.1');
    expect(retry).toBeGreaterThanOrEqual(59);
    expect(retry).toBeLessThanOrEqual(60);
    // another id has its own window
    expect(await allowed([a, b], 'ip:10.0.0.2', 3)).toBe(3);
    // a key that authenticates on each: its first request counts in its window once per limiter, like any later one
    a.verified('h1');
    b.verified('h1');
    a.verified('h1'); // known: nothing more
    await Promise.all([a.hit('ip:sync'), b.hit('ip:sync')]); // a reply on each connection: their earlier INCRs are done
    expect(await allowed([a, b], 'k:h1', 10)).toBe(3);
  });

  it('Redis away: each counts alone (the documented fallback, a warning once), then shared again when it is back', async () => {
    const la = logger();
    const a = await make(redis.url, 4, la.log);
    const b = await make(redis.url, 4);
    await until(() => a.store === 'redis' && b.store === 'redis', 'connected');
    // one hit each while shared: the local windows count it too, so the fallback starts from this process's share
    expect(await allowed([a, b], 'ip:away', 2)).toBe(2);
    await redis.kill();
    await until(() => a.store === 'local' && b.store === 'local', 'noticed');
    // each allows what is left of the limit in its own window: 3 + 3, no error, no waiting
    expect(await allowed([a, b], 'ip:away', 12)).toBe(6);
    expect(la.lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(la.lines[0]!.msg).toContain(`the shared Redis at ${redisWhere(redis.url)} does not answer`);
    await redis.start();
    await until(() => a.store === 'redis' && b.store === 'redis', 'reconnected');
    // Redis came back empty: a new shared window, counted together again
    expect(await allowed([a, b], 'ip:back', 10)).toBe(4);
    expect(la.lines.at(-1)).toMatchObject({ level: 'info', msg: expect.stringContaining('answers again') });
  });

  it('a Redis that accepts connections and never answers: counted locally, never hung', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    try {
      const l = await make(`redis://127.0.0.1:${port}`, 2);
      expect(await allowed([l], 'ip:silent', 5)).toBe(2);
      expect(l.store).toBe('local');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
