/**
 * slack against a loopback Slack (Web API + Socket Mode websocket): mentions
 * and DMs become turns of the agent, replies go to the thread, envelopes are
 * acked, retries answered once, a disconnect reconnects; a bad token or an
 * unreachable Slack fails the plugin without hanging boot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';
import { startSlackServer, type SlackServer } from '../helpers/slack-server.ts';
import { OracleRuntime } from '../../src/runtime/runtime.ts';

let slack: SlackServer;
let h: Harness;

async function settled(x: Harness): Promise<void> {
  while (x.app.plugins.status().pending.length > 0) await new Promise((r) => setTimeout(r, 20));
}

beforeAll(async () => {
  slack = await startSlackServer();
  h = await startHarness({
    env: { SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: slack.appToken, SLACK_API_URL: slack.apiUrl },
  });
  await settled(h);
});
afterAll(async () => {
  await h.close();
  await slack.close();
});

const lastUserText = (body: { messages: { role: string; content: unknown }[] }) =>
  String(body.messages.filter((m) => m.role === 'user').at(-1)?.content);

describe('slack transport', () => {
  it('connects in the background: auth.test, apps.connections.open, hello → loaded; tokens never logged', async () => {
    expect(h.lines).toContain('[plugin] slack pending → loaded');
    expect(h.app.plugins.status().loaded).toContain('slack');
    expect(slack.calls.slice(0, 2)).toEqual(['auth.test', 'apps.connections.open']);
    expect(slack.connections).toBe(1);
    const all = h.lines.join('\n');
    expect(all).not.toContain(slack.botToken);
    expect(all).not.toContain(slack.appToken);
  });

  it('a mention becomes a turn, answered in its thread; a reply in the thread continues the session', async () => {
    h.model.enqueue((body) => say(`You asked: ${lastUserText(body)}`));
    const env = slack.event({
      type: 'app_mention',
      user: 'U100',
      text: '<@UBOT> how many stoves?',
      ts: '1700000000.000100',
      channel: 'C0001',
    });
    await slack.waitFor(() => slack.posted.length >= 1);
    expect(slack.acked.has(env)).toBe(true);
    expect(slack.posted[0]).toMatchObject({
      channel: 'C0001',
      thread_ts: '1700000000.000100',
      text: 'You asked: how many stoves?',
    });

    h.model.enqueue((body) => say(`${body.messages.filter((m) => m.role === 'user').length} messages in this thread`));
    slack.event({
      type: 'app_mention',
      user: 'U100',
      text: '<@UBOT> and in Kisumu?',
      ts: '1700000000.000200',
      thread_ts: '1700000000.000100',
      channel: 'C0001',
    });
    await slack.waitFor(() => slack.posted.length >= 2);
    expect(slack.posted[1]).toMatchObject({
      channel: 'C0001',
      thread_ts: '1700000000.000100',
      text: '2 messages in this thread',
    });
    const sessions = (await h.app.runtime.store.listSessions(`slack:${slack.teamId}:U100`, 10, 0)).sessions;
    expect(sessions.map((s) => s.title)).toEqual(['Slack C0001 1700000000.000100']);
  });

  it('a DM becomes a turn; channel chatter, bot messages, edits and retries of an event are not answered again', async () => {
    const before = slack.posted.length;
    // the DM and the mention run concurrently (different sessions): answer by content
    const answer = (body: Parameters<typeof lastUserText>[0]) =>
      say(lastUserText(body) === 'hi oracle' ? 'Hello in the DM.' : 'Answer to the mention.');
    h.model.enqueue(answer, answer);
    slack.event({
      type: 'message',
      channel_type: 'channel',
      user: 'U200',
      text: 'humans talking',
      ts: '1700000001.000100',
      channel: 'C0002',
    });
    slack.event({
      type: 'message',
      channel_type: 'im',
      bot_id: 'B0001',
      user: 'UBOT',
      text: 'my own message',
      ts: '1700000001.000200',
      channel: 'D0001',
    });
    slack.event({
      type: 'message',
      subtype: 'message_changed',
      channel_type: 'im',
      user: 'U200',
      ts: '1700000001.000300',
      channel: 'D0001',
    });
    slack.event(
      {
        type: 'message',
        channel_type: 'im',
        user: 'U200',
        text: 'hi oracle',
        ts: '1700000001.000400',
        channel: 'D0001',
      },
      { eventId: 'EvDM' },
    );
    slack.event(
      {
        type: 'message',
        channel_type: 'im',
        user: 'U200',
        text: 'hi oracle',
        ts: '1700000001.000400',
        channel: 'D0001',
      },
      { eventId: 'EvDM', retryAttempt: 1 },
    );
    slack.event({ type: 'app_mention', user: 'U200', text: '<@UBOT> ping', ts: '1700000001.000500', channel: 'C0002' });
    await slack.waitFor(() => slack.posted.length >= before + 2);
    const fresh = slack.posted.slice(before);
    expect(fresh.map((p) => [p.channel, p.thread_ts, p.text]).sort()).toEqual([
      ['C0002', '1700000001.000500', 'Answer to the mention.'],
      ['D0001', '1700000001.000400', 'Hello in the DM.'],
    ]);
    // every envelope was acked
    await slack.waitFor(() => slack.acked.size >= 8);
  });

  it('reconnects when Slack asks (disconnect) and keeps answering', async () => {
    slack.disconnect();
    await slack.waitFor(() => slack.connections >= 2);
    // the new connection is the one events are pushed to
    h.model.enqueue(say('Still here.'));
    const before = slack.posted.length;
    slack.event({
      type: 'app_mention',
      user: 'U300',
      text: '<@UBOT> still there?',
      ts: '1700000002.000100',
      channel: 'C0001',
    });
    await slack.waitFor(() => slack.posted.length > before);
    expect(slack.posted.at(-1)).toMatchObject({ text: 'Still here.', thread_ts: '1700000002.000100' });
  });
});

describe('slack failures and boot rules', () => {
  it('a bad bot token → pending → failed (invalid_auth); an unreachable Slack → failed; /ready 200 once settled', async () => {
    const bad = await startHarness({
      env: { SLACK_BOT_TOKEN: 'xoxb-wrong-token', SLACK_APP_TOKEN: slack.appToken, SLACK_API_URL: slack.apiUrl },
    });
    try {
      await settled(bad);
      expect(bad.lines).toContain('[plugin] slack pending → failed (Slack auth.test failed: invalid_auth)');
      expect((await fetch(`${bad.url}/ready`)).status).toBe(200);
      expect(bad.lines.join('\n')).not.toContain('xoxb-wrong-token');
    } finally {
      await bad.close();
    }
    const down = await startHarness({
      env: {
        SLACK_BOT_TOKEN: slack.botToken,
        SLACK_APP_TOKEN: slack.appToken,
        SLACK_API_URL: 'http://127.0.0.1:1/api',
        SLACK_TIMEOUT_MS: '1000',
      },
    });
    try {
      await settled(down);
      expect(down.app.plugins.status().failed).toEqual([
        { plugin: 'slack', reason: expect.stringMatching(/^cannot reach Slack \(auth\.test\): /) },
      ]);
    } finally {
      await down.close();
    }
  });

  it('blank tokens exclude it; a malformed token is a boot error', async () => {
    const lines: string[] = [];
    const rt = new OracleRuntime({
      config: { name: 'x', oracleDid: 'did:key:z6Mkx' },
      dbPath: ':memory:',
      env: { SLACK_BOT_TOKEN: ' ' },
      logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
    });
    expect(lines).toContain('[boot] excluded: slack (SLACK_BOT_TOKEN)');
    await rt.close();
    expect(
      () =>
        new OracleRuntime({
          config: { name: 'x', oracleDid: 'did:key:z6Mkx' },
          dbPath: ':memory:',
          env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xoxp-not-an-app-token' },
          logger: { info: () => {}, error: () => {} },
        }),
    ).toThrow(
      "[boot-error] Plugin 'slack' env validation failed for 'SLACK_APP_TOKEN' = (hidden): must be an app-level token with connections:write (xapp-…). Set 'SLACK_APP_TOKEN' or disable it: features: { slack: false }",
    );
  });
});
