import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { callTool, say, systemPromptOf } from '../helpers/scripted-model-server.ts';

describe.each(BACKENDS)('runtime sessions on %s', (backend) => {
  const databases = backendDatabases(backend);
  /** A harness on a fresh database of this backend. */
  const start = (o: Parameters<typeof startHarness>[0] = {}) =>
    startHarness({ ...o, databaseUrl: databases.fresh('rt_sessions') });

  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h.close();
  });

  describe('user preferences', () => {
    it('a preference set in one session shapes the system prompt of the first turn of the next session', async () => {
      const u = await h.user();
      const s1 = await u.newSession();
      h.model.enqueue(callTool('set_user_preferences', { language: 'French', agentName: 'Ada' }, 'p1'), (body) => {
        // refreshed after the update: the next model step already sees it
        expect(systemPromptOf(body)).toContain('Answer in: French');
        return say("D'accord.");
      });
      const { events } = await u.stream(s1, 'From now on answer in French and call yourself Ada.');
      const set = events.find((e) => e.event === 'tool_call' && e.data.status === 'done');
      expect(set?.event === 'tool_call' && set.data.output).toEqual({
        ok: true,
        preferences: { language: 'French', agentName: 'Ada' },
      });

      // partial update merges
      h.model.enqueue(callTool('set_user_preferences', { tone: 'formal' }, 'p2'), say('Très bien.'));
      await u.stream(s1, 'And be formal.');

      const s2 = await u.newSession();
      h.model.enqueue(say('Bonjour.'));
      const n = h.model.requests.length;
      await u.stream(s2, 'Hello');
      const prompt = systemPromptOf(h.model.requests[n]!.body);
      expect(prompt).toContain('Answer in: French');
      expect(prompt).toContain('Your name (what the user calls you): Ada');
      expect(prompt).toContain('Tone: formal');
      // the second session's first request carries no history of the first
      expect(h.model.requests[n]!.body.messages.filter((m) => m.role === 'user')).toHaveLength(1);

      const prefs = await u.req('GET', '/user-preferences');
      expect(prefs.status).toBe(200);
      expect(prefs.body).toEqual({ preferences: { language: 'French', agentName: 'Ada', tone: 'formal' } });

      // another user's first turn sees none of it
      const other = await h.user();
      const s3 = await other.newSession();
      h.model.enqueue(say('Hi.'));
      const m = h.model.requests.length;
      await other.stream(s3, 'Hello');
      expect(systemPromptOf(h.model.requests[m]!.body)).not.toContain('French');
      expect((await other.req('GET', '/user-preferences')).body).toEqual({ preferences: {} });
    });
  });

  describe('isolation between users', () => {
    it("one user never reads another's sessions, history, runs or deletes them", async () => {
      const a = await h.user();
      const b = await h.user();
      const sa = await a.newSession();
      h.model.enqueue(say('secret answer'));
      const { headers } = await a.stream(sa, 'my secret');
      const runId = headers.get('x-run-id')!;

      expect((await b.req('GET', '/sessions')).body).toEqual({ sessions: [], total: 0 });
      for (const [method, path] of [
        ['GET', `/messages/${sa}`],
        ['GET', `/sessions/${sa}/messages`],
        ['GET', `/sessions/${sa}/run`],
        ['GET', `/runs/${runId}`],
        ['DELETE', `/sessions/${sa}`],
      ] as const) {
        const r = await b.req(method, path);
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.code).toMatch(/session_not_found|run_not_found/);
      }
      const post = await b.req('POST', `/messages/${sa}`, { message: 'hi' });
      expect(post.status).toBe(404);
      const abort = await b.req('POST', '/messages/abort', { sessionId: sa });
      expect(abort.status).toBe(404);
      // a's data is intact
      expect((await a.req('GET', `/messages/${sa}`)).body.messages).toHaveLength(2);
      const del = await a.req('DELETE', `/sessions/${sa}`);
      expect(del.status).toBe(200);
      expect(del.body.message).toMatch(/deleted/);
      expect((await a.req('GET', `/messages/${sa}`)).status).toBe(404);
    });
  });

  describe('validation and errors', () => {
    it('every error is a JSON body with statusCode, code and message', async () => {
      const u = await h.user();
      const s = await u.newSession();
      const empty = await u.req('POST', `/messages/${s}`, { message: '' });
      expect(empty.status).toBe(400);
      expect(empty.body).toMatchObject({ statusCode: 400, code: 'invalid_body', field: 'message' });
      const bad = await fetch(`${h.url}/messages/${s}`, {
        method: 'POST',
        headers: { ...(await u.headers()), 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ statusCode: 400, code: 'invalid_json' });
      const page = await u.req('GET', '/sessions?limit=0');
      expect(page.body).toMatchObject({ statusCode: 400, code: 'invalid_query', field: 'limit' });
      const noRun = await u.req('POST', '/messages/abort', { sessionId: s });
      expect(noRun.body).toMatchObject({ statusCode: 404, code: 'no_active_run' });
      const sessions = await u.req('GET', '/sessions?limit=1&offset=0');
      expect(sessions.body.total).toBe(1);
    });
  });
});
