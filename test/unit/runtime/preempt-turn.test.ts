/**
 * A turn's model request sent before the turn is confirmed (PluginHost.preemptTurn, agent/early-model.ts: a call's
 * preemptive generation), against the scripted OpenAI-compatible server on loopback: nothing is stored or run for it;
 * the turn that would send the same request streams from it (the provider is asked once), any other turn sends its
 * own; a tool the model calls in it runs only in the turn that takes it, with that turn's context; a per-turn tool
 * (its schema made each turn) does not make the requests differ. Its text can be watched before a turn takes it.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { definePlugin, defineTool, type TurnContext } from '../../../src/runtime/plugin.ts';
import { callTool, say, startScriptedModelServer } from '../../helpers/scripted-model-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-preempt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = { info: () => {}, error: () => {} };
const USER = 'did:key:z6MkuserA';
const OTHER = 'did:key:z6MkuserB';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The requests the tool below was called in (the turn context it ran with). */
const clockCalls: TurnContext[] = [];
const clock = definePlugin({
  name: 'clock',
  version: '1.0.0',
  manifest: {
    title: 'Clock',
    summary: 'the time',
    whenToUse: ['tests'],
    visibility: 'always',
    stability: 'stable',
    category: 'test',
    defaultState: 'on',
    dependsOn: [],
  },
  tools: () => ({
    time_in: defineTool({
      description: 'The time in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async (_input, turn) => {
        clockCalls.push(turn);
        return { time: '14:05' };
      },
    }),
  }),
  // a per-turn tool makes its schema each turn: the same JSON Schema, so the same request
  turnTools: () => ({
    date_in: defineTool({
      description: 'The date in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => ({ date: '2026-12-03' }),
    }),
  }),
});

/** An oracle on the scripted server: all the bundled plugins, or only the clock. */
async function boot(bundled: boolean) {
  const server = await startScriptedModelServer();
  const oracle = createOracle({
    config: { name: 'P', oracleDid: 'did:key:z6Mkoracle', model: 'm1' },
    dbPath: join(dir, `${Math.random().toString(36).slice(2)}.db`),
    env: { LLM_BASE_URL: server.baseURL },
    logger: silent,
    signingMnemonic: '',
    ...(bundled ? {} : { bundledPlugins: [], plugins: [clock] }),
  });
  const host = Fastify();
  await host.register(oracle.plugin);
  await host.ready();
  cleanups.push(async () => {
    await host.close();
    await oracle.close();
    await server.close();
  });
  const { sessionId } = await oracle.runtime.store.createSession(USER);
  return { server, rt: oracle.runtime, store: oracle.runtime.store, sessionId };
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('PluginHost.preemptTurn', () => {
  it('sends the request at once and stores nothing; the turn with the same message streams from it, the provider asked once', async () => {
    const { server, rt, store, sessionId } = await boot(true);
    server.enqueue(say('It is two o’clock.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'What time is it?', metadata: { via: 'call' } });
    await until('the early request', () => server.requests.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await store.history(sessionId)).toHaveLength(0);
    expect(rt.runs.active(sessionId)).toBeUndefined();
    const run = await rt.startTurn(USER, sessionId, { message: 'What time is it?', metadata: { via: 'call' } }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('It is two o’clock.');
    expect(server.requests).toHaveLength(1);
    const rows = await store.history(sessionId);
    expect(rows.map((m) => [m.type, m.content])).toEqual([
      ['human', 'What time is it?'],
      ['ai', 'It is two o’clock.'],
    ]);
  });

  it('a turn with another message sends its own request, and its answer is the one given', async () => {
    const { server, rt, sessionId } = await boot(false);
    server.enqueue(say('Early answer.'), say('The answer to all of it.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'What time' });
    await until('the early request', () => server.requests.length === 1);
    const run = await rt.startTurn(USER, sessionId, { message: 'What time is it in Nairobi?' }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('The answer to all of it.');
    expect(server.requests).toHaveLength(2);
    const last = server.requests[1]!.body.messages.at(-1) as { content: unknown };
    expect(last.content).toBe('What time is it in Nairobi?');
  });

  it('a history that changed since (a turn in between) makes the turn send its own request', async () => {
    const { server, rt, sessionId } = await boot(false);
    server.enqueue(say('Early.'), say('In between.'), say('Fresh.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'Again?' });
    await until('the early request', () => server.requests.length === 1);
    const between = await rt.startTurn(USER, sessionId, { message: 'Something else' });
    expect(await between.done).toBe('finished');
    const run = await rt.startTurn(USER, sessionId, { message: 'Again?' }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('Fresh.');
    expect(server.requests).toHaveLength(3);
  });

  it("runs a tool the model called in the early request only in the turn that takes it, with that turn's context", async () => {
    clockCalls.length = 0;
    const { server, rt, sessionId } = await boot(false);
    server.enqueue(callTool('time_in', { city: 'Nairobi' }), say('It is 14:05 in Nairobi.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'Time in Nairobi?' });
    await until('the early request', () => server.requests.length === 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(clockCalls).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
    const run = await rt.startTurn(USER, sessionId, { message: 'Time in Nairobi?' }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('It is 14:05 in Nairobi.');
    expect(clockCalls.map((t) => t.requestId)).toEqual([run.requestId]);
    expect(server.requests).toHaveLength(2);
  });

  it("gives the reply's text as it streams before a turn takes it; the turn's answer is the whole reply", async () => {
    const { server, rt, sessionId } = await boot(false);
    server.enqueue(say('It is noon in Nairobi, and sunny.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'Time?' });
    let seen = '';
    let ended = false;
    let once = 0;
    early.watchText((d) => {
      if (d === undefined) ended = true;
      else seen += d;
    });
    early.watchText(() => {
      once++;
      return false; // enough
    });
    await until('the early text, to the end of its step', () => ended);
    expect(seen).toBe('It is noon in Nairobi, and sunny.');
    expect(once).toBe(1);
    const run = await rt.startTurn(USER, sessionId, { message: 'Time?' }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('It is noon in Nairobi, and sunny.');
    expect(server.requests).toHaveLength(1);
  });

  it('a cancelled early request is not used, and one for a session that is not the user’s is never sent', async () => {
    const { server, rt, sessionId } = await boot(false);
    server.enqueue(say('Early.'), say('Own.'));
    const early = rt.preemptTurn(USER, sessionId, { message: 'Hello?' });
    await until('the early request', () => server.requests.length === 1);
    early.cancel();
    const run = await rt.startTurn(USER, sessionId, { message: 'Hello?' }, early);
    expect(await run.done).toBe('finished');
    expect(run.text).toBe('Own.');
    rt.preemptTurn(OTHER, sessionId, { message: 'Hello?' });
    await new Promise((r) => setTimeout(r, 200));
    expect(server.requests).toHaveLength(2);
  });
});
