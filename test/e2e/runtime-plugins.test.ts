import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say, systemPromptOf } from '../helpers/scripted-model-server.ts';
import { definePlugin, defineTool } from '../../src/runtime/plugin.ts';

const seen: string[] = [];
const library = definePlugin({
  name: 'library',
  version: '1.0.0',
  manifest: {
    title: 'Library',
    summary: 'books',
    whenToUse: ['books'],
    visibility: 'always',
    stability: 'beta',
    category: 'test',
    defaultState: 'on',
    dependsOn: [],
  },
  tools: () => ({
    lookup: defineTool({
      description: 'find a book',
      inputSchema: z.object({ title: z.string() }),
      execute: ({ title }) => ({ title, author: 'Ursula K. Le Guin' }),
    }),
    burn: defineTool({
      description: 'destroy a book',
      inputSchema: z.object({ title: z.string() }),
      execute: () => ({ burnt: true }),
    }),
    archive: defineTool({
      description: 'fetch a book from the archive (never answers)',
      inputSchema: z.object({ title: z.string() }),
      execute: () => new Promise<never>(() => {}),
    }),
  }),
  subAgents: [
    {
      name: 'librarian',
      description: 'finds books and answers about them',
      prompt: 'You are the librarian sub-agent. Use lookup.',
      tools: ['lookup'],
    },
    {
      name: 'archivist',
      description: 'fetches books from the archive',
      prompt: 'You are the archivist sub-agent. Use archive.',
      tools: ['archive'],
    },
  ],
  middleware: {
    beforeModel: () => 'Library rule: never burn books.',
    beforeTool: (_turn, call) => {
      seen.push(call.toolName);
      if (call.toolName === 'burn') throw new Error('refused by the library middleware');
    },
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ plugins: [library] });
});
afterAll(async () => {
  await h.close();
});

describe('plugin contract', () => {
  it('a sub-agent runs its own loop with its prompt and tools, as a tool of its plugin', async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('ask_librarian', { task: 'Who wrote The Dispossessed?' }, 'sa1'),
      callTool('lookup', { title: 'The Dispossessed' }, 'lk1'), // the sub-agent's first step
      (body) => say(`Found: ${(lastToolResult(body) as { author: string }).author}`), // the sub-agent's answer
      (body) => say(`The librarian says: ${(lastToolResult(body) as { answer: string }).answer}`),
    );
    const n = h.model.requests.length;
    const { events } = await u.stream(s, 'Who wrote The Dispossessed?');
    const sub = h.model.requests[n + 1]!.body;
    expect(systemPromptOf(sub)).toBe('You are the librarian sub-agent. Use lookup.');
    expect((sub.tools ?? []).map((t) => t.function.name)).toEqual(['lookup']);
    const done = events.find(
      (e) => e.event === 'tool_call' && e.data.toolName === 'ask_librarian' && e.data.status === 'done',
    );
    expect(done?.event === 'tool_call' && done.data.output).toEqual({
      subAgent: 'librarian',
      answer: 'Found: Ursula K. Le Guin',
    });
    expect(events.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe(
      'The librarian says: Found: Ursula K. Le Guin',
    );
  });

  it("a sub-agent's tool call runs under the tool time-out and the plugins' tool middleware", async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('ask_archivist', { task: 'Fetch The Word for World Is Forest' }, 'sa2'),
      callTool('archive', { title: 'The Word for World Is Forest' }, 'ar1'), // the sub-agent calls a tool that hangs
      (body) => say(`Archive: ${JSON.stringify(lastToolResult(body))}`), // the sub-agent sees the time-out
      say('The archive did not answer.'),
    );
    const n = h.model.requests.length;
    const { events } = await u.stream(s, 'Fetch it from the archive');
    // the harness's tool time-out is 1500 ms; the ask_ call itself would wait 4 × that
    expect(JSON.stringify(h.model.requests[n + 2]!.body.messages)).toContain('tool archive timed out after 1500 ms');
    const done = events.find(
      (e) => e.event === 'tool_call' && e.data.toolName === 'ask_archivist' && e.data.status === 'done',
    );
    expect(done?.event === 'tool_call' && (done.data.output as { answer: string }).answer).toMatch(
      /^Archive: .*timed out after 1500 ms/,
    );
    expect(seen).toContain('archive'); // beforeTool saw the sub-agent's call
  });

  it('middleware adds prompt text and can refuse a tool call', async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(callTool('burn', { title: 'x' }, 'b1'), say('I may not.'));
    const n = h.model.requests.length;
    const { events } = await u.stream(s, 'burn it');
    expect(systemPromptOf(h.model.requests[n]!.body)).toContain('Library rule: never burn books.');
    expect(events.find((e) => e.event === 'tool_call' && e.data.status === 'error')).toMatchObject({
      data: { toolName: 'burn', error: 'refused by the library middleware' },
    });
    expect(seen).toContain('burn');
  });

  it('GET /docs is public and lists the routes', async () => {
    const r = await fetch(`${h.url}/docs`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { protocolVersion: string; routes: string[] };
    expect(body.protocolVersion).toBe('1.0.0');
    expect(body.routes).toEqual(
      expect.arrayContaining([
        'POST /messages/:sessionId',
        'GET /runs/:runId',
        'GET /weather/now',
        'GET /user-preferences',
      ]),
    );
  });
});
