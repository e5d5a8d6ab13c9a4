import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHarness, readSse, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { definePlugin, defineTool } from '../../src/runtime/plugin.ts';
import { messageIds, type AnyEvent, type Message } from '../../src/lib/protocol/index.ts';
import { testManifest } from '../helpers/test-plugin.ts';

const flaky = definePlugin({
  name: 'flaky',
  version: '0.0.1',
  manifest: testManifest('Flaky', 'tools that fail'),
  tools: () => ({
    explode: defineTool({
      description: 'throws',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('kaboom: the tool failed');
      },
    }),
    hang: defineTool({
      description: 'never returns',
      inputSchema: z.object({}),
      timeoutMs: 300,
      execute: () => new Promise(() => {}),
    }),
  }),
});

describe.each(BACKENDS)('runtime failures on %s', (backend) => {
  const databases = backendDatabases(backend);
  /** A harness on a fresh database of this backend. */
  const start = (o: Parameters<typeof startHarness>[0] = {}) =>
    startHarness({ ...o, databaseUrl: databases.fresh('rt_failures') });

  let h: Harness;
  beforeAll(async () => {
    h = await start({ plugins: [flaky], stallTimeoutMs: 600, maxSteps: 3 });
  });
  afterAll(async () => {
    await h.close();
  });

  const errorOf = (events: AnyEvent[]) => events.find((e) => e.event === 'error');

  describe('a model server that misbehaves', () => {
    it('an HTTP error becomes an error event with kind provider and retryable, then done failed', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({ steps: [{ type: 'http_error', status: 503 }] });
      const { events } = await u.stream(s, 'hi');
      expect(errorOf(events)).toMatchObject({
        event: 'error',
        data: { kind: 'provider', retryable: true, code: 'provider_error', timestamp: expect.any(String) },
      });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
      h.model.enqueue({ steps: [{ type: 'http_error', status: 400, body: { error: { message: 'bad model' } } }] });
      const r2 = await u.stream(s, 'hi again');
      expect(errorOf(r2.events)).toMatchObject({ data: { kind: 'provider', retryable: false } });
    });

    it('never lets the model key out: a provider error echoing it is redacted', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({
        steps: [{ type: 'http_error', status: 401, body: { error: { message: 'Invalid API key: sk-test-secret' } } }],
      });
      const { events, raw } = await u.stream(s, 'hi');
      expect(h.model.requests.at(-1)!.headers.authorization).toBe('Bearer sk-test-secret');
      expect(errorOf(events)).toMatchObject({ data: { kind: 'provider', retryable: false } });
      expect(raw).not.toContain('sk-test-secret');
      expect(raw).toContain('[redacted]');
      expect(JSON.stringify((await u.req('GET', `/messages/${s}`)).body)).not.toContain('sk-test-secret');
    });

    it('a stall mid-stream times out into an error event (never a hang), keeping the partial text', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({ steps: [{ type: 'text', text: 'Partial ans' }, { type: 'stall' }] });
      const { events } = await u.stream(s, 'hi');
      expect(errorOf(events)).toMatchObject({ data: { kind: 'timeout', retryable: true } });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed', partialText: 'Partial ans' } });
      const hist = await u.req('GET', `/messages/${s}`);
      // the partial answer is kept, and the failed turn's error row follows it (stored as the stream showed it)
      const rows = hist.body.messages as { id: string; type: string; content: unknown }[];
      expect(rows.at(-2)).toMatchObject({ type: 'ai', content: 'Partial ans' });
      expect(rows.at(-1)!.id).toMatch(/-error$/);
      expect(rows.at(-1)!.content).toMatchObject({
        name: 'Error',
        props: { event: { payload: { code: 'model_timeout', kind: 'timeout' } } },
      });
    });

    it('a malformed stream becomes an error event', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({ steps: [{ type: 'text', text: 'ok ' }, { type: 'malformed' }] });
      const { events } = await u.stream(s, 'hi');
      expect(errorOf(events)).toMatchObject({ data: { kind: 'malformed_stream', retryable: true } });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    });

    it('an in-stream provider error and an abrupt close become error events', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({ steps: [{ type: 'stream_error', message: 'overloaded' }] });
      const a = await u.stream(s, 'one');
      expect(errorOf(a.events)?.event).toBe('error');
      expect(a.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
      h.model.enqueue({ steps: [{ type: 'text', text: 'cut' }, { type: 'close' }] });
      const b = await u.stream(s, 'two');
      expect(errorOf(b.events)?.event).toBe('error');
      expect(b.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    });

    it('the step limit ends the run with a step_limit error', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue(
        callTool('list_capabilities', {}),
        callTool('list_capabilities', {}),
        callTool('list_capabilities', {}),
        callTool('list_capabilities', {}),
      );
      const { events } = await u.stream(s, 'loop');
      expect(errorOf(events)).toMatchObject({ data: { kind: 'step_limit', retryable: false } });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
      h.model.requests.length = 0;
    });
  });

  describe('tools that fail', () => {
    it('a tool that throws is a tool_call error; the agent goes on and answers', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue(callTool('explode', {}, 'ex1'), say('That failed, sorry.'));
      const { events } = await u.stream(s, 'explode');
      expect(events.find((e) => e.event === 'tool_call' && e.data.status === 'error')).toMatchObject({
        data: { toolName: 'explode', eventId: 'ex1', error: 'kaboom: the tool failed' },
      });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      const hist = await u.req('GET', `/messages/${s}`);
      const row = hist.body.messages.find((m: { id: string }) => m.id.endsWith('-ToolCall-ex1'));
      expect(row.content).toMatchObject({
        name: 'explode',
        props: { status: 'error', payload: { error: 'kaboom: the tool failed' } },
      });
    });

    it('a tool that times out fails cleanly', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue(callTool('hang', {}, 'hang1'), say('It timed out.'));
      const { events } = await u.stream(s, 'hang');
      expect(events.find((e) => e.event === 'tool_call' && e.data.status === 'error')).toMatchObject({
        data: { toolName: 'hang', error: 'tool hang timed out after 300 ms' },
      });
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    });

    it('an on-demand tool called before load_capability is refused with a pointer to load_capability', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue(callTool('get_current_weather', { city: 'Oslo' }, 'early'), say('ok'));
      const { events } = await u.stream(s, 'weather?');
      const err = events.find((e) => e.event === 'tool_call' && e.data.status === 'error');
      expect(err?.event === 'tool_call' && err.data.error).toMatch(
        /get_current_weather|load_capability|unavailable|not/i,
      );
      expect(h.meteo.requests.filter((r) => r.includes('Oslo'))).toHaveLength(0);
    });
  });

  describe("the oracle's log", () => {
    it('has a line per request (method, path, status, ms), a warn line per failed turn and failed tool, and no key', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue(callTool('explode', {}, 'log_tool'), say('That failed.'));
      await u.stream(s, 'explode');
      h.model.enqueue({
        steps: [{ type: 'http_error', status: 401, body: { error: { message: 'Invalid API key: sk-test-secret' } } }],
      });
      const failed = await u.stream(s, 'hi');
      const runId = failed.events.find((e) => e.event === 'run')!.data.runId;
      await fetch(`${h.url}/no-such-route?token=abc`);
      expect(h.logs).toContainEqual(
        expect.objectContaining({ level: 30, msg: 'request', method: 'POST', path: `/messages/${s}`, status: 200 }),
      );
      expect(h.logs).toContainEqual(
        expect.objectContaining({ msg: 'request', method: 'GET', path: '/no-such-route', status: 404 }),
      );
      for (const l of h.logs.filter((x) => x.msg === 'request')) expect(l.ms).toEqual(expect.any(Number));
      expect(h.logs).toContainEqual(
        expect.objectContaining({ level: 40, msg: 'tool failed', tool: 'explode', error: 'kaboom: the tool failed' }),
      );
      expect(h.logs).toContainEqual(
        expect.objectContaining({ level: 40, msg: 'turn failed', runId, sessionId: s, code: 'provider_unauthorized' }),
      );
      const all = JSON.stringify(h.logs);
      expect(all).not.toContain('sk-test-secret');
      expect(all).not.toContain('token=abc');
    });
  });

  describe('clients that go away', () => {
    it('a client that disconnects mid-stream does not stop the run; it rejoins with after=N', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({
        steps: [
          { type: 'text', text: 'first half ', chunkSize: 100 },
          { type: 'delay', ms: 300 },
          { type: 'text', text: 'second half', chunkSize: 100 },
        ],
      });
      const ctl = new AbortController();
      const res = await fetch(`${h.url}/messages/${s}`, {
        method: 'POST',
        headers: { ...(await u.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'long', stream: true }),
        signal: ctl.signal,
      });
      const runId = res.headers.get('x-run-id')!;
      const { events: firstPart } = await readSse(res, (e) => e.event === 'message', ctl);
      const lastSeen = firstPart.at(-1)!.id;
      expect(firstPart.at(-1)).toMatchObject({ event: 'message', data: { content: 'first half ' } });

      // while disconnected, the run is still running
      const st = await u.req('GET', `/sessions/${s}/run`);
      expect(st.body.run).toEqual({ runId, status: 'running' });

      const { events: rest } = await u.sse(`/runs/${runId}?after=${lastSeen}`);
      expect(rest[0]).toMatchObject({
        event: 'run',
        data: { runId, resumed: true, partialLength: expect.any(Number) },
      });
      const replayed = rest.slice(1);
      expect(replayed[0]!.id).toBe(lastSeen + 1);
      expect(replayed.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe('second half');
      expect(replayed.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });

      // after the run, a replay from 0 serves the whole stored stream
      const full = await u.sse(`/runs/${runId}?after=0`);
      expect(full.events.map((e) => e.id)).toEqual(full.events.map((_, i) => i + 1));
      expect(full.events.at(-1)?.event).toBe('done');
      const hist = await u.req('GET', `/messages/${s}`);
      expect(hist.body.messages.at(-1).content).toBe('first half second half');
    });

    it('abort stops the run and the upstream request', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({
        steps: [
          { type: 'text', text: 'starting ', chunkSize: 100 },
          { type: 'delay', ms: 5000 },
          { type: 'text', text: 'never' },
        ],
      });
      const closedBefore = h.model.clientClosed;
      const res = await fetch(`${h.url}/messages/${s}`, {
        method: 'POST',
        headers: { ...(await u.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'go', stream: true }),
      });
      const runId = res.headers.get('x-run-id');
      const reading = readSse(res);
      // abort once the first text arrived
      for (let i = 0; i < 200; i++) {
        const run = h.app.runtime.runs.get(runId!);
        if (run && run.text.length > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const ab = await u.req('POST', '/messages/abort', { sessionId: s });
      expect(ab.body).toEqual({ aborted: true, runId });
      const { events } = await reading;
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'aborted', partialText: 'starting ' } });
      for (let i = 0; i < 200 && h.model.clientClosed === closedBefore; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(h.model.clientClosed).toBeGreaterThan(closedBefore);
      expect((await u.req('GET', `/sessions/${s}/run`)).body.run).toEqual({ runId, status: 'aborted' });
      // the history keeps the cancellation on the turn's human row, beside the partial answer
      const { requestId } = events.find((e) => e.event === 'run')!.data as { requestId: string };
      const hist = (await u.req('GET', `/messages/${s}`)).body.messages as Message[];
      expect(hist.map((m) => [m.id, m.content, m.turn])).toEqual([
        [messageIds.human(requestId), 'go', { status: 'aborted' }],
        [messageIds.answer(requestId), 'starting ', undefined],
      ]);
    });

    it("a finished turn's history keeps the usage its done frame carried, on its human row", async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({ ...say('Counted.'), usage: { inputTokens: 31, outputTokens: 7 } });
      const { events } = await u.stream(s, 'count me');
      const done = events.at(-1);
      expect(done).toMatchObject({ event: 'done', data: { status: 'finished', usage: { inputTokens: 31 } } });
      const hist = (await u.req('GET', `/messages/${s}`)).body.messages as Message[];
      expect(hist.map((m) => [m.type, m.content, m.turn])).toEqual([
        ['human', 'count me', { status: 'finished', usage: (done?.data as { usage: unknown }).usage }],
        ['ai', 'Counted.', undefined],
      ]);
    });

    it('a second message while a run is active is refused with 409', async () => {
      const u = await h.user();
      const s = await u.newSession();
      h.model.enqueue({
        steps: [
          { type: 'delay', ms: 400 },
          { type: 'text', text: 'slow' },
        ],
      });
      const first = fetch(`${h.url}/messages/${s}`, {
        method: 'POST',
        headers: { ...(await u.headers()), 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'one', stream: true }),
      });
      const res1 = await first;
      const r = await u.req('POST', `/messages/${s}`, { message: 'two' });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('run_in_progress');
      await readSse(res1);
    });
  });
});
