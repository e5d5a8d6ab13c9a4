import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say, systemPromptOf } from '../helpers/scripted-model-server.ts';
import { startMemoryMcpServer, startMcpServer } from '../helpers/mcp-servers.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { memoryPlugin, userPreferencesPlugin } from '../../src/runtime/plugins/index.ts';
import { bootWith } from '../unit/runtime/plugins/_helpers/boot.ts';

const TOKEN = 'mem-secret-token-42';
let h: Harness;
let mem: Awaited<ReturnType<typeof startMemoryMcpServer>>;

async function settled(app: Harness['app'], name: string) {
  for (let i = 0; i < 1000 && app.plugins.status().pending.includes(name); i++)
    await new Promise((r) => setTimeout(r, 5));
}
const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);

beforeAll(async () => {
  mem = await startMemoryMcpServer({ requireToken: TOKEN });
  h = await startHarness({
    env: {
      MEMORY_MCP_URL: mem.url,
      MEMORY_MCP_TOKEN: TOKEN,
      MEMORY_MCP_TIMEOUT_MS: '1000',
      MEMORY_ENGINE_URL: 'https://memory.example.org',
    },
  });
  await settled(h.app, 'memory');
});
afterAll(async () => {
  await h.close();
  await mem.close();
});

describe('memory plugin over a real MCP server (Streamable HTTP)', () => {
  it('starts in the background, lists the server tools, and status() and /ready say loaded; the token is never logged', async () => {
    expect(h.lines).toContain('[plugin] memory pending → loaded');
    expect(h.app.plugins.status().loaded).toContain('memory');
    const ready = await fetch(`${h.url}/ready`);
    expect(ready.status).toBe(200);
    expect((await ready.json()).plugins.loaded).toContain('memory');
    expect(h.lines.join('\n')).not.toContain(TOKEN);
    expect(mem.requestHeaders.every((x) => x.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('the agent adds a memory (always-visible tools on turn 1), and the next conversation recalls it before the model call', async () => {
    const u = await h.user();
    const s1 = await u.newSession();
    h.model.enqueue(
      callTool('add_memory', { content: 'The user runs the Kisumu cookstove project with 8000 households.' }, 'c_add'),
      say('Noted.'),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(s1, 'Remember: I run the Kisumu cookstove project, 8000 households.');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const offered = (h.model.requests[before]!.body.tools ?? []).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['search_memory_engine', 'add_memory', 'delete_episode', 'slow']));
    expect(toolEvents(events).map((c) => [c.toolName, c.status])).toEqual([
      ['add_memory', 'isRunning'],
      ['add_memory', 'done'],
    ]);
    expect(lastToolResult(h.model.requests[before + 1]!.body)).toEqual({ ok: true, id: 'mem_1' });
    const added = mem.calls.find((c) => c.tool === 'add_memory')!;
    expect(added.headers['x-user-did']).toBe(u.did);
    expect(added.headers['x-oracle-did']).toBe(h.oracleDid);
    expect(added.headers['x-session-id']).toBe(s1);

    // a new session: recalled before the first model call of the turn
    const s2 = await u.newSession();
    h.model.enqueue(say('You run the Kisumu project.'));
    const n = h.model.requests.length;
    await u.stream(s2, 'Which cookstove project do I run?');
    const prompt = systemPromptOf(h.model.requests[n]!.body);
    expect(prompt).toContain('What you remember about this user');
    expect(prompt).toContain('The user runs the Kisumu cookstove project with 8000 households.');
    const recall = mem.calls.filter((c) => c.tool === 'search_memory_engine').at(-1)!;
    expect(recall.args).toEqual({ query: 'Which cookstove project do I run?' });
    expect(recall.headers['x-user-did']).toBe(u.did);

    // another user recalls nothing of it
    const other = await h.user();
    const s3 = await other.newSession();
    h.model.enqueue(say('I do not know yet.'));
    const m = h.model.requests.length;
    await other.stream(s3, 'Which cookstove project do I run?');
    expect(systemPromptOf(h.model.requests[m]!.body)).not.toContain('Kisumu');
    expect(systemPromptOf(h.model.requests[m]!.body)).toContain('About memory:');
  });

  it("a tool's error reaches the model as a clear tool error", async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(callTool('delete_episode', { id: 'mem_404' }, 'c_del'), say('That memory does not exist.'));
    const before = h.model.requests.length;
    const { events } = await u.stream(s, 'forget mem_404');
    const err = toolEvents(events).find((c) => c.status === 'error')!;
    expect(err.error).toBe('memory tool delete_episode failed: no memory mem_404');
    expect(JSON.stringify(lastToolResult(h.model.requests[before + 1]!.body))).toContain('no memory mem_404');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });

  it('routes for useMemoryEngine: status, search and add as the authenticated user', async () => {
    const u = await h.user();
    const st = await u.req('GET', '/memory-engine');
    expect(st.status).toBe(200);
    expect(st.body).toMatchObject({
      enabled: true,
      connected: true,
      server: { name: 'test-memory-engine', version: '1.0.0' },
      engineUrl: 'https://memory.example.org',
      recallTool: 'search_memory_engine',
      addTool: 'add_memory',
    });
    expect(st.body.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['search_memory_engine', 'add_memory']),
    );
    const add = await u.req('POST', '/memory-engine/memories', { content: 'Prefers charcoal stoves' });
    expect(add.status).toBe(201);
    expect(add.body).toEqual({ ok: true, result: { ok: true, id: 'mem_1' } });
    const search = await u.req('POST', '/memory-engine/search', { query: 'charcoal' });
    expect(search.status).toBe(200);
    expect(search.body).toEqual({
      query: 'charcoal',
      result: { memories: [{ id: 'mem_1', content: 'Prefers charcoal stoves' }] },
    });
    const bad = await u.req('POST', '/memory-engine/search', {});
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, code: 'validation_failed', field: 'query' });
    const anon = await fetch(`${h.url}/memory-engine`);
    expect(anon.status).toBe(401);
  });

  it('a server that goes away mid-session gives clean tool errors (in flight and after), turns finish, and it reconnects when back', async () => {
    const u = await h.user();
    const s = await u.newSession();
    // in flight: the server dies while the tool runs
    h.model.enqueue(callTool('slow', { ms: 60_000 }, 'c_slow'), say('The memory service is down.'));
    const pending = u.stream(s, 'slow please');
    for (let i = 0; i < 2000 && !mem.calls.some((c) => c.tool === 'slow'); i++)
      await new Promise((r) => setTimeout(r, 5));
    await mem.stop();
    const { events } = await pending;
    const err = toolEvents(events).find((c) => c.eventId === 'c_slow' && c.status === 'error')!;
    expect(err.error).toMatch(
      /^(the memory MCP server \(http:\/\/127\.0\.0\.1:\d+\) (did not answer within 1000 ms|closed the connection|is unreachable)|cannot reach the memory MCP server \(http:\/\/127\.0\.0\.1:\d+\))/,
    );
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });

    // after: connection refused, recall skipped, the turn still answers
    h.model.enqueue(
      callTool('search_memory_engine', { query: 'stoves' }, 'c_down'),
      say('Memory is unavailable right now.'),
    );
    const before = h.model.requests.length;
    const r2 = await u.stream(s, 'what do you remember about stoves?');
    const down = toolEvents(r2.events).find((c) => c.eventId === 'c_down' && c.status === 'error')!;
    expect(down.error).toMatch(/^cannot reach the memory MCP server \(http:\/\/127\.0\.0\.1:\d+\): ECONNREFUSED$/);
    expect(down.error).not.toContain(TOKEN);
    expect(systemPromptOf(h.model.requests[before]!.body)).not.toContain('What you remember');
    expect(r2.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });

    // back on the same port (a restarted process: the old session is unknown) → reconnects
    await mem.start();
    h.model.enqueue(callTool('add_memory', { content: 'Back online' }, 'c_back'), say('Saved.'));
    const r3 = await u.stream(s, 'remember: back online');
    expect(toolEvents(r3.events).find((c) => c.eventId === 'c_back')).toBeDefined();
    expect(
      toolEvents(r3.events)
        .filter((c) => c.eventId === 'c_back')
        .map((c) => c.status),
    ).toEqual(['isRunning', 'done']);
  });
});

describe('memory boot', () => {
  it('blank → excluded; not http(s) or credentials in the URL → boot error; forced without it → boot error', async () => {
    const blank = await bootWith([userPreferencesPlugin, memoryPlugin], { MEMORY_MCP_URL: ' ' });
    expect(blank.lines).toContain('[boot] excluded: memory (MEMORY_MCP_URL)');
    expect(blank.status!.excluded).toEqual([{ plugin: 'memory', reason: 'MEMORY_MCP_URL' }]);
    const ftp = await bootWith([memoryPlugin], { MEMORY_MCP_URL: 'ftp://memory.local/mcp' });
    expect(ftp.error).toBe(
      `[boot-error] Plugin 'memory' env validation failed for 'MEMORY_MCP_URL' = "ftp://memory.local/mcp": must be an http(s) URL, not ftp:. Set 'MEMORY_MCP_URL' or disable it: features: { memory: false }`,
    );
    const creds = await bootWith([memoryPlugin], { MEMORY_MCP_URL: 'https://bob:hunter2@memory.local/mcp' });
    expect(creds.error).toBe(
      `[boot-error] Plugin 'memory' env validation failed for 'MEMORY_MCP_URL' = "https://…@memory.local/mcp": must not carry credentials; put the token in 'MEMORY_MCP_TOKEN'. Set 'MEMORY_MCP_URL' or disable it: features: { memory: false }`,
    );
    expect(creds.error).not.toContain('hunter2');
    const engine = await bootWith([memoryPlugin], {
      MEMORY_MCP_URL: 'http://127.0.0.1:1/mcp',
      MEMORY_ENGINE_URL: 'memory',
    });
    expect(engine.error).toMatch(
      /^\[boot-error\] Plugin 'memory' env validation failed for 'MEMORY_ENGINE_URL' = "memory": must be an http\(s\) URL/,
    );
    const forced = await bootWith([memoryPlugin], {}, { memory: true });
    expect(forced.error).toBe(
      "[boot-error] Plugin 'memory' env validation failed for 'MEMORY_MCP_URL': required but blank. Set 'MEMORY_MCP_URL' or disable it: features: { memory: false }",
    );
  });

  it('a server that is down at boot: pending → failed (reason) without hanging boot; a bad token fails with the HTTP status, not the token', async () => {
    const gone = await startMcpServer('gone', () => {});
    const url = gone.url;
    await gone.close();
    const h2 = await startHarness({ env: { MEMORY_MCP_URL: url, MEMORY_MCP_TIMEOUT_MS: '1000' } });
    try {
      await settled(h2.app, 'memory');
      expect(h2.app.plugins.status().failed).toEqual([
        {
          plugin: 'memory',
          reason: expect.stringMatching(
            /^cannot reach the memory MCP server \(http:\/\/127\.0\.0\.1:\d+\): ECONNREFUSED/,
          ),
        },
      ]);
      expect(
        h2.lines.some((l) => /^\[plugin\] memory pending → failed \(cannot reach the memory MCP server /.test(l)),
      ).toBe(true);
      const ready = await (await fetch(`${h2.url}/ready`)).json();
      expect(ready.plugins.failed[0].plugin).toBe('memory');
      expect(ready.plugins.loaded).not.toContain('memory');
      // the turn runs without memory tools
      const u = await h2.user();
      const s = await u.newSession();
      h2.model.enqueue(say('hi'));
      const n = h2.model.requests.length;
      await u.stream(s, 'hello');
      expect((h2.model.requests[n]!.body.tools ?? []).map((t) => t.function.name)).not.toContain('add_memory');
    } finally {
      await h2.close();
    }
    const guarded = await startMemoryMcpServer({ requireToken: 'right-token' });
    const h3 = await startHarness({ env: { MEMORY_MCP_URL: guarded.url, MEMORY_MCP_TOKEN: 'wrong-token-123' } });
    try {
      await settled(h3.app, 'memory');
      const f = h3.app.plugins.status().failed[0]!;
      expect(f.reason).toMatch(/HTTP 401/);
      expect(h3.lines.join('\n')).not.toContain('wrong-token-123');
    } finally {
      await h3.close();
      await guarded.close();
    }
  });
});
