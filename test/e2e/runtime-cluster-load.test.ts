/**
 * The cluster's run-event bus under load (docs/scaling.md):
 * every event of a run reaches the run's list in Redis, complete and in
 * order, and a follower on another instance gets it with no gap and no
 * duplicate — even when the owner's event loop is blocked for longer than
 * node-redis's default per-command timeout (5 s) right after emitting many
 * events, and when many concurrent turns stream on both instances. The lease
 * is long (600 s) so that no heartbeat rewrites a list during a test: what is
 * in Redis is what the appends put there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/keys.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { callTool, say, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import { newUser, spawnInstance, until, type ClusterContext, type Instance } from '../helpers/runtime-cluster.ts';

let redis: RedisServer;
let model: ScriptedModelServer;
let dir: string;
let ctx: ClusterContext;
let A: Instance;
let B: Instance;
let probe: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer();
  dir = mkdtempSync(join(tmpdir(), 'oraclekit-cluster-load-'));
  const mnemonic = generateMnemonic();
  ctx = {
    database: join(dir, 'oracle.db'),
    mnemonic,
    oracleDid: (await signerFromMnemonic(mnemonic)).did(),
    redisUrl: redis.url,
    modelBaseURL: model.baseURL,
  };
  const env = { ORACLE_INSTANCE_LEASE_MS: '600000' };
  // one at a time: the first applies the database's migrations
  A = await spawnInstance(ctx, { flood: true, env });
  B = await spawnInstance(ctx, { env });
  probe = createClient({ url: redis.url });
  await probe.connect();
});

afterAll(async () => {
  await probe?.close();
  for (const i of [A, B]) if (i && i.child.exitCode === null && i.child.signalCode === null) i.child.kill('SIGKILL');
  await model?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The run's event list in Redis, parsed. */
async function redisList(runId: string): Promise<AnyEvent[]> {
  return (await probe.lRange(`oraclekit:rt:${ctx.oracleDid}:run:${runId}`, 0, -1)).map(
    (r) => JSON.parse(r) as AnyEvent,
  );
}

async function rpushCalls(): Promise<number> {
  const m = /cmdstat_rpush:calls=(\d+)/.exec(await probe.info('commandstats'));
  return m ? Number(m[1]) : 0;
}

const ids = (events: AnyEvent[]) => events.map((e) => e.id);
const text = (events: AnyEvent[]) => events.map((e) => (e.event === 'message' ? e.data.content : '')).join('');

describe('the run-event bus under load', () => {
  it('an owner whose event loop is blocked for 6 s right after emitting 600 events loses none: the list is whole and a follower on B gets them in order', async () => {
    const u = await newUser(ctx.oracleDid);
    const sessionId = await u.session(A.url);
    model.enqueue(callTool('flood_then_block', { count: 600, blockMs: 6000, prefix: 'f' }, 'call_flood'), say('Done.'));
    const pushesBefore = await rpushCalls();
    const first = await u.stream(A.url, sessionId, 'flood', { stopAfter: (e) => e.id >= 1 });
    const runId = first.headers.get('x-run-id')!;
    const n = first.events.at(-1)!.id;
    const rest = await u.sse(B.url, `/runs/${runId}?after=${n}`);
    expect(rest[0]).toMatchObject({ event: 'run', data: { runId, resumed: true } });
    const after = rest.slice(1);
    // every event after N exactly once, in order, to done
    expect(ids(after)).toEqual(Array.from({ length: after.length }, (_, i) => n + 1 + i));
    expect(after.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const whole = [...first.events, ...after];
    expect(text(whole)).toContain(Array.from({ length: 600 }, (_, i) => `f${i} `).join(''));
    expect(text(whole).endsWith('Done.')).toBe(true);
    // the owner's own replay is the same, and so is the list in Redis (without any heartbeat rewriting it)
    expect(await u.sse(A.url, `/runs/${runId}?after=0`)).toEqual(whole);
    expect(await redisList(runId)).toEqual(whole);
    // the flood went out in a few RPUSHes, not one per event
    expect((await rpushCalls()) - pushesBefore).toBeLessThan(whole.length / 10);
    // and the instance serves the session's next turn (no 503 redis_unavailable)
    model.enqueue(say('Still here.'));
    const next = await u.req(A.url, 'POST', `/messages/${sessionId}`, { message: 'still there?' });
    expect(next).toMatchObject({ status: 200, body: { message: { content: 'Still here.' } } });
  });

  it('many concurrent turns on both instances: each follower on the other instance gets its run whole, and each list in Redis is whole', async () => {
    const turns = 24;
    const words = 150;
    const answer = Array.from({ length: words }, (_, i) => `w${i} `).join('');
    for (let i = 0; i < turns; i++) model.enqueue({ steps: [{ type: 'text', text: answer, chunkSize: 3 }] });
    const results = await Promise.all(
      Array.from({ length: turns }, async (_, i) => {
        const [owner, other] = i % 2 === 0 ? [A, B] : [B, A];
        const u = await newUser(ctx.oracleDid);
        const sessionId = await u.session(owner.url);
        const first = await u.stream(owner.url, sessionId, `turn ${i}`, { stopAfter: (e) => e.id >= 1 });
        const runId = first.headers.get('x-run-id')!;
        const n = first.events.at(-1)!.id;
        const rest = (await u.sse(other.url, `/runs/${runId}?after=${n}`)).slice(1);
        const own = await u.sse(owner.url, `/runs/${runId}?after=0`);
        return { runId, n, whole: [...first.events, ...rest], own, rest };
      }),
    );
    for (const r of results) {
      expect(ids(r.rest)).toEqual(Array.from({ length: r.rest.length }, (_, i) => r.n + 1 + i));
      expect(r.whole).toEqual(r.own);
      expect(r.whole.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      expect(text(r.whole)).toBe(answer);
      // the list is written by the appends alone; its end (the done) was appended last, so it is whole once done is
      // there
      const list = await until(async () => {
        const l = await redisList(r.runId);
        return l.at(-1)?.event === 'done' ? l : undefined;
      }, 'the list ending with done');
      expect(list).toEqual(r.own);
    }
  });
});
