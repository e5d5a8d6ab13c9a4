/**
 * Tool output amplification: load_capability with one name repeated 200,000
 * times loads it once and stores a small row; a tool's arguments above the
 * bound are refused (the tool never runs) and shown by their size; a result
 * above the bound reaches the model, the stream and the history cut, with a
 * note; a plugin never sends a 1 MB city upstream.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { definePlugin, defineTool } from '../../src/runtime/plugin.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { testManifest } from '../helpers/test-plugin.ts';

const bigResult = definePlugin({
  name: 'big-result',
  version: '1.0.0',
  manifest: testManifest('Big result', 'returns megabytes'),
  tools: () => ({
    dump: defineTool({
      description: 'returns a large text',
      inputSchema: z.object({ size: z.number().int() }),
      execute: ({ size }) => ({ text: 'x'.repeat(size) }),
    }),
  }),
});

const toolCalls = (events: AnyEvent[]) =>
  events.flatMap((e) => (e.event === 'tool_call' ? [e.data as Record<string, unknown>] : []));

describe('the bounds of a tool call', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ plugins: [bigResult] });
  });
  afterAll(async () => {
    await h.close();
  });

  it('load_capability with one name 200,000 times: refused, and what the run streams and stores stays small', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const names = Array.from({ length: 200_000 }, () => 'weather');
    h.model.enqueue(callTool('load_capability', { names }, 'amp1'), say('ok'));
    const { events, raw } = await u.stream(sessionId, 'load it a lot');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const calls = toolCalls(events);
    expect(calls.at(-1)).toMatchObject({ status: 'error', args: { truncated: true } });
    expect(raw.length).toBeLessThan(100_000);
    const history = await u.req('GET', `/messages/${sessionId}`);
    expect(JSON.stringify(history.body).length).toBeLessThan(100_000);
    expect(statSync(join(h.dir, 'oracle.db')).size).toBeLessThan(5_000_000);
  });

  it('load_capability de-duplicates names: 30 repeats load the capability once', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(callTool('load_capability', { names: Array(30).fill('weather') }, 'dup1'), (body) =>
      say(`loaded ${(lastToolResult(body) as { loaded: unknown[] }).loaded.length}`),
    );
    const { events } = await u.stream(sessionId, 'load weather');
    expect(events.flatMap((e) => (e.event === 'message' ? [e.data.content] : [])).join('')).toBe('loaded 1');
  });

  it("cuts a tool's result above 65536 characters, with a note the model reads, in the stream and the history", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    let seen: unknown;
    h.model.enqueue(callTool('dump', { size: 1_000_000 }, 'big1'), (body) => {
      seen = lastToolResult(body);
      return say('cut');
    });
    const { events, raw } = await u.stream(sessionId, 'dump');
    expect(seen).toMatchObject({ truncated: true, note: expect.stringContaining('capped') });
    expect((seen as { preview: string }).preview.length).toBe(65_536);
    expect(toolCalls(events).at(-1)).toMatchObject({ status: 'done', output: { truncated: true } });
    expect(raw.length).toBeLessThan(200_000);
    const history = await u.req('GET', `/messages/${sessionId}`);
    expect(JSON.stringify(history.body).length).toBeLessThan(200_000);
  });

  it('never sends a 1 MB city upstream', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const before = h.meteo.requests.length;
    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'w0'),
      callTool('get_current_weather', { city: 'N'.repeat(1_000_000) }, 'w1'),
      say('no'),
    );
    const { events } = await u.stream(sessionId, 'weather in a very long city');
    expect(toolCalls(events).at(-1)).toMatchObject({ toolName: 'get_current_weather', status: 'error' });
    expect(h.meteo.requests.length).toBe(before);
    const r = await fetch(`${h.url}/weather/now?city=${'N'.repeat(5000)}`);
    expect([r.status, ((await r.json()) as { code: string }).code]).toEqual([400, 'city_too_long']);
    expect(h.meteo.requests.length).toBe(before);
  });
});
