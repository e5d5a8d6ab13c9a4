/**
 * tasks through the agent against a real Redis (redis-server started by the
 * test): a task created by the agent runs later and its result appears in the
 * session; it survives a runtime restart; list and cancel; boot rules and a
 * Redis that is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { createOracleApp, type OracleApp } from '../../src/runtime/app.ts';
import { generateMnemonic, generateSigner, signerFromMnemonic, type Signer } from '../../src/lib/keys/keys.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import { readSse } from '../helpers/runtime-harness.ts';
import {
  callTool,
  lastToolResult,
  say,
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';
import { startRedis, type RedisServer } from '../helpers/redis.ts';
import type { AnyEvent, Message } from '../../src/lib/protocol/index.ts';

let redis: RedisServer;
let model: ScriptedModelServer;
let dir: string;
let mnemonic: string;
let oracleDid: string;
let user: Signer;

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer();
  dir = mkdtempSync(join(tmpdir(), 'oraclekit-tasks-'));
  mnemonic = generateMnemonic();
  oracleDid = (await signerFromMnemonic(mnemonic)).did();
  user = await generateSigner();
});
afterAll(async () => {
  await model.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Booted {
  app: OracleApp;
  url: string;
  lines: string[];
  req(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  stream(sessionId: string, message: string): Promise<AnyEvent[]>;
}

async function boot(env: Record<string, string>, db = 'oracle.db', price?: number): Promise<Booted> {
  const lines: string[] = [];
  const app = createOracleApp({
    config: { name: 'Tasks Oracle', model: 'scripted-model', oracleDid, ...(price ? { price } : {}) },
    dbPath: join(dir, db),
    signingMnemonic: mnemonic,
    logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    stallTimeoutMs: 3000,
    toolTimeoutMs: 3000,
    env: { LLM_BASE_URL: model.baseURL, LLM_PROVIDER_API_KEY: 'sk-test', ...env },
  });
  const url = await app.listen(0, '127.0.0.1');
  const settled = new Promise<void>((resolve) => {
    if (app.runtime.status().pending.length === 0) return resolve();
    const off = app.onPluginStatusChange(() => {
      if (app.runtime.status().pending.length === 0) {
        off();
        resolve();
      }
    });
  });
  await settled;
  while (!app.runtime.signingKeyLoaded) await new Promise((r) => setTimeout(r, 5));
  const headers = async () => ({
    authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
    'x-auth-type': 'ucan',
    'content-type': 'application/json',
  });
  return {
    app,
    url,
    lines,
    async req(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: await headers(),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async stream(sessionId, message) {
      const res = await fetch(`${url}/messages/${sessionId}`, {
        method: 'POST',
        headers: await headers(),
        body: JSON.stringify({ message, stream: true }),
      });
      expect(res.status).toBe(200);
      return (await readSse(res)).events;
    },
  };
}

/** Waits (bounded by the test time-out, not timed) until the session's history satisfies pred. */
async function waitForHistory(b: Booted, sessionId: string, pred: (m: Message[]) => boolean): Promise<Message[]> {
  for (;;) {
    const r = await b.req('GET', `/messages/${sessionId}`);
    if (pred(r.body.messages)) return r.body.messages;
    await new Promise((res) => setTimeout(res, 50));
  }
}

const toolOut = (events: AnyEvent[], name: string) => {
  const e = events.find((x) => x.event === 'tool_call' && x.data.toolName === name && x.data.status !== 'isRunning');
  return e && e.event === 'tool_call' ? e.data : undefined;
};

describe('tasks on a real Redis', () => {
  it('a task created by the agent survives a restart, runs later, and its result appears in the session', async () => {
    // runtime A: its worker polls only after 10 minutes, so nothing runs here
    const a = await boot({ TASKS_STORE_URL: redis.url, TASKS_POLL_MS: '600000' });
    expect(a.lines).toContain('[plugin] tasks pending → loaded');
    expect(a.app.plugins.status().loaded).toContain('tasks');
    const sessionId = (await a.req('POST', '/sessions', {})).body.sessionId as string;
    model.enqueue(
      callTool('list_capabilities', {}),
      callTool('load_capability', { names: ['tasks'] }),
      callTool(
        'create_task',
        { title: 'Stove report', prompt: 'Report how many stoves were installed.', delaySeconds: 0 },
        'call_create',
      ),
      (body) => say(`Scheduled ${(lastToolResult(body) as { task: { taskId: string } }).task.taskId}.`),
    );
    const events = await a.stream(sessionId, 'In the background, report the stove count.');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const created = toolOut(events, 'create_task');
    expect(created?.status).toBe('done');
    const task = (created?.output as { task: { taskId: string; status: string; sessionId: string } }).task;
    expect(task).toMatchObject({ status: 'scheduled', sessionId, title: 'Stove report', runs: 0 });
    await a.app.close();

    // the task is in Redis, due
    const rc = createClient({ url: redis.url });
    await rc.connect();
    expect(await rc.zScore(`oraclekit:tasks:${oracleDid}:due`, task.taskId)).not.toBeNull();

    // runtime B (same database, same store): the worker runs the task as a turn in the session
    model.enqueue((body) => {
      const last = body.messages.at(-1);
      return say(
        `Stove count: 42 (${String(last?.content).includes('Scheduled task "Stove report"') ? 'task prompt received' : 'no prompt'}).`,
      );
    });
    const b = await boot({ TASKS_STORE_URL: redis.url, TASKS_POLL_MS: '50' });
    const history = await waitForHistory(b, sessionId, (ms) =>
      ms.some((m) => m.type === 'ai' && m.content === 'Stove count: 42 (task prompt received).'),
    );
    expect(
      history.some(
        (m) =>
          m.type === 'human' && m.content === 'Scheduled task "Stove report": Report how many stoves were installed.',
      ),
    ).toBe(true);
    // its status follows in Redis
    for (;;) {
      const t = JSON.parse((await rc.get(`oraclekit:tasks:${oracleDid}:task:${task.taskId}`))!) as {
        status: string;
        runs: number;
        lastResult: string;
      };
      if (t.status === 'done') {
        expect(t).toMatchObject({ runs: 1, lastResult: 'Stove count: 42 (task prompt received).' });
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await rc.zScore(`oraclekit:tasks:${oracleDid}:due`, task.taskId)).toBeNull();
    expect(await rc.zScore(`oraclekit:tasks:${oracleDid}:running`, task.taskId)).toBeNull();

    // list and cancel through the agent
    model.enqueue(
      callTool('load_capability', { names: ['tasks'] }),
      callTool(
        'create_task',
        { title: 'Weekly check', prompt: 'Check the stoves.', delaySeconds: 3600, everySeconds: 604800 },
        'call_weekly',
      ),
      (body) =>
        callTool(
          'cancel_task',
          { taskId: (lastToolResult(body) as { task: { taskId: string } }).task.taskId },
          'call_cancel',
        ),
      callTool('cancel_task', { taskId: 'task-nope' }, 'call_bad'),
      callTool('list_tasks', {}, 'call_list'),
      say('Done.'),
    );
    const ev2 = await b.stream(sessionId, 'Schedule a weekly check, then cancel it.');
    expect(ev2.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const cancelled = (toolOut(ev2, 'cancel_task')?.output as { task: { taskId: string; status: string } }).task;
    expect(cancelled.status).toBe('cancelled');
    expect(await rc.zScore(`oraclekit:tasks:${oracleDid}:due`, cancelled.taskId)).toBeNull();
    const bad = ev2.find((e) => e.event === 'tool_call' && e.data.eventId === 'call_bad' && e.data.status === 'error');
    expect(bad?.event === 'tool_call' && bad.data.error).toBe('no task task-nope; call list_tasks to see the task ids');
    const list = (toolOut(ev2, 'list_tasks')?.output as { tasks: { taskId: string; status: string }[] }).tasks;
    expect(list.map((t) => [t.taskId, t.status])).toEqual([
      [task.taskId, 'done'],
      [cancelled.taskId, 'cancelled'],
    ]);
    await rc.close();
    await b.app.close();
  });

  it('a Redis that is down fails the plugin without hanging boot; blank and invalid URLs follow the boot rules', async () => {
    const down = await boot({ TASKS_STORE_URL: 'redis://127.0.0.1:1', TASKS_TIMEOUT_MS: '500' }, 'down.db');
    const failed = down.app.plugins.status().failed;
    expect(failed.map((f) => f.plugin)).toEqual(['tasks']);
    expect(failed[0]!.reason).toMatch(/^the task store (is unreachable|did not answer)/);
    expect(down.lines.some((l) => l.startsWith('[plugin] tasks pending → failed (the task store'))).toBe(true);
    const ready = await fetch(`${down.url}/ready`);
    expect(ready.status).toBe(200);
    await down.app.close();

    const blank = await boot({ TASKS_STORE_URL: '' }, 'blank.db');
    expect(blank.lines).toContain('[boot] excluded: tasks (TASKS_STORE_URL)');
    await blank.app.close();
    expect(() =>
      createOracleApp({
        config: { name: 'x', oracleDid },
        dbPath: ':memory:',
        env: { TASKS_STORE_URL: 'http://127.0.0.1:6379' },
        logger: { info: () => {}, error: () => {} },
      }),
    ).toThrow(
      `[boot-error] Plugin 'tasks' env validation failed for 'TASKS_STORE_URL' = "http://127.0.0.1:6379": must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379. Set 'TASKS_STORE_URL' or disable it: features: { tasks: false }`,
    );
    expect(() =>
      createOracleApp({
        config: { name: 'x', oracleDid },
        dbPath: ':memory:',
        env: {},
        features: { tasks: true },
        logger: { info: () => {}, error: () => {} },
      }),
    ).toThrow(
      "[boot-error] Plugin 'tasks' env validation failed for 'TASKS_STORE_URL': required but blank. Set 'TASKS_STORE_URL' or disable it: features: { tasks: false }",
    );
  });

  it('a task that cannot run (credits: the user has no paid turn left) fails and posts why into its session', async () => {
    const p = await boot(
      { TASKS_STORE_URL: redis.url, TASKS_POLL_MS: '50', TASKS_KEY_PREFIX: 'priced' },
      'priced.db',
      1,
    );
    const sessionId = (await p.req('POST', '/sessions', {})).body.sessionId as string;
    // pay for one turn
    const refused = await p.req('POST', `/messages/${sessionId}`, { message: 'hi' });
    expect(refused.status).toBe(402);
    await p.req('POST', '/credits/contract', {});
    expect((await p.req('POST', '/credits/pay', { claimIds: refused.body.claims, amount: 1 })).status).toBe(200);
    model.enqueue(
      callTool('load_capability', { names: ['tasks'] }),
      callTool('create_task', { title: 'Later', prompt: 'Say hello later.' }),
      say('Scheduled.'),
    );
    const events = await p.stream(sessionId, 'Say hello later.');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const taskId = (toolOut(events, 'create_task')?.output as { task: { taskId: string } }).task.taskId;
    const history = await waitForHistory(p, sessionId, (ms) => ms.some((m) => m.id === `${taskId}-failed-1`));
    const note = history.find((m) => m.id === `${taskId}-failed-1`)!;
    expect(note.type).toBe('ai');
    expect(note.content).toMatch(
      /^The scheduled task "Later" could not run: payment_required: this oracle costs 1 credit per turn/,
    );
    await p.app.close();
  });
});
