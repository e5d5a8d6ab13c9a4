/**
 * The cluster's run-event bus against a real redis-server (src/runtime/cluster,
 * docs/scaling.md "The run-event log in Redis under load"): the events of one
 * loop turn go out as one RPUSH and one PUBLISH of a JSON array; a follower
 * reads batches in order; a 503 names what failed. (An event loop blocked
 * longer than node-redis's old 5 s command timeout: test/e2e/runtime-cluster-load.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { Cluster } from '../../../../src/runtime/cluster/cluster.ts';
import { Run } from '../../../../src/runtime/run.ts';
import type { AnyEvent } from '../../../../src/lib/protocol/index.ts';
import { startRedis, type RedisServer } from '../../../helpers/redis.ts';

let redis: RedisServer;
let probe: ReturnType<typeof createClient>;
const did = 'did:key:z6MkClusterBusTest';

beforeAll(async () => {
  redis = await startRedis();
  probe = createClient({ url: redis.url });
  probe.on('error', () => {}); // the fault test kills Redis; this client reconnects by itself
  await probe.connect();
});

afterAll(async () => {
  await probe?.close();
  await redis?.stop();
});

const list = (runId: string) => `oraclekit:rt:${did}:run:${runId}`;
const stored = async (runId: string) => (await probe.lRange(list(runId), 0, -1)).map((r) => JSON.parse(r) as AnyEvent);
async function calls(cmd: string): Promise<number> {
  const m = new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(await probe.info('commandstats'));
  return m ? Number(m[1]) : 0;
}
async function until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the run-event bus', () => {
  it('sends the events of one loop turn as one RPUSH and one PUBLISH of a JSON array', async () => {
    const owner = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    const sub = probe.duplicate();
    await sub.connect();
    try {
      const run = new Run({ sessionId: 's1', userDid: 'did:key:u1' });
      await owner.own(run);
      const messages: string[] = [];
      await sub.subscribe(list(run.runId), (m) => messages.push(m));
      const before = await calls('rpush');
      for (let i = 0; i < 50; i++) run.emit({ event: 'message', data: { content: `t${i}` } });
      const all = await until(
        async () => ((await stored(run.runId)).length === 50 ? stored(run.runId) : undefined),
        'the 50 events in the list',
      );
      expect(all.map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect((await calls('rpush')) - before).toBe(1);
      await until(async () => (messages.length > 0 ? true : undefined), 'the batch on the channel');
      expect(messages).toHaveLength(1);
      expect(JSON.parse(messages[0]!)).toEqual(all);
    } finally {
      await sub.close();
      await owner.close();
    }
  });

  it('a follower on another instance takes batches in order to done', async () => {
    const owner = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    const other = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    try {
      const run = new Run({ sessionId: 's3', userDid: 'did:key:u3' });
      await owner.own(run);
      for (let j = 0; j < 10; j++) run.emit({ event: 'message', data: { content: `a${j}` } });
      await until(async () => ((await stored(run.runId)).length === 10 ? true : undefined), 'the first batch');
      const remote = (await other.follow(run.runId, 'did:key:u3'))!;
      const got: AnyEvent[] = [];
      const done = new Promise<void>((resolve) =>
        remote.subscribe(0, (e) => {
          got.push(e);
          if (e.event === 'done') resolve();
        }),
      );
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 10; j++) run.emit({ event: 'message', data: { content: `c${i}.${j}` } });
        await new Promise((r) => setImmediate(r));
      }
      run.emit({ event: 'done', data: { status: 'finished', partialText: '' } } as never);
      await done;
      expect(got).toEqual(run.events);
    } finally {
      await other.close();
      await owner.close();
    }
  });

  it('a follower behind its client (the owner appends after writing to its own stream) gives a subscriber from after=N only the events after N', async () => {
    const owner = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    const other = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    try {
      const run = new Run({ sessionId: 's5', userDid: 'did:key:u5' });
      await owner.own(run);
      // the list is still empty when the follower reads it; the client has seen event 1 already
      const remote = (await other.follow(run.runId, 'did:key:u5'))!;
      const got: number[] = [];
      const done = new Promise<void>((resolve) =>
        remote.subscribe(1, (e) => {
          got.push(e.id);
          if (e.event === 'done') resolve();
        }),
      );
      for (let j = 0; j < 3; j++) run.emit({ event: 'message', data: { content: `d${j}` } });
      run.emit({ event: 'done', data: { status: 'finished', partialText: '' } } as never);
      await done;
      expect(got).toEqual([2, 3, 4]);
    } finally {
      await other.close();
      await owner.close();
    }
  });

  it('a request whose Redis is gone gets 503 redis_unavailable naming what failed', async () => {
    const c = await Cluster.connect({ url: redis.url, oracleDid: did, leaseMs: 600_000 });
    try {
      await redis.kill();
      const e = (await c.assertSessionFree('s4').then(
        () => undefined,
        (x: unknown) => x,
      )) as { code?: string; message?: string };
      expect(e.code).toBe('redis_unavailable');
      expect(e.message).toMatch(
        /^the shared Redis \(ORACLE_REDIS_URL\) failed the check of session s4's running turn: \S/,
      );
      await until(async () => (c.ready ? undefined : true), 'the client to notice');
      expect(() => c.assertReady()).toThrow(
        /is not connected \(the (commands connection is|subscriptions connection is|commands and subscriptions connections are) reconnecting\)/,
      );
    } finally {
      await redis.start();
      await c.close();
    }
  });
});
