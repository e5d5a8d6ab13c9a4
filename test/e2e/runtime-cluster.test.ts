/**
 * Several runtime instances serving one oracle (docs/scaling.md): real processes (createOracleApp of dist/ in child
 * processes), one shared database — a SQLite file, and a PostgreSQL database
 * on a real server (the same suite, parameterised) — a real redis-server,
 * the scripted model server. An event emitted on A reaches a socket on B; a turn on A
 * resumes on B from after=N with no gap and no duplicate; a browser tool call
 * answered through B reaches the turn on A; an abort sent to B stops it; an
 * invocation used on A is refused on B (strict replay); a task runs once;
 * a kill -9 mid-turn ends the run failed and loses no acknowledged write; a
 * Redis that restarts gives 503 redis_unavailable, then everything recovers;
 * a PostgreSQL stopped for a few seconds gives 503 database_unavailable, no
 * instance crashes, and the same instances serve again once it is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/keys.ts';
import type { BrowserToolCall } from '../../src/lib/protocol/index.ts';
import { readSse } from '../helpers/runtime-harness.ts';
import {
  callTool,
  lastToolResult,
  say,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import { rewrap } from '../helpers/ucan-rewrap.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { newUser, spawnInstance as spawnClusterInstance, until, type Instance } from '../helpers/runtime-cluster.ts';

let redis: RedisServer;
let model: ScriptedModelServer;
let dir: string;
/** The shared database: the SQLite file's path, or the PostgreSQL database's URL. */
let database: string;
let mnemonic: string;
let oracleDid: string;
const children: ChildProcess[] = [];

/**
 * An instance of the oracle on the shared database and Redis (test/helpers/runtime-cluster.ts), with this suite's
 * settings.
 */
async function spawnInstance(extraEnv: Record<string, string> = {}): Promise<Instance> {
  const started = spawnClusterInstance(
    { database, mnemonic, oracleDid, redisUrl: redis.url, modelBaseURL: model.baseURL },
    {
      toolTimeoutMs: 10_000,
      env: {
        ORACLE_INSTANCE_LEASE_MS: '1500',
        ORACLE_UCAN_REPLAY: 'strict',
        PORTAL_TOOL_TIMEOUT_MS: '8000',
        TASKS_STORE_URL: redis.url,
        TASKS_POLL_MS: '50',
        TASKS_LEASE_MS: '1000',
        ...extraEnv,
      },
    },
  );
  const instance = await started;
  children.push(instance.child);
  return instance;
}

/** Text of the model, then a stall: the turn stays running until it is aborted or its instance dies. */
const sayThenStall = (text: string) => ({
  steps: [{ type: 'text' as const, text, chunkSize: 4 }, { type: 'stall' as const }],
});

describe.each(BACKENDS)('several instances on %s + Redis', (backend) => {
  const databases = backendDatabases(backend);

  let A: Instance;
  let B: Instance;

  beforeAll(async () => {
    redis = await startRedis();
    model = await startScriptedModelServer();
    dir = mkdtempSync(join(tmpdir(), 'oraclekit-cluster-'));
    database = databases.fresh('rt_cluster') ?? join(dir, 'oracle.db');
    mnemonic = generateMnemonic();
    oracleDid = (await signerFromMnemonic(mnemonic)).did();
    // one at a time: the first applies the database's migrations
    A = await spawnInstance();
    B = await spawnInstance();
  });

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await model.close();
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('two instances, one oracle', () => {
    it('a socket connected to B receives the events of a turn that runs on A', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      const s = await u.socket(B.url, sessionId);
      const got: { eventName: string; payload: { requestId: string } }[] = [];
      s.on('message_cache_invalidation', (m) => got.push(m));
      model.enqueue(say('Hello from A.'));
      const { events, headers } = await u.stream(A.url, sessionId, 'hi');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      const m = await until(
        () => got.find((g) => g.payload.requestId === headers.get('x-request-id')),
        'the invalidation on B',
      );
      expect(m.eventName).toBe('message_cache_invalidation');
      s.close();
    });

    it('GET /runs/:id?after=N on B resumes a turn running on A with no gap and no duplicate', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      // many small chunks with pauses between them: the turn is still running when B picks it up
      const steps = [];
      for (let i = 0; i < 12; i++)
        steps.push({ type: 'text' as const, text: `part${i} `, chunkSize: 3 }, { type: 'delay' as const, ms: 30 });
      model.enqueue({ steps });
      const first = await u.stream(A.url, sessionId, 'count', { stopAfter: (e) => e.event === 'message' && e.id >= 4 });
      const runId = first.headers.get('x-run-id')!;
      const n = first.events.at(-1)!.id;
      const rest = await u.sse(B.url, `/runs/${runId}?after=${n}`);
      // the resume frame, then every event after N exactly once, in order, to done
      expect(rest[0]).toMatchObject({ event: 'run', data: { runId, resumed: true } });
      const after = rest.slice(1);
      expect(after.map((e) => e.id)).toEqual(Array.from({ length: after.length }, (_, i) => n + 1 + i));
      expect(after.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      const whole = [...first.events, ...after];
      const text = whole.map((e) => (e.event === 'message' ? e.data.content : '')).join('');
      expect(text).toBe(Array.from({ length: 12 }, (_, i) => `part${i} `).join(''));
      // and the same events as the owner's own replay
      const own = await u.sse(A.url, `/runs/${runId}?after=0`);
      expect(whole).toEqual(own);
    });

    it('a browser_tool_call answered through B reaches the turn on A', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      const s = await u.socket(B.url, sessionId);
      const calls: BrowserToolCall[] = [];
      s.on('browser_tool_call', (c: BrowserToolCall) => {
        calls.push(c);
        s.emit('tool_result', { toolCallId: c.toolCallId, sessionId: c.sessionId, result: { title: 'Stoves on B' } });
      });
      const pageTool = {
        name: 'get_page_title',
        description: 'the title of the page',
        schema: { type: 'object', properties: { selector: { type: 'string' } }, required: ['selector'] },
      };
      model.enqueue(
        callTool('load_capability', { names: ['portal'] }, 'call_load'),
        callTool('get_page_title', { selector: 'h1' }, 'call_bt'),
        (body) => say(`Title: ${(lastToolResult(body) as { title: string }).title}`),
      );
      const { events } = await u.stream(A.url, sessionId, 'which page?', { extra: { tools: [pageTool] } });
      s.close();
      expect(calls.map((c) => c.toolCallId)).toEqual(['call_bt']);
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      expect(events.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe('Title: Stoves on B');
    });

    it('an abort sent to B stops the run on A', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      model.enqueue(sayThenStall('Working on it'));
      const streaming = u.stream(A.url, sessionId, 'long job');
      const running = await until(async () => {
        const r = await u.req(B.url, 'GET', `/sessions/${sessionId}/run`);
        return r.body.run?.status === 'running' ? (r.body.run as { runId: string }) : undefined;
      }, 'the run on A');
      // one turn per session across the instances
      const second = await u.req(B.url, 'POST', `/messages/${sessionId}`, { message: 'and another' });
      expect(second.body).toMatchObject({ statusCode: 409, code: 'run_in_progress' });
      const ab = await u.req(B.url, 'POST', '/messages/abort', { sessionId });
      expect(ab).toEqual({ status: 200, body: { aborted: true, runId: running.runId } });
      const { events } = await streaming;
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
      // nothing left to abort, on either instance
      expect((await u.req(B.url, 'POST', '/messages/abort', { sessionId })).body).toMatchObject({
        statusCode: 404,
        code: 'no_active_run',
      });
      expect((await u.req(A.url, 'POST', '/messages/abort', { sessionId })).body).toMatchObject({
        statusCode: 404,
        code: 'no_active_run',
      });
    });

    it('deleting the session through B stops its turn on A', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      model.enqueue(sayThenStall('Still going'));
      const streaming = u.stream(A.url, sessionId, 'long job');
      await until(
        async () =>
          (await u.req(B.url, 'GET', `/sessions/${sessionId}/run`)).body.run?.status === 'running' ? true : undefined,
        'the run on A',
      );
      expect((await u.req(B.url, 'DELETE', `/sessions/${sessionId}`)).status).toBe(200);
      const { events } = await streaming;
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
    });

    it('an invocation used on A is refused on B (ORACLE_UCAN_REPLAY=strict, replay store in Redis)', async () => {
      const u = await newUser(oracleDid);
      const token = await u.invocation();
      expect((await u.req(A.url, 'GET', '/sessions', undefined, token)).status).toBe(200);
      const again = await u.req(B.url, 'GET', '/sessions', undefined, token);
      expect(again.status).toBe(401);
      expect(again.body).toMatchObject({ code: 'replayed' });
      // and on A itself, as before
      expect((await u.req(A.url, 'GET', '/sessions', undefined, token)).body).toMatchObject({ code: 'replayed' });
      // re-wrapped under a made-up CID it is not a new token to the store they share
      for (const url of [A.url, B.url]) {
        const wrapped = await u.req(url, 'GET', '/sessions', undefined, await rewrap(token, url));
        expect([wrapped.status, wrapped.body.code]).toEqual([401, 'malformed_token']);
      }
      // nor does it log in as a delegation on the other instance
      const asDelegation = await fetch(`${B.url}/sessions`, { headers: { 'x-ucan-delegation': token } });
      expect(asDelegation.status).toBe(401);
    });

    it('a scheduled task runs exactly once, though both instances poll the queue and the turn outlives its lease', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      model.enqueue(
        callTool('load_capability', { names: ['tasks'] }),
        callTool('create_task', { title: 'Once', prompt: 'count the stoves', delaySeconds: 0 }),
        say('Scheduled.'),
      );
      const { events } = await u.stream(A.url, sessionId, 'count the stoves in the background');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      // the task's turn takes longer than TASKS_LEASE_MS (1000 ms): the worker renews its lease meanwhile
      const isTask = (b: { messages: { role: string; content: unknown }[] }) =>
        JSON.stringify(b.messages.at(-1)?.content ?? '').includes('Scheduled task \\"Once\\"');
      model.enqueue({
        steps: [
          { type: 'delay', ms: 2500 },
          { type: 'text', text: 'There are 7 stoves.' },
        ],
      });
      await until(async () => {
        const h = await u.req(B.url, 'GET', `/messages/${sessionId}`);
        return (h.body.messages as { content: unknown }[]).some((m) =>
          JSON.stringify(m.content).includes('There are 7 stoves.'),
        )
          ? true
          : undefined;
      }, 'the task answer');
      // a few more poll rounds of both instances (TASKS_POLL_MS = 50) pick nothing up
      const seen = model.requests.filter((r) => isTask(r.body)).length;
      await new Promise((r) => setTimeout(r, 600));
      expect(seen).toBe(1);
      expect(model.requests.filter((r) => isTask(r.body)).length).toBe(1);
    });
  });

  describe('faults', () => {
    it('kill -9 of an instance mid-turn and mid-write: acknowledged writes survive, its run ends failed, the other instance keeps serving', async () => {
      const C = await spawnInstance();
      const u = await newUser(oracleDid);
      const sessionId = await u.session(C.url);
      model.enqueue(sayThenStall('Half an ans'));
      const first = await u.stream(C.url, sessionId, 'go', { stopAfter: (e) => e.event === 'message' });
      const runId = first.headers.get('x-run-id')!;
      const following = u.sse(B.url, `/runs/${runId}?after=${first.events.at(-1)!.id}`);
      const s = await u.socket(B.url, sessionId);
      const invalidated: { requestId: string; reason: string }[] = [];
      s.on('message_cache_invalidation', (m: { payload: { requestId: string; reason: string } }) =>
        invalidated.push(m.payload),
      );
      // writes in flight when the process dies: every acknowledged one must be there afterwards
      const acknowledged: string[] = [];
      let stop = false;
      const writer = (async () => {
        while (!stop) {
          const r = await u
            .req(C.url, 'POST', '/sessions', { title: `w${acknowledged.length}` })
            .catch(() => undefined);
          if (r?.status === 201) acknowledged.push(r.body.sessionId as string);
          else break;
        }
      })();
      await until(() => (acknowledged.length >= 5 ? true : undefined), 'a few acknowledged writes');
      C.child.kill('SIGKILL');
      stop = true;
      await writer;

      // the follower on B gets the end of the run: an error, then done failed with the text so far
      const rest = await following;
      expect(rest.at(-2)).toMatchObject({ event: 'error', data: { kind: 'internal', retryable: true } });
      expect(rest.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
      expect((rest.at(-1)!.data as { partialText: string }).partialText).toMatch(/^Half/);
      // its row says failed (never stuck running), and its stored events end the same way
      const run = await until(async () => {
        const r = await u.req(B.url, 'GET', `/sessions/${sessionId}/run`);
        return r.body.run?.status === 'failed' ? r.body.run : undefined;
      }, 'the run failed in the database');
      expect(run.runId).toBe(runId);
      // the session's socket clients are told, as for any run that ends
      await until(
        () =>
          invalidated.some((p) => p.requestId === first.headers.get('x-request-id') && p.reason === 'run failed')
            ? true
            : undefined,
        'the invalidation of the failed run',
      );
      s.close();
      // every acknowledged session is there
      const list = await u.req(B.url, 'GET', '/sessions?limit=100');
      const ids = new Set((list.body.sessions as { sessionId: string }[]).map((s) => s.sessionId));
      for (const id of acknowledged) expect(ids.has(id)).toBe(true);
      // B keeps serving: a whole turn
      model.enqueue(say('Still here.'));
      const again = await u.stream(B.url, sessionId, 'still there?');
      expect(again.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    });

    // a third instance boots and two reconnect to Redis: seconds each on a busy 2-core machine
    it('Redis restarting: requests are refused with 503 redis_unavailable, then everything recovers by itself', async () => {
      // D accepts an invocation again until it expires (bearer, the default): its requests need Redis only for turns
      const D = await spawnInstance({ ORACLE_UCAN_REPLAY: 'bearer' });
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      await redis.kill();
      const turn = await u.req(D.url, 'POST', `/messages/${sessionId}`, { message: 'now?' });
      expect(turn.body).toMatchObject({ statusCode: 503, code: 'redis_unavailable' });
      expect(turn.body.message).toMatch(/ORACLE_REDIS_URL/);
      expect((await u.req(D.url, 'GET', `/sessions/${sessionId}/messages`)).status).toBe(200);
      const refused = await u.req(A.url, 'POST', `/messages/${sessionId}`, { message: 'now?' });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ statusCode: 503, code: 'redis_unavailable' });
      expect(refused.body.message).toMatch(/ORACLE_REDIS_URL/);
      // with ORACLE_UCAN_REPLAY=strict every request claims its invocation in Redis: refused alike, never accepted
      // unchecked
      expect((await u.req(B.url, 'GET', `/sessions/${sessionId}/messages`)).body).toMatchObject({
        statusCode: 503,
        code: 'redis_unavailable',
      });
      await redis.start();
      // both instances reconnect by themselves; then a turn on A resumes on B and its socket events reach B
      await until(async () => {
        const [a, b] = [
          await u.req(A.url, 'GET', `/sessions/${sessionId}/run`),
          await u.req(B.url, 'GET', `/sessions/${sessionId}/run`),
        ];
        return a.status === 200 && b.status === 200 ? true : undefined;
      }, 'A and B answering');
      const s = await u.socket(B.url, sessionId);
      const got: string[] = [];
      s.on('message_cache_invalidation', (m: { payload: { requestId: string } }) => got.push(m.payload.requestId));
      model.enqueue(say('Back.'));
      // a refused turn never reaches the model, so the script waits for the accepted one
      const done = await until(async () => {
        const r = await u.req(A.url, 'POST', `/messages/${sessionId}`, { message: 'back?' });
        return r.status === 503 ? undefined : r;
      }, 'a turn accepted again');
      expect(done).toMatchObject({ status: 200, body: { message: { content: 'Back.' } } });
      model.enqueue(say('D too.'));
      const onD = await until(async () => {
        const r = await u.req(D.url, 'POST', `/messages/${sessionId}`, { message: 'and D?' });
        return r.status === 503 ? undefined : r;
      }, 'D accepting a turn again');
      expect(onD).toMatchObject({ status: 200, body: { message: { content: 'D too.' } } });
      D.child.kill('SIGTERM');
      await until(
        () => (got.includes(done.body.message.id as string) ? true : undefined),
        'the invalidation on B after the restart',
      );
      s.close();
    }, 90_000);

    it('a turn that streams and ends while Redis is away: its owner keeps going, and its follower on B gets it whole once Redis is back', async () => {
      const u = await newUser(oracleDid);
      const sessionId = await u.session(A.url);
      const steps: { type: 'delay' | 'text'; ms?: number; text?: string; chunkSize?: number }[] = [
        { type: 'delay', ms: 1000 },
      ];
      for (let i = 0; i < 10; i++)
        steps.push({ type: 'text', text: `w${i} `, chunkSize: 8 }, { type: 'delay', ms: 20 });
      model.enqueue({ steps } as never);
      const auth = async () => ({ authorization: `Bearer ${await u.invocation()}`, 'x-auth-type': 'ucan' });
      const own = await fetch(`${A.url}/messages/${sessionId}`, {
        method: 'POST',
        headers: { ...(await auth()), 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'a long answer', stream: true }),
      });
      expect(own.status).toBe(200);
      const runId = own.headers.get('x-run-id')!;
      const owned = readSse(own).then((r) => r.events);
      owned.catch(() => {}); // awaited below; a failure before that must not be an unhandled rejection when the instances stop
      // B follows (its reply's head is sent once it is subscribed and has read the list); then Redis goes away
      const res = await fetch(`${B.url}/runs/${runId}?after=0`, { headers: await auth() });
      expect(res.status).toBe(200);
      const following = readSse(res).then((r) => r.events);
      following.catch(() => {}); // awaited below
      await redis.kill();
      // the turn streams to its own client and ends while Redis is away (its socket.io emits and Redis writes fail
      // quietly)
      const whole = await owned;
      expect(whole.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      expect((await fetch(`${A.url}/health`)).status).toBe(200);
      await redis.start();
      // once back, A's heartbeat rewrites the run's list and B's follower reads what it missed: the same events, in
      // order, once
      expect(await following).toEqual(whole);
      expect(whole.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe(
        Array.from({ length: 10 }, (_, i) => `w${i} `).join(''),
      );
    });

    it.skipIf(backend !== 'postgres')(
      'PostgreSQL stopped for a few seconds: requests that need it get 503 database_unavailable, no instance crashes, the same instances serve again once it is back',
      async () => {
        const pg = databases.server()!;
        const u = await newUser(oracleDid);
        const sessionId = await u.session(A.url);
        model.enqueue(say('Before.'));
        expect(await u.req(B.url, 'POST', `/messages/${sessionId}`, { message: 'before?' })).toMatchObject({
          status: 200,
          body: { message: { content: 'Before.' } },
        });
        // a turn in another session that ends while the server is away: it cannot store its answer
        const other = await u.session(A.url);
        model.enqueue({
          steps: [
            { type: 'text', text: 'Caught ', chunkSize: 8 },
            { type: 'delay', ms: 1500 },
            { type: 'text', text: 'out.' },
          ],
        });
        const asked = model.requests.length;
        const own = await fetch(`${A.url}/messages/${other}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await u.invocation()}`,
            'x-auth-type': 'ucan',
            'content-type': 'application/json',
          },
          body: JSON.stringify({ message: 'long one', stream: true }),
        });
        expect(own.status).toBe(200);
        const caughtRun = own.headers.get('x-run-id')!;
        const owned = readSse(own).then((r) => r.events);
        owned.catch(() => {}); // awaited below
        await until(() => (model.requests.length > asked ? true : undefined), 'the caught turn asking the model');
        // writes in flight on both instances when the server stops (transactions cut in the middle)
        const writing = [A, B].map(async (i) => {
          for (let n = 0; ; n++)
            if ((await u.req(i.url, 'POST', '/sessions', { title: `w${n}` })).status !== 201) return n;
        });
        await until(
          async () => ((await u.req(A.url, 'GET', '/sessions?limit=100')).body.sessions.length >= 6 ? true : undefined),
          'writes under way',
        );
        await pg.halt();
        expect((await Promise.all(writing)).every((n) => n > 0)).toBe(true);
        try {
          // reads, writes and turns, on both instances, for a few seconds: a clear 503 naming the cause, nothing
          // half-done
          const unavailable = { statusCode: 503, code: 'database_unavailable' };
          for (let round = 0; round < 8; round++) {
            const list = await u.req(A.url, 'GET', '/sessions');
            expect(list.status).toBe(503);
            expect(list.body).toMatchObject(unavailable);
            expect(list.body.message).toMatch(/unreachable/);
            expect((await u.req(B.url, 'POST', '/sessions', {})).body).toMatchObject(unavailable);
            expect((await u.req(B.url, 'POST', `/messages/${sessionId}`, { message: 'now?' })).body).toMatchObject(
              unavailable,
            );
            expect((await u.req(A.url, 'GET', `/sessions/${sessionId}/messages`)).body).toMatchObject(unavailable);
            // what needs no database still answers
            expect((await fetch(`${A.url}/health`)).status).toBe(200);
            expect((await fetch(`${B.url}/health`)).status).toBe(200);
            await new Promise((r) => setTimeout(r, 250));
          }
          // the caught turn ends on its own client, never stuck
          expect((await owned).at(-1)).toMatchObject({ event: 'done' });
        } finally {
          await pg.start();
        }
        // the same processes (no restart) serve again by themselves: reads, then a whole turn on each
        await until(
          async () => ((await u.req(A.url, 'GET', '/sessions')).status === 200 ? true : undefined),
          'A reading again',
          2400,
        );
        await until(
          async () => ((await u.req(B.url, 'GET', '/sessions')).status === 200 ? true : undefined),
          'B reading again',
          2400,
        );
        model.enqueue(say('Back on A.'));
        expect(await u.req(A.url, 'POST', `/messages/${sessionId}`, { message: 'back?' })).toMatchObject({
          status: 200,
          body: { message: { content: 'Back on A.' } },
        });
        model.enqueue(say('Back on B.'));
        expect(await u.req(B.url, 'POST', `/messages/${sessionId}`, { message: 'and B?' })).toMatchObject({
          status: 200,
          body: { message: { content: 'Back on B.' } },
        });
        const history = await u.req(B.url, 'GET', `/sessions/${sessionId}/messages`);
        expect((history.body.messages as { content: unknown }[]).map((m) => m.content)).toEqual([
          'before?',
          'Before.',
          'back?',
          'Back on A.',
          'and B?',
          'Back on B.',
        ]);
        // the caught run's row is stored with its end once the server is back (tried again), not left running
        const ended = await until(
          async () => {
            const r = await u.req(B.url, 'GET', `/sessions/${other}/run`);
            return r.status === 200 && r.body.run?.runId === caughtRun && r.body.run.status !== 'running'
              ? (r.body.run as { status: string })
              : undefined;
          },
          'the caught run stored as ended',
          2400,
        );
        expect(['failed', 'finished']).toContain(ended.status);
        for (const i of [A, B])
          expect({ exitCode: i.child.exitCode, signal: i.child.signalCode }).toEqual({ exitCode: null, signal: null });
        expect(A.stderr() + B.stderr()).not.toMatch(/unhandled|UnhandledPromiseRejection/i);
      },
      120_000,
    );
  });
});
