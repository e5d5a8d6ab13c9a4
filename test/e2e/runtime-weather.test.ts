import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say, systemPromptOf } from '../helpers/scripted-model-server.ts';
import { AnyEventSchema, MessageSchema, SessionSchema } from '../../src/lib/protocol/index.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('the weather path over real HTTP + SSE', () => {
  it('list_capabilities → load_capability → get_current_weather → answer, streamed and stored with the stream ids', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(
      callTool('list_capabilities', {}, 'call_list'),
      callTool('load_capability', { names: ['weather'] }, 'call_load'),
      callTool('get_current_weather', { city: 'Nairobi' }, 'call_wx'),
      (body) => {
        const r = lastToolResult(body) as { temp_c: number; conditions: string };
        return {
          steps: [
            { type: 'reasoning', text: 'The tool says it is mild.' },
            { type: 'text', text: `It is ${r.temp_c} °C and ${r.conditions} in Nairobi.` },
          ],
        };
      },
    );
    const before = h.model.requests.length;
    const { events, headers, raw } = await u.stream(sessionId, "What's the weather in Nairobi?");

    // headers and frames
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(headers.get('x-request-id')).toBeTruthy();
    expect(headers.get('x-run-id')).toBeTruthy();
    expect(headers.get('cache-control')).toBe('no-cache');
    expect(headers.get('x-accel-buffering')).toBe('no');
    expect(raw.startsWith('id: 1\nevent: run\ndata: ')).toBe(true);
    for (const e of events) expect(AnyEventSchema.safeParse(e).success).toBe(true);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));

    const requestId = headers.get('x-request-id')!;
    const first = events[0]!;
    expect(first.event).toBe('run');
    if (first.event === 'run') expect(first.data).toEqual({ runId: headers.get('x-run-id'), requestId });
    const last = events.at(-1)!;
    expect(last).toMatchObject({ event: 'done', data: { status: 'finished' } });

    const tools = events
      .filter((e) => e.event === 'tool_call')
      .map((e) => (e.event === 'tool_call' ? [e.data.toolName, e.data.status, e.data.eventId] : []));
    expect(tools).toEqual([
      ['list_capabilities', 'isRunning', 'call_list'],
      ['list_capabilities', 'done', 'call_list'],
      ['load_capability', 'isRunning', 'call_load'],
      ['load_capability', 'done', 'call_load'],
      ['get_current_weather', 'isRunning', 'call_wx'],
      ['get_current_weather', 'done', 'call_wx'],
    ]);
    const listOut = events.find(
      (e) => e.event === 'tool_call' && e.data.toolName === 'list_capabilities' && e.data.status === 'done',
    );
    expect(listOut?.event === 'tool_call' && listOut.data.output).toMatchObject({
      capabilities: expect.arrayContaining([
        {
          name: 'weather',
          summary: expect.any(String),
          visibility: 'on-demand',
          loaded: false,
          category: 'information',
        },
        {
          name: 'user-preferences',
          summary: expect.any(String),
          visibility: 'always',
          loaded: true,
          category: 'personalisation',
        },
      ]),
    });
    const wx = events.find(
      (e) => e.event === 'tool_call' && e.data.toolName === 'get_current_weather' && e.data.status === 'done',
    );
    expect(wx?.event === 'tool_call' && wx.data.output).toMatchObject({
      ok: true,
      city: 'Nairobi, Kenya',
      temp_c: 21.4,
      units: 'celsius',
      conditions: 'partly cloudy',
    });
    const reasoning = events.filter((e) => e.event === 'reasoning');
    // the deltas carry the reasoning; the closing frame marks the end and repeats nothing (docs/protocol.md)
    expect(reasoning.at(-1)).toMatchObject({ data: { isComplete: true, reasoning: '', sessionId, requestId } });
    expect(
      reasoning
        .filter((e) => e.event === 'reasoning' && !e.data.isComplete)
        .map((e) => (e.event === 'reasoning' ? e.data.reasoning : ''))
        .join(''),
    ).toBe('The tool says it is mild.');
    const text = events.map((e) => (e.event === 'message' ? e.data.content : '')).join('');
    expect(text).toBe('It is 21.4 °C and partly cloudy in Nairobi.');

    // on-demand tools are offered to the model only after load_capability
    const offered = h.model.requests.slice(before).map((r) => (r.body.tools ?? []).map((t) => t.function.name));
    expect(offered[0]).toContain('list_capabilities');
    expect(offered[0]).toContain('set_user_preferences');
    expect(offered[0]).not.toContain('get_current_weather');
    expect(offered[1]).not.toContain('get_current_weather');
    expect(offered[2]).toContain('get_current_weather');
    expect(offered[2]).toContain('get_weather_forecast');
    expect(systemPromptOf(h.model.requests[before]!.body)).toContain('list_capabilities');

    // the stored history uses the stream's ids
    const hist = await u.req('GET', `/messages/${sessionId}`);
    expect(hist.status).toBe(200);
    for (const m of hist.body.messages) expect(MessageSchema.safeParse(m).success).toBe(true);
    const ids = hist.body.messages.map((m: { id: string }) => m.id);
    // stored in the order the stream first showed each row: the reasoning came in the last step, after the tools
    expect(ids).toEqual([
      `${requestId}-human`,
      `${requestId}-ToolCall-call_list`,
      `${requestId}-ToolCall-call_load`,
      `${requestId}-ToolCall-call_wx`,
      `${requestId}-reasoning`,
      requestId,
    ]);
    const ai = hist.body.messages.at(-1);
    expect(ai).toMatchObject({ type: 'ai', content: text });
    // the reasoning is its own row, not repeated in the answer
    expect(ai.reasoning).toBeUndefined();
    expect(hist.body.messages.at(-2)).toMatchObject({ content: 'The tool says it is mild.', isReasoning: true });
    // the tool calls are their own rows (the answer row no longer repeats them)
    expect(ai.toolCalls).toBeUndefined();
    const toolRows = hist.body.messages.slice(1, 4) as {
      content: { name: string; props: { status: string; isToolCall?: boolean; toolName?: string } };
    }[];
    expect(
      toolRows.map((r) => [
        r.content.name,
        r.content.props.status,
        r.content.props.isToolCall,
        r.content.props.toolName,
      ]),
    ).toEqual([
      ['list_capabilities', 'done', true, 'list_capabilities'],
      ['load_capability', 'done', true, 'load_capability'],
      ['get_current_weather', 'done', true, 'get_current_weather'],
    ]);
    const toolRow = hist.body.messages[3];
    expect(toolRow.content).toMatchObject({
      name: 'get_current_weather',
      props: { id: 'call_wx', args: { city: 'Nairobi' }, status: 'done', output: { temp_c: 21.4 } },
    });

    // paged history agrees with the whole history
    const page = await u.req('GET', `/sessions/${sessionId}/messages?limit=2`);
    expect(page.body.messages.map((m: { id: string }) => m.id)).toEqual(ids.slice(-2));
    expect(page.body.hasOlder).toBe(true);
    expect(page.body.hasNewer).toBe(false);
    const older = await u.req('GET', `/sessions/${sessionId}/messages?limit=10&before=${page.body.prevCursor}`);
    expect(older.body.messages.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, -2));

    // the session keeps loadedPlugins: weather tools are offered from turn 1 of the next message
    h.model.enqueue(say('Still mild.'));
    const n = h.model.requests.length;
    await u.stream(sessionId, 'And now?');
    expect((h.model.requests[n]!.body.tools ?? []).map((t) => t.function.name)).toContain('get_current_weather');

    // session listing and run status
    const list = await u.req('GET', '/sessions');
    expect(list.body.total).toBe(1);
    expect(SessionSchema.parse(list.body.sessions[0]).title).toBe("What's the weather in Nairobi?");
    const run = await u.req('GET', `/sessions/${sessionId}/run`);
    expect(run.body.run.status).toBe('finished');
  });

  it('a non-streaming message returns the answer as JSON', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(say('Hello there.'));
    const r = await u.req('POST', `/messages/${sessionId}`, { message: 'hi' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      message: { id: r.headers.get('x-request-id'), type: 'ai', content: 'Hello there.' },
      sessionId,
    });
  });

  it('load_capability of an unknown name is a clear tool error that points to list_capabilities', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(callTool('load_capability', { names: ['telepathy'] }, 'c1'), say('Sorry.'));
    const { events } = await u.stream(sessionId, 'read my mind');
    const err = events.find((e) => e.event === 'tool_call' && e.data.status === 'error');
    expect(err?.event === 'tool_call' && err.data.error).toMatch(/Unknown capability 'telepathy'.*list_capabilities/);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
  });

  it('GET /weather/now is public and carries real statuses', async () => {
    const ok = await fetch(`${h.url}/weather/now?city=Oslo`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      ok: true,
      city: 'Oslo, Norway',
      temp_c: -3.5,
      units: 'celsius',
      conditions: 'slight snow',
      latitude: 59.91273,
      longitude: 10.74609,
    });
    const none = await fetch(`${h.url}/weather/now`);
    expect(none.status).toBe(400);
    expect(await none.json()).toMatchObject({ statusCode: 400, code: 'missing_city' });
    const unknown = await fetch(`${h.url}/weather/now?city=Atlantis`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404, code: 'unknown_city' });
    h.meteo.forecastStatus = 500;
    const up = await fetch(`${h.url}/weather/now?city=Oslo`);
    h.meteo.forecastStatus = 200;
    expect(up.status).toBe(502);
    expect(await up.json()).toMatchObject({ statusCode: 502, code: 'upstream_error' });
  });

  it('public routes answer', async () => {
    const health = await (await fetch(`${h.url}/health`)).json();
    expect(health).toEqual({ status: 'ok', name: 'Test Oracle', oracleDid: h.oracleDid, version: '1.0.0' });
    const ready = await fetch(`${h.url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      ready: true,
      plugins: { loaded: expect.arrayContaining(['user-preferences', 'weather']) },
    }); // bundled always-on plugins (domains, sampling, …) load too
    expect(await (await fetch(`${h.url}/models`)).json()).toEqual({
      models: [{ id: 'scripted-model', name: 'scripted-model' }],
      default: 'scripted-model',
    });
    const nf = await fetch(`${h.url}/nope`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ statusCode: 404, code: 'not_found' });
  });
});
