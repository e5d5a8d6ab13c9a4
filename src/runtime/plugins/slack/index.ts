/**
 * slack (runtime.md): a Slack transport over Socket Mode. The bot
 * (SLACK_BOT_TOKEN, xoxb-) answers; the app token (SLACK_APP_TOKEN, xapp-)
 * opens the Socket Mode websocket (apps.connections.open). Every app_mention
 * and every direct message (message.im) becomes a turn of the agent; the
 * answer goes to the thread (chat.postMessage with thread_ts). One runtime
 * session per Slack user and thread (or DM channel). Each envelope is acked
 * at once; Slack's retries of an event are answered once. Starts in the
 * background (auth.test, then the socket's hello): pending → loaded/failed.
 */
import { backoffMs } from '../../../lib/backoff.ts';
import { z } from 'zod';
import { definePlugin, type PluginContext } from '../../plugin.ts';
import { isOracleKitError } from '../../../lib/errors.ts';
import { fetchJson, upstreamReplyError } from '../../../lib/fetch-json.ts';

const SlackEnvSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string()
    .trim()
    .regex(/^xoxb-[\w-]+$/, 'must be a bot token (xoxb-…)'),
  SLACK_APP_TOKEN: z
    .string()
    .trim()
    .regex(/^xapp-[\w-]+$/, 'must be an app-level token with connections:write (xapp-…)'),
  SLACK_API_URL: z.url({ protocol: /^https?$/ }).default('https://slack.com/api'),
  SLACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
});
type SlackEnv = z.infer<typeof SlackEnvSchema>;

interface SlackEvent {
  type: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  channel?: string;
  channel_type?: string;
}

class SlackTransport {
  readonly ctx: PluginContext<SlackEnv>;
  botUserId = '';
  teamId = '';
  private ws: WebSocket | undefined;
  private stopped = false;
  private readonly seen = new Set<string>();
  private readonly chains = new Map<string, Promise<void>>();
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(ctx: PluginContext<SlackEnv>) {
    this.ctx = ctx;
  }

  /** One Web API call: time-out, {ok:false,error} → an Error with the Slack error code. */
  async api<T>(method: string, token: string, body?: Record<string, unknown>): Promise<T> {
    const base = this.ctx.env.SLACK_API_URL.replace(/\/+$/, '');
    const res = await fetchJson<{ ok?: boolean; error?: string }>({
      method: 'POST',
      url: `${base}/${method}`,
      bearer: token,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: body ?? {},
      timeoutMs: this.ctx.env.SLACK_TIMEOUT_MS,
      what: `Slack (${method})`,
    });
    // a non-2xx reply (a 429 with its Retry-After too) is the one upstream-error shape of the outbound helper
    if (!res.ok) throw upstreamReplyError(`Slack (${method})`, `${base}/${method}`, res);
    if (!res.json) throw new Error(`Slack answered ${method} with HTTP ${res.status} and no JSON`);
    const b = res.body;
    if (!b?.ok) throw new Error(`Slack ${method} failed: ${b?.error ?? `HTTP ${res.status}`}`);
    return b as T;
  }

  async start(): Promise<void> {
    const who = await this.api<{ user_id: string; team_id: string }>('auth.test', this.ctx.env.SLACK_BOT_TOKEN);
    this.botUserId = who.user_id;
    this.teamId = who.team_id;
    await this.connect();
  }

  /** apps.connections.open → websocket → waits for hello. */
  private async connect(): Promise<void> {
    const { url } = await this.api<{ url: string }>('apps.connections.open', this.ctx.env.SLACK_APP_TOKEN);
    const ws = new WebSocket(url);
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => {
        ws.close();
        reject(new Error(`the Socket Mode connection sent no hello within ${this.ctx.env.SLACK_TIMEOUT_MS} ms`));
      }, this.ctx.env.SLACK_TIMEOUT_MS);
      let hello = false;
      ws.addEventListener('message', (m) => {
        let msg: {
          type?: string;
          envelope_id?: string;
          payload?: { event?: SlackEvent; event_id?: string; team_id?: string };
        };
        try {
          msg = JSON.parse(String(m.data)) as typeof msg;
        } catch {
          return;
        }
        if (msg.type === 'hello') {
          hello = true;
          clearTimeout(t);
          resolve();
        } else if (msg.type === 'disconnect') {
          this.reconnect(0, true);
        } else if (msg.envelope_id) {
          ws.send(JSON.stringify({ envelope_id: msg.envelope_id })); // ack at once
          if (msg.type === 'events_api' && msg.payload?.event)
            this.onEvent(msg.payload.event, msg.payload.event_id ?? msg.envelope_id);
        }
      });
      ws.addEventListener('error', () => {
        if (!hello) {
          clearTimeout(t);
          reject(new Error('the Socket Mode websocket failed to connect'));
        }
      });
      ws.addEventListener('close', () => {
        if (hello && this.ws === ws) this.reconnect(0);
      });
    });
  }

  /** Reconnects at once (`now`: Slack asked to) or after 1 s, then after 1 s doubling to 30 s while it fails. */
  private reconnect(attempt: number, now = false): void {
    if (this.stopped || this.reconnectTimer) return;
    const old = this.ws;
    this.reconnectTimer = setTimeout(
      () => {
        this.reconnectTimer = undefined;
        this.connect()
          .then(() => old?.close())
          .catch(() => this.reconnect(now ? attempt : attempt + 1));
      },
      now ? 0 : backoffMs(attempt, { baseMs: 1000, maxMs: 30_000 }),
    );
  }

  private onEvent(e: SlackEvent, eventId: string): void {
    if (this.seen.has(eventId)) return; // a retry of an event already handled
    this.seen.add(eventId);
    if (this.seen.size > 1000) this.seen.delete(this.seen.values().next().value!);
    if (!e.channel || !e.ts || !e.user || e.bot_id || e.user === this.botUserId || e.subtype) return;
    const dm = e.type === 'message' && e.channel_type === 'im';
    if (e.type !== 'app_mention' && !dm) return;
    const text = (e.text ?? '').replaceAll(`<@${this.botUserId}>`, '').trim();
    if (!text) return;
    const thread = e.thread_ts ?? e.ts;
    const key = dm && !e.thread_ts ? `${e.user}|${e.channel}` : `${e.user}|${e.channel}|${thread}`;
    const prev = this.chains.get(key) ?? Promise.resolve();
    this.chains.set(
      key,
      prev
        .then(() =>
          this.answer(e as Required<Pick<SlackEvent, 'user' | 'channel' | 'ts'>> & SlackEvent, text, thread, dm),
        )
        .catch(() => {}),
    );
  }

  private async session(userDid: string, title: string): Promise<string> {
    const found = (await this.ctx.store.listSessions(userDid, 100, 0)).sessions.find((s) => s.title === title);
    return found?.sessionId ?? (await this.ctx.store.createSession(userDid, title)).sessionId;
  }

  private async answer(
    e: SlackEvent & { user: string; channel: string; ts: string },
    text: string,
    thread: string,
    dm: boolean,
  ): Promise<void> {
    const userDid = `slack:${this.teamId}:${e.user}`;
    const sessionId = await this.session(
      userDid,
      dm && !e.thread_ts ? `Slack DM ${e.channel}` : `Slack ${e.channel} ${thread}`,
    );
    let reply: string;
    try {
      const run = await this.ctx.host.startTurn(userDid, sessionId, {
        message: text,
        metadata: { slack: { channel: e.channel, ts: e.ts, threadTs: thread, user: e.user } },
      });
      const status = await run.done;
      reply = run.text || (status === 'finished' ? '(no answer)' : 'Sorry, I could not answer that just now.');
    } catch (err) {
      reply = isOracleKitError(err) ? `Sorry: ${err.message}` : 'Sorry, I could not answer that just now.';
    }
    try {
      await this.api('chat.postMessage', this.ctx.env.SLACK_BOT_TOKEN, {
        channel: e.channel,
        text: reply,
        thread_ts: thread,
      });
    } catch (err) {
      this.ctx.log.warn({ channel: e.channel, err: (err as Error).message }, 'reply not posted');
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.ws?.close();
    await Promise.race([
      Promise.allSettled([...this.chains.values()]),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
  }
}

const transports = new WeakMap<object, SlackTransport>();

export const slackPlugin = definePlugin<SlackEnv>({
  name: 'slack',
  version: '1.0.0',
  manifest: {
    title: 'Slack',
    summary: 'Answers in Slack: mentions of the bot and direct messages become turns; replies go to the thread.',
    whenToUse: ['messages arrive from Slack (mentions, DMs)'],
    visibility: 'silent',
    stability: 'beta',
    category: 'messaging',
    defaultState: 'on',
    dependsOn: [],
  },
  requiredEnv: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'],
  envSchema: SlackEnvSchema,
  start: async (ctx) => {
    const t = new SlackTransport(ctx);
    try {
      await t.start();
    } catch (e) {
      await t.stop();
      throw e;
    }
    transports.set(ctx, t);
  },
  stop: async (ctx) => {
    await transports.get(ctx)?.stop();
    transports.delete(ctx);
  },
});
