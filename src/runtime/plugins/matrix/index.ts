/**
 * matrix (runtime.md): a Matrix transport. The oracle's Matrix account
 * (MATRIX_ORACLE_ADMIN_USER_ID with MATRIX_ORACLE_ADMIN_ACCESS_TOKEN on
 * MATRIX_BASE_URL) joins the rooms it is invited to and answers there: every
 * message in a direct chat (or a room of two), and messages that mention it
 * in larger rooms. Each (Matrix user, room) is one runtime session; the
 * answer is sent as a reply to the message. Starts in the background
 * (whoami + a first sync): `[plugin] matrix pending → loaded`, or
 * `→ failed (<reason>)`. Route GET /matrix/openid-token mints an OpenID token
 * of the oracle's Matrix account for a client.
 */
import { backoffMs } from '../../../lib/backoff.ts';
import { z } from 'zod';
import { definePlugin, type PluginContext } from '../../plugin.ts';
import { isOracleKitError } from '../../../lib/errors.ts';
import { runtimeError } from '../../../lib/protocol/errors.ts';
import { MatrixClient, type MatrixEvent, type SyncResponse } from './client.ts';

const MatrixEnvSchema = z.object({
  MATRIX_BASE_URL: z
    .string()
    .trim()
    .pipe(z.url({ protocol: /^https?$/, error: 'must be the homeserver URL, e.g. https://matrix.example.org' })),
  MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: z.string().trim().min(8, 'must be an access token'),
  MATRIX_ORACLE_ADMIN_USER_ID: z
    .string()
    .trim()
    .regex(/^@[a-z0-9._=\-/+]+:[A-Za-z0-9.-]+(:\d+)?$/, 'must be a Matrix user ID, e.g. @oracle:example.org'),
  MATRIX_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  MATRIX_SYNC_TIMEOUT_MS: z.coerce.number().int().min(0).max(120_000).default(30_000),
});
type MatrixEnv = z.infer<typeof MatrixEnvSchema>;

class MatrixTransport {
  readonly client: MatrixClient;
  readonly ctx: PluginContext<MatrixEnv>;
  readonly userId: string;
  private since: string | undefined;
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly direct = new Set<string>();
  private readonly members = new Map<string, number>();
  private readonly chains = new Map<string, Promise<void>>();

  constructor(ctx: PluginContext<MatrixEnv>) {
    this.ctx = ctx;
    this.userId = ctx.env.MATRIX_ORACLE_ADMIN_USER_ID;
    this.client = new MatrixClient({
      baseUrl: ctx.env.MATRIX_BASE_URL,
      token: ctx.env.MATRIX_ORACLE_ADMIN_ACCESS_TOKEN,
      timeoutMs: ctx.env.MATRIX_TIMEOUT_MS,
    });
  }

  async start(): Promise<void> {
    const me = await this.client.whoami();
    if (me.user_id !== this.userId)
      throw new Error(`the access token belongs to ${me.user_id}, not MATRIX_ORACLE_ADMIN_USER_ID ${this.userId}`);
    // the first sync only sets the position (no answers to old messages) and joins pending invites
    const first = await this.client.sync(undefined, 0);
    this.since = first.next_batch;
    await this.handleInvites(first);
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopper.signal.aborted) {
      try {
        const r = await this.client.sync(this.since, this.ctx.env.MATRIX_SYNC_TIMEOUT_MS, this.stopper.signal);
        this.since = r.next_batch;
        failures = 0;
        await this.handleInvites(r);
        this.handleMessages(r);
      } catch (e) {
        if (this.stopper.signal.aborted) return;
        if (failures === 0) this.ctx.log.warn({ err: (e as Error).message }, 'sync failed, retrying');
        await new Promise((res) => setTimeout(res, backoffMs(failures++, { baseMs: 250, maxMs: 10_000 })));
      }
    }
  }

  private async handleInvites(r: SyncResponse): Promise<void> {
    for (const [roomId, inv] of Object.entries(r.rooms?.invite ?? {})) {
      const me = (inv.invite_state?.events ?? []).find(
        (e) => e.type === 'm.room.member' && e.state_key === this.userId,
      );
      if (me?.content.is_direct === true) this.direct.add(roomId);
      try {
        await this.client.join(roomId);
      } catch {
        // a room we cannot join is skipped
      }
    }
  }

  private addressed(roomId: string, e: MatrixEvent): boolean {
    if (this.direct.has(roomId) || (this.members.get(roomId) ?? 3) <= 2) return true;
    const mentions = (e.content['m.mentions'] as { user_ids?: unknown } | undefined)?.user_ids;
    if (Array.isArray(mentions) && mentions.includes(this.userId)) return true;
    const body = String(e.content.body ?? '');
    const local = this.userId.slice(1).split(':')[0]!;
    return (
      body.includes(this.userId) ||
      new RegExp(`(^|\\W)@?${local.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(body)
    );
  }

  private handleMessages(r: SyncResponse): void {
    for (const [roomId, room] of Object.entries(r.rooms?.join ?? {})) {
      const count = room.summary?.['m.joined_member_count'];
      if (typeof count === 'number') this.members.set(roomId, count);
      for (const e of room.timeline?.events ?? []) {
        if (e.type !== 'm.room.message' || e.sender === this.userId || !e.event_id) continue;
        if (e.content.msgtype !== 'm.text' || typeof e.content.body !== 'string' || e.content.body.trim() === '')
          continue;
        if (!this.addressed(roomId, e)) continue;
        const key = `${roomId}|${e.sender}`;
        const prev = this.chains.get(key) ?? Promise.resolve();
        const next = prev.then(() => this.answer(roomId, e)).catch(() => {});
        this.chains.set(key, next);
      }
    }
  }

  /** One runtime session per (Matrix user, room), found again by its title. */
  private async session(userDid: string, roomId: string): Promise<string> {
    const title = `Matrix ${roomId}`;
    const found = (await this.ctx.store.listSessions(userDid, 100, 0)).sessions.find((s) => s.title === title);
    return found?.sessionId ?? (await this.ctx.store.createSession(userDid, title)).sessionId;
  }

  private async answer(roomId: string, e: MatrixEvent): Promise<void> {
    const userDid = `matrix:${e.sender}`;
    const sessionId = await this.session(userDid, roomId);
    let text: string;
    try {
      const run = await this.ctx.host.startTurn(userDid, sessionId, {
        message: String(e.content.body),
        metadata: { matrix: { roomId, eventId: e.event_id, sender: e.sender } },
      });
      const status = await run.done;
      text = run.text || (status === 'finished' ? '(no answer)' : 'Sorry, I could not answer that just now.');
    } catch (err) {
      text = isOracleKitError(err) ? `Sorry: ${err.message}` : 'Sorry, I could not answer that just now.';
    }
    await this.client.send(roomId, `oraclekit-${e.event_id}`, {
      msgtype: 'm.text',
      body: text,
      'm.relates_to': { 'm.in_reply_to': { event_id: e.event_id } },
    });
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop?.catch(() => {});
    await Promise.race([
      Promise.allSettled([...this.chains.values()]),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
  }
}

const transports = new WeakMap<object, MatrixTransport>();

export const matrixPlugin = definePlugin<MatrixEnv>({
  name: 'matrix',
  version: '1.0.0',
  manifest: {
    title: 'Matrix',
    summary:
      'Answers in Matrix rooms (direct chats and mentions) and mints OpenID tokens of the oracle’s Matrix account for clients.',
    whenToUse: ['messages arrive from Matrix rooms the oracle has joined'],
    visibility: 'silent',
    stability: 'beta',
    category: 'messaging',
    defaultState: 'on',
    dependsOn: [],
  },
  requiredEnv: ['MATRIX_BASE_URL', 'MATRIX_ORACLE_ADMIN_ACCESS_TOKEN', 'MATRIX_ORACLE_ADMIN_USER_ID'],
  envSchema: MatrixEnvSchema,
  start: async (ctx) => {
    const t = new MatrixTransport(ctx);
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
  routes: (app, ctx) => {
    app.get('/matrix/openid-token', async () => {
      const t = transports.get(ctx);
      if (!t) throw runtimeError('not_ready', 'the matrix plugin is not connected to its homeserver');
      try {
        const tok = await t.client.openidToken(t.userId);
        return { ...tok, user_id: t.userId };
      } catch (e) {
        throw runtimeError('upstream_error', (e as Error).message);
      }
    });
  },
});
