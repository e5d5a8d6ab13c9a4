/**
 * The bounds of a run: a model that streams without end is ended at the
 * run's output, event-log or duration bound with an `error` of kind `limit`
 * and `done {status: failed}`, the process's memory stays bounded, and other
 * users' turns are served meanwhile; every model step asks for at most
 * ORACLE_MAX_OUTPUT_TOKENS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';

const endless = (text: string, everyMs?: number) => ({ steps: [{ type: 'endless' as const, text, everyMs }] });

/** Samples the process's RSS every 50 ms while `work` runs; returns its result and the peak growth in MB. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / 1e6 };
  } finally {
    clearInterval(t);
  }
}

const lastError = (events: AnyEvent[]) => events.filter((e) => e.event === 'error').at(-1)?.data;

describe('the bounds of a run (defaults)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ stallTimeoutMs: 5000 });
  });
  afterAll(async () => {
    await h.close();
  });

  it('ends an endless answer at ORACLE_RUN_MAX_OUTPUT_CHARS (200000) with kind limit; memory stays bounded', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(endless('y'.repeat(256)));
    const { result, growthMb } = await peakRss(() => u.stream(sessionId, 'talk forever'));
    const { events } = result;
    expect(lastError(events)).toMatchObject({ code: 'output_too_large', kind: 'limit', retryable: false });
    expect(String(lastError(events)?.error)).toContain('ORACLE_RUN_MAX_OUTPUT_CHARS');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    const text = events.flatMap((e) => (e.event === 'message' ? [e.data.content] : [])).join('');
    expect(text.length).toBeGreaterThan(190_000);
    expect(text.length).toBeLessThanOrEqual(200_000 + 256);
    expect(growthMb).toBeLessThan(200);
    // what is stored is what was streamed, bounded alike
    const history = await u.req('GET', `/messages/${sessionId}`);
    const requestId = result.headers.get('x-request-id');
    const answer = history.body.messages.find((m: { id: string }) => m.id === requestId);
    expect(answer.content.length).toBe(text.length);
  });

  it("ends an endless stream of tiny deltas at the event log's bound (ORACLE_RUN_MAX_EVENT_BYTES, 8 MiB)", async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(endless('z'));
    const { result, growthMb } = await peakRss(() => u.stream(sessionId, 'one letter at a time'));
    expect(lastError(result.events)).toMatchObject({ code: 'events_too_large', kind: 'limit' });
    expect(result.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    // 8 MiB at 117 bytes an event (its JSON and the overhead counted per event)
    expect(result.events.length).toBeLessThan((8 * 1024 * 1024) / 100);
    expect(growthMb).toBeLessThan(300);
    // a rejoin replays the bounded log
    const runId = result.headers.get('x-run-id')!;
    const replay = await u.sse(`/runs/${runId}?after=0`);
    expect(replay.events.length).toBe(result.events.length);
  }, 90_000);

  /** The answer a stream and a replay carry, and the stored answer row of the turn. */
  async function answerOf(
    u: Awaited<ReturnType<Harness['user']>>,
    sessionId: string,
    r: { events: AnyEvent[]; headers: Headers },
  ) {
    const text = (events: AnyEvent[]) =>
      events.flatMap((e) => (e.event === 'message' ? [e.data.content] : [])).join('');
    const replay = await u.sse(`/runs/${r.headers.get('x-run-id')}?after=0`);
    const history = await u.req('GET', `/messages/${sessionId}`);
    const row = history.body.messages.find((m: { id: string }) => m.id === r.headers.get('x-request-id'));
    const done = r.events.at(-1);
    return {
      streamed: text(r.events),
      replayed: text(replay.events),
      replayBytes: replay.raw.length,
      stored: String(row?.content ?? ''),
      partialText: done?.event === 'done' && 'partialText' in done.data ? String(done.data.partialText) : '',
    };
  }

  it('cuts one delta of 900 kB at ORACLE_RUN_MAX_OUTPUT_CHARS inside the delta: streamed, stored and replayed', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue({ steps: [{ type: 'text', text: 'q'.repeat(900_000), chunkSize: 900_000 }] });
    const r = await u.stream(sessionId, 'one huge delta');
    expect(lastError(r.events)).toMatchObject({ code: 'output_too_large', kind: 'limit' });
    expect(r.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    const a = await answerOf(u, sessionId, r);
    expect(a.streamed.length).toBe(200_000);
    expect(a.partialText.length).toBe(200_000);
    expect(a.stored.length).toBe(200_000);
    expect(a.replayed.length).toBe(200_000);
    expect(a.replayBytes).toBeLessThan(2 * 200_000 + 10_000); // the cut deltas and the partialText of `done`
  });

  it('refuses a 30 MB line of the model stream at ORACLE_MODEL_MAX_LINE_BYTES; nothing of it is kept', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue({ steps: [{ type: 'text', text: 'w'.repeat(30_000_000), chunkSize: 30_000_000 }] });
    const { result: r, growthMb } = await peakRss(() => u.stream(sessionId, 'a 30 MB delta'));
    expect(lastError(r.events)).toMatchObject({ code: 'model_line_too_long', kind: 'limit', retryable: false });
    expect(String(lastError(r.events)?.error)).toContain('ORACLE_MODEL_MAX_LINE_BYTES');
    expect(r.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    expect(r.raw.length).toBeLessThan(10_000);
    const a = await answerOf(u, sessionId, r);
    expect(a.streamed.length + a.stored.length + a.replayed.length + a.partialText.length).toBe(0);
    expect(a.replayBytes).toBeLessThan(10_000);
    // the scripted server's own copies of the 30 MB line (its string, its JSON, its write) are counted too
    expect(growthMb).toBeLessThan(300);
  });

  it('asks the model for at most ORACLE_MAX_OUTPUT_TOKENS (4096) per step', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    h.model.enqueue(say('short'));
    await u.stream(sessionId, 'hello');
    expect(h.model.requests.at(-1)!.body.max_tokens).toBe(4096);
  });
});

describe('the duration of a run', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { ORACLE_RUN_MAX_MS: '2000', ORACLE_MAX_OUTPUT_TOKENS: '512' },
      stallTimeoutMs: 5000,
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("ends a slow endless stream at ORACLE_RUN_MAX_MS while another user's turn is served at once", async () => {
    const a = await h.user();
    const b = await h.user();
    const sa = await a.newSession();
    const sb = await b.newSession();
    h.model.enqueue(endless('slow ', 5));
    const started = Date.now();
    const longRun = a.stream(sa, 'never stop');
    await new Promise((r) => setTimeout(r, 200));
    h.model.enqueue(say('served'));
    const t0 = Date.now();
    const other = await b.stream(sb, 'hi');
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(other.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    const { events } = await longRun;
    const elapsed = Date.now() - started;
    expect(lastError(events)).toMatchObject({ code: 'run_too_long', kind: 'limit' });
    expect(String(lastError(events)?.error)).toContain('ORACLE_RUN_MAX_MS');
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'failed' } });
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(4000);
    expect(h.model.requests.at(-1)!.body.max_tokens).toBe(512);
  });

  it('refuses an invalid bound at boot, naming the variable', async () => {
    await expect(startHarness({ env: { ORACLE_RUN_MAX_MS: '5' } })).rejects.toThrow(
      /ORACLE_RUN_MAX_MS' = "5".*from 1000 to 86400000/,
    );
  });
});
