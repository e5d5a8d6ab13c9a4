/**
 * oraclekit/testing's in-process scripted model drives the real runtime like
 * the loopback OpenAI-compatible server does: the same scripts give the same
 * protocol events (text, reasoning, tool calls and their results, provider
 * errors, stalls, malformed streams), and the model sees the same requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHarness, type Harness } from '../../../helpers/runtime-harness.ts';
import {
  callTool,
  lastToolResult,
  say,
  scriptedModel,
  systemPromptOf,
  type Script,
  type ScriptedModel,
  type ScriptSource,
} from '../../../../src/testing.ts';
import { definePlugin, defineTool } from '../../../../src/runtime/plugin.ts';
import type { AnyEvent } from '../../../../src/lib/protocol/index.ts';
import { testManifest } from '../../../helpers/test-plugin.ts';

const echo = definePlugin({
  name: 'echo',
  version: '0.0.1',
  manifest: testManifest('Echo', 'echoes'),
  systemPrompt: () => 'ECHO-PROMPT',
  tools: () => ({
    echo: defineTool({
      description: 'echoes its input',
      inputSchema: z.object({ word: z.string() }),
      execute: ({ word }) => ({ echoed: word }),
    }),
  }),
});

let inProcess: ScriptedModel;
let viaModel: Harness; // the in-process model
let viaServer: Harness; // the loopback server through the OpenAI-compatible provider
beforeAll(async () => {
  inProcess = scriptedModel();
  const common = { plugins: [echo], bundledPlugins: [], stallTimeoutMs: 400 };
  viaModel = await startHarness({ ...common, model: inProcess });
  viaServer = await startHarness(common);
});
afterAll(async () => {
  await viaModel?.close();
  await viaServer?.close();
});

/** An event without what differs between runs (ids, timestamps, provider wording). */
function shape(e: AnyEvent): unknown {
  const d = e.data as Record<string, unknown>;
  switch (e.event) {
    case 'run':
      return { event: 'run' };
    case 'error':
      return { event: 'error', kind: d.kind, code: d.code, retryable: d.retryable };
    case 'tool_call':
      return {
        event: 'tool_call',
        toolName: d.toolName,
        args: d.args,
        status: d.status,
        output: d.output,
        eventId: d.eventId,
      };
    case 'reasoning':
      return { event: 'reasoning', reasoning: d.reasoning, isComplete: d.isComplete };
    default:
      return { event: e.event, data: d };
  }
}

async function turn(h: Harness, enqueue: (...s: ScriptSource[]) => void, scripts: ScriptSource[]): Promise<unknown[]> {
  const u = await h.user();
  const s = await u.newSession();
  enqueue(...scripts);
  const { events } = await u.stream(s, 'hello');
  return events.map(shape);
}

const cases: [string, ScriptSource[]][] = [
  ['text', [say('Hello from the script.')]],
  [
    'reasoning then text',
    [
      {
        steps: [
          { type: 'reasoning', text: 'thinking hard' },
          { type: 'text', text: 'done thinking' },
        ],
      },
    ],
  ],
  [
    'a tool call answered from its result',
    [
      callTool('echo', { word: 'zebra' }, 'c1'),
      (body) => say(`It said ${(lastToolResult(body) as { echoed: string }).echoed}.`),
    ],
  ],
  ['an HTTP 503', [{ steps: [{ type: 'http_error', status: 503 }] }]],
  ['an HTTP 400', [{ steps: [{ type: 'http_error', status: 400, body: { error: { message: 'bad model' } } }] }]],
  ['a stall after some text', [{ steps: [{ type: 'text', text: 'Partial' }, { type: 'stall' }] }]],
  ['a malformed stream', [{ steps: [{ type: 'text', text: 'ok ' }, { type: 'malformed' }] }]],
  ['an in-stream provider error', [{ steps: [{ type: 'stream_error', message: 'overloaded' }] } satisfies Script]],
  ['an abrupt close', [{ steps: [{ type: 'text', text: 'cut' }, { type: 'close' }] }]],
];

describe('the in-process scripted model and the loopback server', () => {
  for (const [name, scripts] of cases) {
    it(`give the same events: ${name}`, async () => {
      const a = await turn(viaModel, inProcess.enqueue, scripts);
      const b = await turn(viaServer, viaServer.model.enqueue, scripts);
      expect(a).toEqual(b);
      expect(a.at(-1)).toMatchObject({ event: 'done' });
    });
  }

  it('record the same request: system prompt, tools offered, messages', async () => {
    const before = [inProcess.requests.length, viaServer.model.requests.length];
    await turn(viaModel, inProcess.enqueue, [callTool('echo', { word: 'x' }, 'c9'), say('ok')]);
    await turn(viaServer, viaServer.model.enqueue, [callTool('echo', { word: 'x' }, 'c9'), say('ok')]);
    const a = inProcess.requests.slice(before[0]).map((r) => r.body);
    const b = viaServer.model.requests.slice(before[1]).map((r) => r.body);
    expect(a).toHaveLength(2);
    expect(systemPromptOf(a[0]!)).toContain('ECHO-PROMPT');
    expect(systemPromptOf(a[0]!)).toBe(systemPromptOf(b[0]!));
    expect(a[0]!.tools?.map((t) => t.function.name).sort()).toEqual(b[0]!.tools?.map((t) => t.function.name).sort());
    expect(a[1]!.messages.map((m) => m.role)).toEqual(b[1]!.messages.map((m) => m.role));
    expect(lastToolResult(a[1]!)).toEqual({ echoed: 'x' });
    expect(lastToolResult(a[1]!)).toEqual(lastToolResult(b[1]!));
  });

  it('an aborted turn reaches the in-process model', async () => {
    const u = await viaModel.user();
    const s = await u.newSession();
    const before = inProcess.aborted;
    inProcess.enqueue({
      steps: [
        { type: 'text', text: 'slow' },
        { type: 'delay', ms: 60_000 },
      ],
    });
    const streaming = u.stream(s, 'hi');
    for (let i = 0; i < 400 && !viaModel.app.runtime.runs.active(s); i++) await new Promise((r) => setTimeout(r, 5));
    const r = await u.req('POST', '/messages/abort', { sessionId: s });
    expect(r.status).toBe(200);
    const { events } = await streaming;
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted' } });
    expect(inProcess.aborted).toBe(before + 1);
  });
});
