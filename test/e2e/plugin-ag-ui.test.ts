/**
 * ag-ui through the agent: the request's agActions[] become actions; a
 * socket.io client answers action_call with action_call_result. The SSE
 * stream carries action_call events, hasRender actions emit
 * render_component, and a client that never answers fails the action after
 * its time-out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import type { ActionCallSocket, AnyEvent, WrappedEvent } from '../../src/lib/protocol/index.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { AG_UI_ACTION_TIMEOUT_MS: '700' } });
});
afterAll(async () => {
  await h.close();
});

const chart = {
  name: 'show_chart',
  description: 'Draw a bar chart in the app',
  schema: {
    type: 'object',
    properties: { title: { type: 'string' }, values: { type: 'array', items: { type: 'number' } } },
    required: ['title', 'values'],
  },
  hasRender: true,
};
const navigate = {
  name: 'open_view',
  description: 'Open a view of the app',
  schema: { type: 'object', properties: { view: { type: 'string', enum: ['map', 'list'] } }, required: ['view'] },
};

const actionEvents = (events: AnyEvent[]) => events.filter((e) => e.event === 'action_call').map((e) => e.data);

describe('ag-ui: the client actions', () => {
  it('action_call → action_call_result, action_call SSE events and render_component', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    const calls: ActionCallSocket[] = [];
    const renders: WrappedEvent[] = [];
    s.on('action_call', (c: ActionCallSocket) => {
      calls.push(c);
      s.emit('action_call_result', {
        toolCallId: c.toolCallId,
        sessionId: c.sessionId,
        result: { rendered: true, bars: (c.args as { values: number[] }).values.length },
      });
    });
    s.on('render_component', (e: WrappedEvent) => renders.push(e));
    h.model.enqueue(
      callTool('load_capability', { names: ['ag-ui'] }, 'call_load'),
      callTool('show_chart', { title: 'Stoves', values: [3, 5, 8] }, 'call_chart'),
      (body) => say(`Drawn with ${(lastToolResult(body) as { bars: number }).bars} bars.`),
    );
    const before = h.model.requests.length;
    const { events, headers } = await u.stream(sessionId, 'Chart my stoves', { agActions: [chart, navigate] });
    const requestId = headers.get('x-request-id')!;
    s.close();

    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(calls).toEqual([
      {
        sessionId,
        requestId,
        toolCallId: 'call_chart',
        toolName: 'show_chart',
        args: { title: 'Stoves', values: [3, 5, 8] },
      },
    ]);
    expect(actionEvents(events)).toEqual([
      { sessionId, requestId, toolCallId: 'call_chart', toolName: 'show_chart', status: 'isRunning' },
      {
        sessionId,
        requestId,
        toolCallId: 'call_chart',
        toolName: 'show_chart',
        status: 'done',
        output: { rendered: true, bars: 3 },
      },
    ]);
    expect(renders.map((r) => r.payload)).toEqual([
      {
        sessionId,
        requestId,
        eventId: 'call_chart',
        componentName: 'show_chart',
        args: { title: 'Stoves', values: [3, 5, 8] },
        status: 'isRunning',
      },
      {
        sessionId,
        requestId,
        eventId: 'call_chart',
        componentName: 'show_chart',
        args: { title: 'Stoves', values: [3, 5, 8] },
        status: 'done',
      },
    ]);
    expect(renders.every((r) => r.eventName === 'render_component')).toBe(true);
    expect(events.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe('Drawn with 3 bars.');
    const offered = h.model.requests.slice(before).map((r) => (r.body.tools ?? []).map((t) => t.function.name));
    expect(offered[0]).not.toContain('show_chart');
    expect(offered[1]).toEqual(expect.arrayContaining(['show_chart', 'open_view']));
  });

  it('an action without render emits no render_component; an unanswered action fails after its time-out', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    let renders = 0;
    let seen = 0;
    s.on('render_component', () => renders++);
    s.on('action_call', () => seen++);
    h.model.enqueue(
      callTool('load_capability', { names: ['ag-ui'] }),
      callTool('open_view', { view: 'map' }, 'call_nav'),
      say('The app did not respond.'),
    );
    const { events } = await u.stream(sessionId, 'Open the map', { agActions: [chart, navigate] });
    s.close();
    expect(seen).toBe(1);
    expect(renders).toBe(0);
    const err = 'action open_view timed out: the client sent no result within 700 ms';
    expect(actionEvents(events).map((d) => d.status)).toEqual(['isRunning', 'error']);
    expect(actionEvents(events)[1]).toMatchObject({ error: err });
    expect(events.filter((e) => e.event === 'tool_call').at(-1)).toMatchObject({
      data: { toolName: 'open_view', status: 'error', error: err },
    });
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });

  it('a schema-invalid call from the model is refused before it reaches the client', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const s = await u.socket(sessionId);
    let seen = 0;
    s.on('action_call', () => seen++);
    h.model.enqueue(
      callTool('load_capability', { names: ['ag-ui'] }),
      callTool('open_view', { view: 'spreadsheet' }),
      say('Invalid view.'),
    );
    const { events } = await u.stream(sessionId, 'Open the spreadsheet', { agActions: [navigate] });
    s.close();
    expect(seen).toBe(0);
    expect(events.filter((e) => e.event === 'tool_call').at(-1)).toMatchObject({
      data: { toolName: 'open_view', status: 'error' },
    });
    expect(h.app.plugins.status().loaded).toContain('ag-ui');
  });
});
