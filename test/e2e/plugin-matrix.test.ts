/**
 * matrix against a loopback homeserver that speaks the client-server API:
 * background start (pending → loaded, /ready 503 until settled), invites
 * joined, direct messages and mentions answered through the agent as replies,
 * OpenID tokens for clients; a homeserver that is down or a bad token fails
 * the plugin without hanging boot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';
import { startMatrixServer, type MatrixServer } from '../helpers/matrix-server.ts';
import { OracleRuntime } from '../../src/runtime/runtime.ts';

let hs: MatrixServer;
let h: Harness;
let release: () => void;
let readyBefore: { status: number; body: { pending?: string[]; plugins: { pending: string[] } } };

beforeAll(async () => {
  hs = await startMatrixServer();
  release = hs.hold(); // whoami waits: the plugin stays pending
  h = await startHarness({
    env: {
      MATRIX_BASE_URL: hs.url,
      MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: hs.token,
      MATRIX_ORACLE_ADMIN_USER_ID: hs.userId,
      MATRIX_SYNC_TIMEOUT_MS: '5000',
    },
  });
  const r = await fetch(`${h.url}/ready`);
  readyBefore = { status: r.status, body: await r.json() };
  const settled = new Promise<void>((resolve) => {
    const off = h.app.onPluginStatusChange((e) => {
      if (e.plugin === 'matrix' && e.status !== 'pending') {
        off();
        resolve();
      }
    });
  });
  release();
  await settled;
});
afterAll(async () => {
  await h.close();
  await hs.close();
});

describe('matrix transport', () => {
  it('starts in the background: pending and /ready 503, then pending → loaded and /ready 200', async () => {
    expect(readyBefore.status).toBe(503);
    expect(readyBefore.body.plugins.pending).toEqual(['matrix']);
    expect(readyBefore.body.pending).toContain('plugin:matrix');
    expect(h.lines).toContain('[plugin] matrix pending → loaded');
    expect(h.lines.some((l) => l === '[boot] loaded: matrix')).toBe(false);
    expect(h.app.plugins.status().loaded).toContain('matrix');
    expect((await fetch(`${h.url}/ready`)).status).toBe(200);
    // the token is never logged
    expect(h.lines.join('\n')).not.toContain(hs.token);
  });

  it('joins a direct chat it is invited to and answers each message there, as a reply, through the agent', async () => {
    hs.invite('!dm:oracle.test', '@alice:oracle.test', { isDirect: true });
    while (!hs.joined.has('!dm:oracle.test')) await new Promise((r) => setTimeout(r, 20));
    h.model.enqueue((body) => say(`Hello Alice, you said: ${String(body.messages.at(-1)?.content)}`));
    const ev = hs.message('!dm:oracle.test', '@alice:oracle.test', 'how many stoves?');
    const sent = await hs.waitForSent((s) => s.length >= 1);
    expect(sent[0]).toMatchObject({
      roomId: '!dm:oracle.test',
      txnId: `oraclekit-${ev}`,
      content: {
        msgtype: 'm.text',
        body: 'Hello Alice, you said: how many stoves?',
        'm.relates_to': { 'm.in_reply_to': { event_id: ev } },
      },
    });

    // the conversation continues in the same runtime session
    h.model.enqueue((body) => say(`Turn with ${body.messages.filter((m) => m.role === 'user').length} user messages.`));
    hs.message('!dm:oracle.test', '@alice:oracle.test', 'and now?');
    const s2 = await hs.waitForSent((s) => s.length >= 2);
    expect(s2[1]!.content.body).toBe('Turn with 2 user messages.');
    const sessions = (await h.app.runtime.store.listSessions('matrix:@alice:oracle.test', 10, 0)).sessions;
    expect(sessions.map((s) => s.title)).toEqual(['Matrix !dm:oracle.test']);
  });

  it('in a group room it answers mentions only', async () => {
    hs.invite('!group:oracle.test', '@bob:oracle.test');
    while (!hs.joined.has('!group:oracle.test')) await new Promise((r) => setTimeout(r, 20));
    const before = hs.sent.length;
    h.model.enqueue(say('Answer to the mention.'));
    hs.message('!group:oracle.test', '@bob:oracle.test', 'just chatting among humans', { members: 5 });
    const mention = hs.message('!group:oracle.test', '@carol:oracle.test', 'oracle, what is the weather?', {
      mentions: [hs.userId],
    });
    const sent = await hs.waitForSent((s) => s.length > before);
    expect(sent.slice(before)).toHaveLength(1);
    expect(sent[before]).toMatchObject({
      roomId: '!group:oracle.test',
      content: { body: 'Answer to the mention.', 'm.relates_to': { 'm.in_reply_to': { event_id: mention } } },
    });
  });

  it('mints OpenID tokens of the oracle account for an authenticated client', async () => {
    const u = await h.user();
    const r = await u.req('GET', '/matrix/openid-token');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      access_token: hs.openidTokens.at(-1),
      token_type: 'Bearer',
      matrix_server_name: 'oracle.test',
      expires_in: 3600,
      user_id: hs.userId,
    });
    expect((await fetch(`${h.url}/matrix/openid-token`)).status).toBe(401);
  });
});

describe('matrix failures and boot rules', () => {
  it('a homeserver that is down → pending → failed (reason), boot not hung, /ready 200 once settled', async () => {
    const down = await startHarness({
      env: {
        MATRIX_BASE_URL: 'http://127.0.0.1:1',
        MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: 'syt_whatever_token',
        MATRIX_ORACLE_ADMIN_USER_ID: '@oracle:oracle.test',
        MATRIX_TIMEOUT_MS: '1000',
      },
    });
    try {
      while (down.app.plugins.status().pending.length > 0) await new Promise((r) => setTimeout(r, 20));
      const failed = down.app.plugins.status().failed;
      expect(failed).toEqual([
        {
          plugin: 'matrix',
          reason: expect.stringMatching(/^cannot reach the homeserver \(GET \/account\/whoami\): /),
        },
      ]);
      expect(down.lines).toContain(`[plugin] matrix pending → failed (${failed[0]!.reason})`);
      expect((await fetch(`${down.url}/ready`)).status).toBe(200);
      expect((await (await down.user()).req('GET', '/matrix/openid-token')).body.code).toBe('not_ready');
    } finally {
      await down.close();
    }
  });

  it('a wrong token → failed (M_UNKNOWN_TOKEN: …)', async () => {
    const bad = await startHarness({
      env: {
        MATRIX_BASE_URL: hs.url,
        MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: 'syt_wrong_token',
        MATRIX_ORACLE_ADMIN_USER_ID: hs.userId,
      },
    });
    try {
      while (bad.app.plugins.status().pending.length > 0) await new Promise((r) => setTimeout(r, 20));
      expect(bad.lines).toContain(
        '[plugin] matrix pending → failed (the homeserver (GET /account/whoami) answered HTTP 401 (the credentials are missing, invalid or lack access): M_UNKNOWN_TOKEN: Unrecognised access token)',
      );
      expect(bad.lines.join('\n')).not.toContain('syt_wrong_token');
    } finally {
      await bad.close();
    }
  });

  it('blank variables exclude it; an invalid user id is a boot error', () => {
    const lines: string[] = [];
    const rt = new OracleRuntime({
      config: { name: 'x', oracleDid: 'did:key:z6Mkx' },
      dbPath: ':memory:',
      env: { MATRIX_BASE_URL: '' },
      logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    });
    expect(lines).toContain('[boot] excluded: matrix (MATRIX_BASE_URL)');
    void rt.close();
    expect(
      () =>
        new OracleRuntime({
          config: { name: 'x', oracleDid: 'did:key:z6Mkx' },
          dbPath: ':memory:',
          env: {
            MATRIX_BASE_URL: 'http://127.0.0.1:8008',
            MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: 'syt_abcdefgh',
            MATRIX_ORACLE_ADMIN_USER_ID: 'oracle',
          },
          logger: { info: () => {}, error: () => {} },
        }),
    ).toThrow(
      `[boot-error] Plugin 'matrix' env validation failed for 'MATRIX_ORACLE_ADMIN_USER_ID' = "oracle": must be a Matrix user ID, e.g. @oracle:example.org. Set 'MATRIX_ORACLE_ADMIN_USER_ID' or disable it: features: { matrix: false }`,
    );
  });
});
