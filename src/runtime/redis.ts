/**
 * The one way the package opens a Redis connection (node-redis, imported on
 * first use): the cluster's three connections, the tasks plugin's store and
 * the daemon's shared rate limit.
 *
 * - a command while disconnected fails at once (no offline queue), so each
 *   caller decides what an outage means (a 503, a tool error, a local count);
 * - with `bootTries`, the first connection gets that many tries 100 ms apart,
 *   then the connect fails; without, it is tried for ever; once connected it
 *   reconnects for ever; every wait but those boot tries follows `reconnect`
 *   (backoffMs);
 * - errors are the caller's to surface (an 'error' listener is attached, so a
 *   lost connection never crashes the process).
 */
import type { createClient } from 'redis';
import { backoffMs } from '../lib/backoff.ts';

export type RedisClient = ReturnType<typeof createClient>;

interface RedisClientOptions {
  url: string;
  connectTimeoutMs: number;
  /** Tries before the first connection fails (default: for ever). */
  bootTries?: number;
  reconnect: { baseMs: number; maxMs: number };
  /**
   * No per-command timeout (node-redis's default is 5 s): a queued command is never dropped; the caller bounds its own
   * wait.
   */
  noCommandTimeout?: boolean;
}

export async function createRedisClient(o: RedisClientOptions): Promise<RedisClient> {
  const { createClient } = await import('redis');
  let connected = false;
  const client = createClient({
    url: o.url,
    disableOfflineQueue: true,
    ...(o.noCommandTimeout ? { commandOptions: { timeout: 0 } } : {}),
    socket: {
      connectTimeout: o.connectTimeoutMs,
      reconnectStrategy: (retries: number, cause: Error) =>
        connected || o.bootTries === undefined ? backoffMs(retries, o.reconnect) : retries >= o.bootTries ? cause : 100,
    },
  }) as unknown as RedisClient;
  client.on('ready', () => (connected = true));
  client.on('error', () => {});
  return client;
}
