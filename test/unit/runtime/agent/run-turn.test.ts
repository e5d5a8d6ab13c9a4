/**
 * One turn through runTurn with a real Run and the OpenAI-compatible
 * provider against the scripted model server: the plugins' hooks in order,
 * beforeTool rewriting a tool's input, the events of the run and the rows
 * the turn stores.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTurn, type AgentDeps } from '../../../../src/runtime/agent/index.ts';
import { Run } from '../../../../src/runtime/run.ts';
import {
  definePlugin,
  defineTool,
  type AnyPluginTool,
  type OraclePlugin,
  type PluginContext,
} from '../../../../src/runtime/plugin.ts';
import type { NewMessage } from '../../../../src/runtime/store.ts';
import type { ComponentRecord } from '../../../../src/lib/protocol/index.ts';
import {
  callTool,
  say,
  startScriptedModelServer,
  systemPromptOf,
  type ScriptedModelServer,
} from '../../../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
beforeAll(async () => {
  model = await startScriptedModelServer();
});
afterAll(async () => {
  await model?.close();
});

function deps(plugins: OraclePlugin<unknown>[], stored: NewMessage[][]): AgentDeps {
  const provider = createOpenAICompatible({ name: 'test', baseURL: model.baseURL });
  const active = plugins.map((plugin) => ({ plugin, ctx: { env: {} } as unknown as PluginContext<unknown> }));
  const byPlugin = new Map(plugins.map((p) => [p.name, p.tools?.({} as never) ?? {}]));
  return {
    model: (id) => provider.chatModel(id ?? 'test-model'),
    plugins: () => active,
    metaTools: {},
    pluginTools: () => byPlugin,
    basePrompt: () => 'You are a test oracle.',
    history: async () => [],
    loadState: async () => ({}),
    saveState: () => {},
    persist: async (_s, rows) => void stored.push(rows),
    maxSteps: 4,
    redact: (t) => t,
    now: Date.now,
    stallTimeoutMs: 30_000,
    toolTimeoutMs: 30_000,
    limits: { maxOutputTokens: 4096, maxMs: 600_000, maxOutputChars: 200_000, maxEventBytes: 8 * 1024 * 1024 },
  };
}

describe('runTurn', () => {
  it('runs the plugins hooks in order around the model and the tools, and stores the rows of the turn', async () => {
    const log: string[] = [];
    const recorder = (name: string) =>
      definePlugin<unknown>({
        name,
        version: '0.0.0',
        manifest: { visibility: 'always' } as never,
        loadState: () => (log.push(`${name}.loadState`), { [name]: true }),
        systemPrompt: (state) => `${name} prompt (state ${Object.keys(state).sort().join(',')})`,
        middleware: {
          beforeModel: () => void log.push(`${name}.beforeModel`),
          afterModel: (_t, step) => void log.push(`${name}.afterModel:${step.finishReason}`),
          beforeTool: (_t, call) => (
            log.push(`${name}.beforeTool`),
            name === 'a' ? { city: `${(call.input as { city: string }).city}!` } : undefined
          ),
          afterTool: (_t, call) => void log.push(`${name}.afterTool:${JSON.stringify(call.output)}`),
        },
        tools: (): Record<string, AnyPluginTool> =>
          name === 'a'
            ? {
                echo_city: defineTool({
                  description: 'echo',
                  inputSchema: z.object({ city: z.string() }),
                  execute: (i: { city: string }) => (log.push(`echo_city(${i.city})`), { city: i.city }),
                }),
              }
            : {},
      }) as OraclePlugin<unknown>;
    model.enqueue(callTool('echo_city', { city: 'Oslo' }, 'call_1'), say('Done.'));
    const stored: NewMessage[][] = [];
    const run = new Run({ sessionId: 's1', userDid: 'did:key:z', requestId: 'q1' });
    await runTurn(deps([recorder('a'), recorder('b')], stored), run, { message: 'go' });

    expect(log).toEqual([
      'a.loadState',
      'b.loadState',
      'a.beforeModel',
      'b.beforeModel',
      'a.beforeTool',
      'b.beforeTool',
      'echo_city(Oslo!)',
      'a.afterTool:{"city":"Oslo!"}',
      'b.afterTool:{"city":"Oslo!"}',
      'a.afterModel:tool-calls',
      'b.afterModel:tool-calls',
      'a.beforeModel',
      'b.beforeModel',
      'a.afterModel:stop',
      'b.afterModel:stop',
    ]);
    expect(systemPromptOf(model.requests.at(-2)!.body)).toBe(
      'You are a test oracle.\n\na prompt (state a,b)\n\nb prompt (state a,b)',
    );
    expect(run.events.map((e) => e.event)).toEqual(['run', 'tool_call', 'tool_call', 'message', 'message', 'done']);
    expect(run.turn).toMatchObject({
      status: 'finished',
      text: 'Done.',
      toolCalls: [{ eventId: 'call_1', status: 'done', output: { city: 'Oslo!' } }],
    });
    expect(stored).toEqual([
      [{ id: 'q1-human', type: 'human', content: 'go' }],
      [
        // the human row again with how the turn ended (status, and the usage of its done frame)
        {
          id: 'q1-human',
          type: 'human',
          content: 'go',
          turn: { status: 'finished', usage: { inputTokens: 20, outputTokens: 20 } },
        },
        {
          id: 'q1-ToolCall-call_1',
          type: 'ai',
          content: {
            name: 'echo_city',
            props: {
              id: 'call_1',
              args: { city: 'Oslo' },
              status: 'done',
              output: { city: 'Oslo!' },
              payload: {
                sessionId: 's1',
                requestId: 'q1',
                eventId: 'call_1',
                toolName: 'echo_city',
                args: { city: 'Oslo' },
                status: 'done',
                output: { city: 'Oslo!' },
              },
              isToolCall: true,
              toolName: 'echo_city',
            },
          },
        },
        { id: 'q1', type: 'ai', content: 'Done.', reasoning: undefined },
      ],
    ]);
    // the stored tool row carries the data of the call's last tool_call frame, exactly as the stream sent it
    const lastFrame = run.events.filter((e) => e.event === 'tool_call').at(-1)!;
    expect((stored[1]![1]!.content as ComponentRecord).props.payload).toStrictEqual(lastFrame.data);
  });

  it('a provider that refuses the key ends the turn with provider_unauthorized, then done failed', async () => {
    model.enqueue({
      steps: [{ type: 'http_error', status: 401, body: { error: { message: 'Invalid API key', type: 'auth' } } }],
    });
    const run = new Run({ sessionId: 's1', userDid: 'did:key:z', requestId: 'q2' });
    await runTurn(deps([], []), run, { message: 'hi' });
    expect(
      run.events
        .slice(1)
        .map((e) => [e.event, e.event === 'error' ? e.data.code : e.event === 'done' ? e.data.status : '']),
    ).toEqual([
      ['error', 'provider_unauthorized'],
      ['done', 'failed'],
    ]);
  });
});

describe('the storage of a turn', () => {
  it('sends the run frame only after the human message is durable', async () => {
    const order: string[] = [];
    let release!: () => void;
    const d = deps([], []);
    d.persist = async (_s, rows) => {
      // the first write is the human message alone; the last one the turn's rows (its human row again with the outcome)
      const what = rows.every((r) => r.type === 'human' && !r.turn) ? 'human' : 'turn';
      order.push(`persist ${what}`);
      if (what === 'human') await new Promise<void>((r) => (release = r));
      order.push(`durable ${what}`);
    };
    const run = new Run({ sessionId: 's', userDid: 'did:key:z' });
    run.subscribe(0, (e) => void order.push(`frame ${e.event}`));
    model.enqueue(say('hi'));
    const turn = runTurn(d, run, { message: 'hello' });
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['persist human']);
    release();
    await turn;
    expect(order.slice(0, 3)).toEqual(['persist human', 'durable human', 'frame run']);
  });

  it("settles `streamed` with the answer's whole text while the turn's history is still being stored", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const d = deps([], []);
    d.persist = async (_s, rows) => {
      if (rows.some((r) => r.type !== 'human' || r.turn)) await held; // the turn's rows, not the message
    };
    const run = new Run({ sessionId: 's', userDid: 'did:key:z' });
    model.enqueue(say('It is noon in Nairobi.'));
    const turn = runTurn(d, run, { message: 'What time is it?' });
    let done = false;
    void run.done.then(() => (done = true));
    expect(run.streaming).toBe(true);
    await run.streamed;
    expect(run.streaming).toBe(false);
    expect(run.text).toBe('It is noon in Nairobi.');
    expect(done).toBe(false);
    release();
    await turn;
    expect(done).toBe(true);
  });

  it('settles `streamed` at `done` for a turn whose message could not be stored', async () => {
    const d = deps([], []);
    d.persist = async () => {
      throw new Error('SQLITE_FULL: database or disk is full');
    };
    const run = new Run({ sessionId: 's', userDid: 'did:key:z' });
    await runTurn(d, run, { message: 'hello' });
    expect(run.streaming).toBe(false);
    await run.streamed; // settled already: a pending promise would time the test out
  });

  it('a message or a history that cannot be stored fails the turn with storage_failed; nothing is reported finished', async () => {
    for (const failing of ['human', 'ai'] as const) {
      const d = deps([], []);
      d.persist = async (_s, rows) => {
        if (rows.some((r) => r.type === failing)) throw new Error('SQLITE_FULL: database or disk is full');
      };
      const run = new Run({ sessionId: 's', userDid: 'did:key:z' });
      model.enqueue(say('an answer'));
      await runTurn(d, run, { message: 'hello' });
      const errors = run.events.filter((e) => e.event === 'error');
      expect(errors.at(-1)?.data, failing).toMatchObject({ code: 'storage_failed', retryable: true });
      expect(run.events.at(-1), failing).toMatchObject({ event: 'done', data: { status: 'failed' } });
      if (failing === 'human') expect(run.events.some((e) => e.event === 'message')).toBe(false);
    }
  });
});
