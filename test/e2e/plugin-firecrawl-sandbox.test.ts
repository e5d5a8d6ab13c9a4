import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { startFirecrawlMcpServer, startMemoryMcpServer, startSandboxMcpServer } from '../helpers/mcp-servers.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { firecrawlPlugin, sandboxPlugin } from '../../src/runtime/plugins/index.ts';
import { bootWith } from '../unit/runtime/plugins/_helpers/boot.ts';

let h: Harness;
let fc: Awaited<ReturnType<typeof startFirecrawlMcpServer>>;
let sb: Awaited<ReturnType<typeof startSandboxMcpServer>>;

async function settled(app: Harness['app']) {
  for (let i = 0; i < 1000 && app.plugins.status().pending.length > 0; i++) await new Promise((r) => setTimeout(r, 5));
}
const toolEvents = (events: AnyEvent[]) =>
  events.filter((e) => e.event === 'tool_call').map((e) => (e.event === 'tool_call' ? e.data : undefined)!);
const offered = (h: Harness, i: number) => (h.model.requests[i]!.body.tools ?? []).map((t) => t.function.name);

beforeAll(async () => {
  fc = await startFirecrawlMcpServer();
  sb = await startSandboxMcpServer();
  h = await startHarness({
    env: { FIRECRAWL_MCP_URL: fc.url, SANDBOX_MCP_URL: sb.url, SANDBOX_MCP_TIMEOUT_MS: '1000' },
  });
  await settled(h.app);
});
afterAll(async () => {
  await h.close();
  await fc.close();
  await sb.close();
});

describe('firecrawl plugin (web crawl) over a real MCP server', () => {
  it('loads in the background; on-demand: search and scrape tools (not crawl) after load_capability; results and errors reach the model', async () => {
    expect(h.lines).toContain('[plugin] firecrawl pending → loaded');
    expect(h.app.plugins.status().loaded).toEqual(expect.arrayContaining(['firecrawl', 'sandbox']));
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['firecrawl'] }, 'c_load'),
      callTool('firecrawl_search', { query: 'charcoal', limit: 3 }, 'c_search'),
      callTool('firecrawl_scrape', { url: 'https://example.org/stoves' }, 'c_scrape'),
      callTool('firecrawl_scrape', { url: 'https://example.org/missing' }, 'c_404'),
      callTool('firecrawl_scrape', { url: 'not a url' }, 'c_bad'),
      say('Improved stoves cut fuel use by 40 %.'),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(s, 'What do clean cookstoves save?');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(offered(h, before)).not.toContain('firecrawl_search');
    expect(offered(h, before + 1)).toEqual(expect.arrayContaining(['firecrawl_search', 'firecrawl_scrape']));
    expect(offered(h, before + 1)).not.toContain('firecrawl_crawl');
    const load = lastToolResult(h.model.requests[before + 1]!.body) as {
      loaded: { tools: { name: string; description: string }[] }[];
    };
    expect(load.loaded[0]!.tools.map((t) => t.name).sort()).toEqual(['firecrawl_scrape', 'firecrawl_search']);
    expect(lastToolResult(h.model.requests[before + 2]!.body)).toEqual({
      success: true,
      data: [
        {
          url: 'https://example.org/fuel',
          title: 'Fuel savings',
          description: 'Charcoal use fell from 3 kg to 1.8 kg a day.',
        },
      ],
    });
    expect(lastToolResult(h.model.requests[before + 3]!.body)).toBe(
      '# Clean cookstoves\nImproved stoves cut fuel use by 40 %.',
    );
    const errs = toolEvents(events).filter((c) => c.status === 'error');
    expect(errs.map((e) => e.eventId)).toEqual(['c_404', 'c_bad']);
    expect(errs[0]!.error).toBe(
      'firecrawl tool firecrawl_scrape failed: Failed to scrape https://example.org/missing: HTTP 404 Not Found',
    );
    expect(errs[1]!.error).toMatch(/url/i); // the server's (or the schema's) validation message
    expect(fc.calls.map((c) => c.tool)).toEqual(expect.arrayContaining(['firecrawl_search', 'firecrawl_scrape']));
  });
});

describe('sandbox plugin over a real MCP server', () => {
  it('writes a file, runs code that reads it, reads it back; a failing program is a clean tool error; calls carry the session', async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['sandbox'] }),
      callTool('write_file', { path: 'data.csv', content: '3.1\n2.9\n3.4' }, 'c_write'),
      callTool(
        'run_code',
        {
          language: 'javascript',
          code: "const v = readFile('data.csv').split('\\n').map(Number); console.log(v.length); v.reduce((a, b) => a + b, 0) / v.length",
        },
        'c_run',
      ),
      callTool('read_file', { path: 'data.csv' }, 'c_read'),
      callTool('list_files', {}, 'c_list'),
      callTool('run_code', { language: 'javascript', code: 'while (true) {}' }, 'c_loop'),
      callTool('read_file', { path: 'nope.txt' }, 'c_nofile'),
      (body) => say(`Mean: ${(lastToolResult(body) as string).length > 0 ? 'done' : ''}`),
    );
    const before = h.model.requests.length;
    const { events } = await u.stream(s, 'average these');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(lastToolResult(h.model.requests[before + 2]!.body)).toEqual({ ok: true, path: 'data.csv', bytes: 11 });
    const run = lastToolResult(h.model.requests[before + 3]!.body) as { stdout: string; result: number };
    expect(run.stdout).toBe('3');
    expect(run.result).toBeCloseTo(3.1333333, 6);
    expect(lastToolResult(h.model.requests[before + 4]!.body)).toBe('3.1\n2.9\n3.4');
    expect(lastToolResult(h.model.requests[before + 5]!.body)).toEqual({ files: ['data.csv'] }); // structuredContent
    const errs = toolEvents(events).filter((c) => c.status === 'error');
    expect(errs.map((e) => [e.eventId, e.error])).toEqual([
      ['c_loop', expect.stringMatching(/^sandbox tool run_code failed: Error: Script execution timed out/)],
      ['c_nofile', 'sandbox tool read_file failed: ENOENT: no such file nope.txt'],
    ]);
    const w = sb.calls.find((c) => c.tool === 'write_file')!;
    expect(w.headers['x-session-id']).toBe(s);
    expect(w.headers['x-user-did']).toBe(u.did);
  });

  it('a sandbox that stops answering times out into a clean tool error, not a hang', async () => {
    const u = await h.user();
    const s = await u.newSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['sandbox'] }),
      callTool('slow', { ms: 30_000 }, 'c_slow'),
      say('The sandbox timed out.'),
    );
    const { events } = await u.stream(s, 'slow');
    const err = toolEvents(events).find((c) => c.eventId === 'c_slow' && c.status === 'error')!;
    expect(err.error).toMatch(/^the sandbox MCP server \(http:\/\/127\.0\.0\.1:\d+\) did not answer within 1000 ms/);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });
});

describe('two MCP servers listing the same tool name', () => {
  it('the second plugin to load gets its own name as prefix, and each name reaches its own server', async () => {
    const mem = await startMemoryMcpServer();
    const h2 = await startHarness({ env: { MEMORY_MCP_URL: mem.url, SANDBOX_MCP_URL: sb.url } });
    try {
      await settled(h2.app);
      const u = await h2.user();
      const s = await u.newSession();
      h2.model.enqueue(callTool('load_capability', { names: ['sandbox'] }), say('ok'));
      const before = h2.model.requests.length;
      await u.stream(s, 'load');
      const names = offered(h2, before + 1);
      const slows = names.filter((n) => /(^|_)slow$/.test(n)).sort();
      expect(slows.length).toBe(2);
      expect(slows).toContain('slow');
      expect(slows.some((n) => n === 'memory_slow' || n === 'sandbox_slow')).toBe(true);
      const prefixed = slows.find((n) => n !== 'slow')!;
      const memBefore = mem.calls.length;
      const sbBefore = sb.calls.length;
      h2.model.enqueue(callTool(prefixed, { ms: 1 }, 'c_pre'), callTool('slow', { ms: 2 }, 'c_plain'), say('done'));
      await u.stream(s, 'both');
      const memCalls = mem.calls
        .slice(memBefore)
        .filter((c) => c.tool === 'slow')
        .map((c) => c.args);
      const sbCalls = sb.calls
        .slice(sbBefore)
        .filter((c) => c.tool === 'slow')
        .map((c) => c.args);
      if (prefixed === 'sandbox_slow') {
        expect(sbCalls).toEqual([{ ms: 1 }]);
        expect(memCalls).toEqual([{ ms: 2 }]);
      } else {
        expect(memCalls).toEqual([{ ms: 1 }]);
        expect(sbCalls).toEqual([{ ms: 2 }]);
      }
    } finally {
      await h2.close();
      await mem.close();
    }
  });
});

describe('firecrawl and sandbox boot', () => {
  it('blank → excluded lines; bad values → boot errors; MCP_TOOLS naming an unknown tool fails the start', async () => {
    const r = await bootWith([firecrawlPlugin, sandboxPlugin], { FIRECRAWL_MCP_URL: '', SANDBOX_MCP_URL: '' });
    expect(r.lines).toEqual(
      expect.arrayContaining([
        '[boot] excluded: firecrawl (FIRECRAWL_MCP_URL)',
        '[boot] excluded: sandbox (SANDBOX_MCP_URL)',
        '[boot] excluded 2 plugin(s): firecrawl (FIRECRAWL_MCP_URL), sandbox (SANDBOX_MCP_URL)',
      ]),
    );
    expect((await bootWith([firecrawlPlugin], { FIRECRAWL_MCP_URL: 'localhost:3002' })).error).toMatch(
      /^\[boot-error\] Plugin 'firecrawl' env validation failed for 'FIRECRAWL_MCP_URL' = "localhost:3002": must be an http\(s\) URL.*Set 'FIRECRAWL_MCP_URL' or disable it: features: \{ firecrawl: false \}$/,
    );
    expect(
      (await bootWith([sandboxPlugin], { SANDBOX_MCP_URL: 'http://127.0.0.1:1/mcp', SANDBOX_MCP_TIMEOUT_MS: 'soon' }))
        .error,
    ).toMatch(/^\[boot-error\] Plugin 'sandbox' env validation failed for 'SANDBOX_MCP_TIMEOUT_MS' = "soon": /);
    expect((await bootWith([sandboxPlugin], {}, { sandbox: true })).error).toBe(
      "[boot-error] Plugin 'sandbox' env validation failed for 'SANDBOX_MCP_URL': required but blank. Set 'SANDBOX_MCP_URL' or disable it: features: { sandbox: false }",
    );
    const h2 = await startHarness({
      env: { FIRECRAWL_MCP_URL: fc.url, FIRECRAWL_MCP_TOOLS: 'firecrawl_search,firecrawl_map' },
    });
    try {
      await settled(h2.app);
      expect(h2.app.plugins.status().failed).toEqual([
        {
          plugin: 'firecrawl',
          reason: expect.stringMatching(/^FIRECRAWL_MCP_TOOLS names tools the server does not have: firecrawl_map/),
        },
      ]);
    } finally {
      await h2.close();
    }
  });
});
