/**
 * portal through the agent: the request's tools[] become browser tools; a
 * socket.io client in the test answers browser_tool_call with tool_result.
 * Errors from the client, a client that never answers (time-out) and no
 * client at all become clear tool errors, and the turn still finishes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import type { BrowserToolCall } from '../../src/lib/protocol/index.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { PORTAL_TOOL_TIMEOUT_MS: '700' } });
});
afterAll(async () => {
  await h.close();
});

const pageTool = {
  name: 'get_page_title',
  description: 'Read the title of the page the user is looking at',
  schema: {
    type: 'object',
    properties: { selector: { type: 'string', description: 'CSS selector' } },
    required: ['selector'],
  },
};

const toolEvents = (events: { event: string; data: unknown }[], name: string) =>
  events
    .filter((e) => e.event === 'tool_call' && (e.data as { toolName: string }).toolName === name)
    .map((e) => e.data as { status: string; output?: unknown; error?: string; eventId: string });

describe('portal: the client tools run in the browser', () => {
  it('load_capability → browser_tool_call → tool_result → answer', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    const calls: BrowserToolCall[] = [];
    s.on('browser_tool_call', (c: BrowserToolCall) => {
      calls.push(c);
      s.emit('tool_result', {
        toolCallId: c.toolCallId,
        sessionId: c.sessionId,
        result: { title: 'Cookstove dashboard', selector: (c.args as { selector: string }).selector },
      });
    });
    h.model.enqueue(
      callTool('load_capability', { names: ['portal'] }, 'call_load'),
      callTool('get_page_title', { selector: 'h1' }, 'call_bt'),
      (body) => say(`The page is "${(lastToolResult(body) as { title: string }).title}".`),
    );
    const before = h.model.requests.length;
    const { events, headers } = await u.stream(sessionId, 'What page am I on?', { tools: [pageTool] });
    s.close();

    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(calls).toEqual([
      {
        sessionId,
        requestId: headers.get('x-request-id'),
        toolCallId: 'call_bt',
        toolName: 'get_page_title',
        args: { selector: 'h1' },
      },
    ]);
    const bt = toolEvents(events, 'get_page_title');
    expect(bt.map((e) => e.status)).toEqual(['isRunning', 'done']);
    expect(bt[1]!.output).toEqual({ title: 'Cookstove dashboard', selector: 'h1' });
    expect(events.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe(
      'The page is "Cookstove dashboard".',
    );

    // offered only after load_capability, with the client's schema and description
    const offered = h.model.requests.slice(before).map((r) => r.body.tools ?? []);
    expect(offered[0]!.map((t) => t.function.name)).not.toContain('get_page_title');
    const t = offered[1]!.find((x) => x.function.name === 'get_page_title');
    expect(t?.function.description).toBe(pageTool.description);
    expect(t?.function.parameters).toMatchObject({
      type: 'object',
      properties: { selector: { type: 'string' } },
      required: ['selector'],
    });
    // the system prompt tells the model that browser tools exist
    expect(JSON.stringify(h.model.requests[before]!.body.messages[0])).toContain('get_page_title');
  });

  it('an error from the client becomes a clear tool error', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    s.on('browser_tool_call', (c: BrowserToolCall) =>
      s.emit('tool_result', {
        toolCallId: c.toolCallId,
        sessionId: c.sessionId,
        result: null,
        error: 'element h9 not found',
      }),
    );
    h.model.enqueue(
      callTool('load_capability', { names: ['portal'] }),
      callTool('get_page_title', { selector: 'h9' }, 'call_err'),
      (body) => say(`Sorry: ${JSON.stringify(lastToolResult(body))}`),
    );
    const { events } = await u.stream(sessionId, 'Title?', { tools: [pageTool] });
    s.close();
    const bt = toolEvents(events, 'get_page_title');
    expect(bt.at(-1)).toMatchObject({
      status: 'error',
      error: 'browser tool get_page_title failed in the client: element h9 not found',
    });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });

  it('a client that never answers makes the tool fail after its time-out', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    let seen = 0;
    s.on('browser_tool_call', () => seen++);
    h.model.enqueue(
      callTool('load_capability', { names: ['portal'] }),
      callTool('get_page_title', { selector: 'h1' }, 'call_slow'),
      say('The browser did not answer.'),
    );
    const { events } = await u.stream(sessionId, 'Title?', { tools: [pageTool] });
    // a late answer after the time-out is ignored
    s.emit('tool_result', { toolCallId: 'call_slow', sessionId, result: { title: 'late' } });
    s.close();
    expect(seen).toBe(1);
    expect(toolEvents(events, 'get_page_title').at(-1)).toMatchObject({
      status: 'error',
      error: 'browser tool get_page_title timed out: the client sent no result within 700 ms',
    });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });

  it('with no client connected the tool fails at once, and another session never receives the call', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const otherSession = await u.newSession();
    const spy = await u.socket(otherSession);
    let leaked = 0;
    spy.on('browser_tool_call', () => leaked++);
    h.model.enqueue(
      callTool('load_capability', { names: ['portal'] }),
      callTool('get_page_title', { selector: 'h1' }),
      say('No browser.'),
    );
    const { events } = await u.stream(sessionId, 'Title?', { tools: [pageTool] });
    spy.close();
    expect(leaked).toBe(0);
    expect(toolEvents(events, 'get_page_title').at(-1)?.error).toMatch(
      /no client of this session is connected over socket.io/,
    );
    expect(h.app.plugins.status().loaded).toContain('portal');
  });
});
