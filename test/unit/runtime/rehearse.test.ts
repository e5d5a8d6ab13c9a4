/**
 * The rehearsal of a turn (PluginHost.prepareModel, agent/rehearse.ts): a turn's model path runs once, with the
 * oracle's tools and instructions, against a reply given in memory. The provider is sent no chat request, the
 * rehearsal runs once per process, and a turn after it is answered by the provider as before.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { rehearseTurn } from '../../../src/runtime/agent/index.ts';
import { rehearsalReply } from '../../../src/runtime/models.ts';
import { defineTool } from '../../../src/runtime/plugin.ts';
import { say, startScriptedModelServer } from '../../helpers/scripted-model-server.ts';
import { scriptedModel } from '../../../src/testing.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-rehearse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = { info: () => {}, error: () => {} };
const USER = 'did:key:z6MkuserA';

describe('rehearseTurn', () => {
  it("sends the provider the request a turn would (instructions, the oracle's tools, streamed) and reads its reply", async () => {
    const sent: Record<string, unknown>[] = [];
    const provider = createOpenAICompatible({
      name: 'test',
      baseURL: 'http://127.0.0.1:9/v1',
      fetch: async (_url, init) => {
        sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
        return rehearsalReply();
      },
    });
    const weather = defineTool({
      description: 'The weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async () => {
        throw new Error('a rehearsal never runs a tool');
      },
    });
    await rehearseTurn(
      {
        metaTools: { list_capabilities: weather as never },
        pluginTools: () => new Map([['weather', { get_current_weather: weather as never }]]),
        basePrompt: () => 'You are a test oracle.',
        limits: { maxOutputTokens: 100, maxMs: 60_000, maxOutputChars: 1000, maxEventBytes: 100_000 },
      },
      provider.chatModel('m1'),
    );
    expect(sent).toHaveLength(1);
    const body = sent[0] as { model: string; stream: boolean; messages: { role: string }[]; tools: unknown[] };
    expect(body).toMatchObject({ model: 'm1', stream: true });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const names = (body.tools as { function: { name: string; parameters: unknown } }[]).map((t) => t.function.name);
    expect(names.sort()).toEqual(['get_current_weather', 'list_capabilities']);
  });
});

describe('PluginHost.prepareModel', () => {
  it('rehearses nothing for a model given to createOracle', async () => {
    const oracle = createOracle({
      config: { name: 'G', oracleDid: 'did:key:z6Mkoracle' },
      dbPath: join(dir, 'g.db'),
      env: {},
      model: scriptedModel(),
      logger: silent,
      signingMnemonic: '',
    });
    try {
      expect(await oracle.runtime.prepareModel()).toBe(false);
    } finally {
      await oracle.close();
    }
  });

  it('rehearses once per process without a chat request to the provider; a turn after it is answered as before', async () => {
    const server = await startScriptedModelServer();
    const oracle = createOracle({
      config: { name: 'R', oracleDid: 'did:key:z6Mkoracle', model: 'm1' },
      dbPath: join(dir, 'r.db'),
      env: { LLM_BASE_URL: server.baseURL },
      logger: silent,
      signingMnemonic: '',
    });
    const host = Fastify();
    await host.register(oracle.plugin);
    await host.ready();
    try {
      expect(await oracle.runtime.prepareModel()).toBe(true);
      expect(await oracle.runtime.prepareModel()).toBe(true);
      expect(server.requests).toHaveLength(0);
      const s = await oracle.runtime.store.createSession(USER);
      server.enqueue(say('Hi there.'));
      const run = await oracle.runtime.startTurn(USER, s.sessionId, { message: 'hi' });
      expect(await run.done).toBe('finished');
      expect(run.text).toBe('Hi there.');
      expect(server.requests).toHaveLength(1);
    } finally {
      await host.close();
      await oracle.close();
      await server.close();
    }
  });
});
