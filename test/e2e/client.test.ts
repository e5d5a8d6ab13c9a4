/**
 * The headless client against a real runtime on loopback (scripted
 * OpenAI-compatible model server, Open-Meteo-shaped weather server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OracleClient, OracleClientError, generateSigner } from '../../src/client/index.ts';
import type { AnyEvent } from '../../src/lib/protocol/index.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function newClient(extra: Partial<ConstructorParameters<typeof OracleClient>[0]> = {}) {
  return OracleClient.connect({ baseUrl: h.url, signer: await generateSigner(), ...extra });
}

describe('OracleClient', () => {
  it('reads the oracle DID from /health, lists models, manages sessions', async () => {
    const c = await newClient();
    expect(await c.oracleDid()).toBe(h.oracleDid);
    const models = await c.models();
    expect(models.default).toBe('scripted-model');
    const s = await c.createSession('first');
    expect(s).toMatchObject({ title: 'first', oracleDid: h.oracleDid });
    await c.createSession();
    const list = await c.listSessions({ limit: 1 });
    expect(list.total).toBe(2);
    expect(list.sessions).toHaveLength(1);
    expect(await c.deleteSession(s.sessionId)).toHaveProperty('message');
    expect((await c.listSessions()).total).toBe(1);
    const err = await c.deleteSession(s.sessionId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OracleClientError);
    expect(err).toMatchObject({ status: 404, code: 'session_not_found' });
  });

  it('json(): any authenticated route as JSON, checked by a schema when given; errors as the other calls', async () => {
    const c = await newClient();
    const s = await c.json<{ sessionId: string; title: string }>('POST', '/sessions', undefined, { title: 'by json' });
    expect(s.title).toBe('by json');
    const count = { parse: (v: unknown) => (v as { total: number }).total };
    expect(await c.json('GET', '/sessions', count)).toBe(1);
    const refused = {
      parse: () => {
        throw new Error('not the expected shape');
      },
    };
    await expect(c.json('GET', '/sessions', refused)).rejects.toThrow('not the expected shape');
    const err = await c.json('GET', '/sessions/nope/run').catch((e: unknown) => e);
    expect(OracleClientError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ status: 404 });
  });

  it('streams a turn with a tool call as typed events; history keeps the stream ids', async () => {
    const c = await newClient();
    const { sessionId } = await c.createSession();
    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'c1'),
      callTool('get_current_weather', { city: 'Nairobi' }, 'c2'),
      say('It is **mild** in Nairobi.'),
    );
    const seen: AnyEvent[] = [];
    const stream = c.send(sessionId, 'Weather in Nairobi?', { onEvent: (e) => seen.push(e) });
    const iterated: AnyEvent[] = [];
    for await (const e of stream) iterated.push(e);
    const r = await stream.result;
    expect(iterated).toEqual(seen);
    expect(seen[0]?.event).toBe('run');
    expect(seen.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(r.status).toBe('finished');
    expect(r.text).toBe('It is **mild** in Nairobi.');
    expect(r.toolCalls.map((t) => [t.toolName, t.status])).toEqual([
      ['load_capability', 'done'],
      ['get_current_weather', 'done'],
    ]);
    const ids = seen.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const history = await c.history(sessionId);
    expect(history[0]).toMatchObject({ type: 'human', content: 'Weather in Nairobi?' });
    expect(history.find((m) => m.id === r.requestId)).toMatchObject({ type: 'ai' });
    const page = await c.historyPage(sessionId, { limit: 1 });
    expect(page.messages).toHaveLength(1);
    expect(page.hasOlder).toBe(true);
  });

  it('folds the turn once (reduceTurn): onEvent gets the turn so far, the reasoning is the one of the history (not repeated by its closing frame)', async () => {
    const c = await newClient();
    const { sessionId } = await c.createSession();
    h.model.enqueue({
      steps: [
        { type: 'reasoning', text: 'The user greets me.', chunkSize: 5 },
        { type: 'text', text: 'Hello!', chunkSize: 3 },
      ],
    });
    const texts: string[] = [];
    const stream = c.send(sessionId, 'hi', { onEvent: (e, turn) => e.event === 'message' && texts.push(turn.text) });
    const r = await stream.result;
    expect(texts).toEqual(['Hel', 'Hello!']);
    expect(r.reasoning).toBe('The user greets me.');
    const history = await c.history(sessionId);
    // the reasoning is its own row; the answer carries its text only
    expect(history.find((m) => m.id === `${r.requestId}-reasoning`)).toMatchObject({
      content: r.reasoning,
      isReasoning: true,
    });
    const answer = history.find((m) => m.id === r.requestId);
    expect(answer).toMatchObject({ content: 'Hello!' });
    expect(answer?.reasoning).toBeUndefined();
  });

  it('rejoins a dropped stream from the last event id without duplicates', async () => {
    let cut = true;
    // a fetch whose first SSE body breaks right after the first text delta
    const breaking: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!cut || !res.headers.get('content-type')?.includes('text/event-stream')) return res;
      cut = false;
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let seen = '';
      const body = new ReadableStream<Uint8Array>({
        async pull(ctl) {
          const { value, done } = await reader.read();
          if (done) return ctl.close();
          ctl.enqueue(value);
          seen += dec.decode(value, { stream: true });
          if (seen.includes('event: message')) {
            await reader.cancel();
            ctl.error(new TypeError('network connection lost'));
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const c = await newClient({ fetch: breaking, rejoinDelayMs: 10 });
    const { sessionId } = await c.createSession();
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'first half ', chunkSize: 100 },
        { type: 'delay', ms: 200 },
        { type: 'text', text: 'second half', chunkSize: 100 },
      ],
    });
    const events: AnyEvent[] = [];
    const r = await c.send(sessionId, 'go', { onEvent: (e) => events.push(e) }).result;
    expect(r.rejoins).toBe(1);
    expect(r.text).toBe('first half second half');
    expect(r.status).toBe('finished');
    const ids = events.filter((e) => e.event !== 'run').map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(events.filter((e) => e.event === 'run').at(-1)?.data).toMatchObject({ resumed: true });
  });

  it('rejoin(runId, after) replays a run from an event id, live or stored', async () => {
    const c = await newClient();
    const { sessionId } = await c.createSession();
    h.model.enqueue(say('abcdefghij', 2));
    const first = await c.send(sessionId, 'letters').result;
    const replay: AnyEvent[] = [];
    const r = await c.rejoin(first.runId, 3, { sessionId, onEvent: (e) => replay.push(e) }).result;
    // a live run announces the rejoin with a resumed run frame; a stored one replays only
    expect(replay.filter((e) => e.event !== 'run').every((e) => e.id > 3)).toBe(true);
    expect(replay.at(-1)?.event).toBe('done');
    expect(r.status).toBe('finished');
    expect('abcdefghij'.endsWith(r.text)).toBe(true);
  });

  it('aborts a running turn: the stream ends with done aborted', async () => {
    const c = await newClient();
    const { sessionId } = await c.createSession();
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'starting ', chunkSize: 100 },
        { type: 'delay', ms: 5000 },
        { type: 'text', text: 'never' },
      ],
    });
    const stream = c.send(sessionId, 'long one');
    for await (const e of stream) if (e.event === 'message') await stream.abort();
    const r = await stream.result;
    expect(r.status).toBe('aborted');
    expect(r.text).toBe('starting ');
    expect((await c.activeRun(sessionId)).run).toMatchObject({ status: 'aborted' });
  });

  it('renews after a 401: a new invocation first, then a new delegation', async () => {
    const c = await newClient();
    const auth = await c.auth();
    expect(await c.storeDelegation()).toMatchObject({ ok: true });
    expect(await c.delegationStatus()).toMatchObject({ authorized: true });
    expect(auth.minted.delegations).toBe(1);
    // DELETE /delegation revokes the delegation the client still sends
    await c.revokeDelegation();
    const before = auth.minted.invocations;
    const s = await c.createSession();
    expect(s.sessionId).toBeTruthy();
    expect(auth.minted.delegations).toBe(2);
    expect(auth.minted.invocations - before).toBe(3); // refused, refused (same delegation), accepted
  });

  it('surfaces an SSE error frame and a non-2xx as typed errors', async () => {
    const c = await newClient();
    const { sessionId } = await c.createSession();
    h.model.enqueue({ steps: [{ type: 'http_error', status: 500 }] });
    const r = await c.send(sessionId, 'fail please').result;
    expect(r.status).toBe('failed');
    expect(r.error).toMatchObject({ kind: 'provider' });
    const e = await c.send('no-such-session', 'x').result.catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 404, code: 'session_not_found' });
  });
});
