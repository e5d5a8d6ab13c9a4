/**
 * A Matrix homeserver on loopback that speaks the client-server API shapes
 * the matrix plugin uses: GET /_matrix/client/v3/account/whoami, GET /sync
 * (long-poll with since/timeout, rooms.join timelines, rooms.invite),
 * POST /join/{roomId}, PUT /rooms/{roomId}/send/m.room.message/{txnId}
 * (idempotent per txnId), POST /user/{userId}/openid/request_token. Errors are
 * {errcode, error} with the real status codes. Tests push events and read
 * what the oracle sent.
 */
import { listenLoopback } from './loopback.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

interface MatrixEvent {
  type: string;
  event_id: string;
  sender: string;
  origin_server_ts: number;
  content: Record<string, unknown>;
  state_key?: string;
}

interface SentMessage {
  roomId: string;
  txnId: string;
  eventId: string;
  content: { msgtype: string; body: string; 'm.relates_to'?: { 'm.in_reply_to'?: { event_id: string } } };
}

export interface MatrixServer {
  url: string;
  serverName: string;
  userId: string;
  token: string;
  /** Requests received, by path. */
  requests: { method: string; path: string }[];
  sent: SentMessage[];
  joined: Set<string>;
  openidTokens: string[];
  /** While true, whoami waits (to observe a pending plugin). */
  hold(): () => void;
  invite(roomId: string, inviter: string, opts?: { isDirect?: boolean }): void;
  /** Pushes an m.room.message into a room's timeline; returns its event id. */
  message(roomId: string, sender: string, body: string, opts?: { mentions?: string[]; members?: number }): string;
  /** Resolves when pred holds on what the oracle sent (checked at each send). */
  waitForSent(pred: (sent: SentMessage[]) => boolean): Promise<SentMessage[]>;
  close(): Promise<void>;
}

export async function startMatrixServer(opts: { userId?: string; token?: string } = {}): Promise<MatrixServer> {
  const serverName = 'oracle.test';
  const userId = opts.userId ?? `@oracle:${serverName}`;
  const token = opts.token ?? 'syt_admin_secret_token';
  let seq = 0;
  let batch = 0;
  // pending sync data, delivered at the next sync
  const joinTimeline = new Map<string, { events: MatrixEvent[]; members?: number }>();
  const invites = new Map<string, MatrixEvent[]>();
  const syncWaiters = new Set<() => void>();
  const sentWaiters = new Set<() => void>();
  let holdGate: Promise<void> | undefined;
  const wake = () => {
    for (const w of [...syncWaiters]) w();
  };

  const self: MatrixServer = {
    url: '',
    serverName,
    userId,
    token,
    requests: [],
    sent: [],
    joined: new Set(),
    openidTokens: [],
    hold() {
      let release!: () => void;
      holdGate = new Promise<void>((r) => (release = r));
      return () => {
        holdGate = undefined;
        release();
      };
    },
    invite(roomId, inviter, o = {}) {
      invites.set(roomId, [
        {
          type: 'm.room.member',
          state_key: userId,
          sender: inviter,
          event_id: `$inv${++seq}`,
          origin_server_ts: Date.now(),
          content: { membership: 'invite', ...(o.isDirect ? { is_direct: true } : {}) },
        },
      ]);
      wake();
    },
    message(roomId, sender, body, o = {}) {
      const event_id = `$ev${++seq}:${serverName}`;
      const content: Record<string, unknown> = { msgtype: 'm.text', body };
      if (o.mentions) content['m.mentions'] = { user_ids: o.mentions };
      const cur = joinTimeline.get(roomId) ?? { events: [] };
      cur.events.push({ type: 'm.room.message', event_id, sender, origin_server_ts: Date.now(), content });
      if (o.members !== undefined) cur.members = o.members;
      joinTimeline.set(roomId, cur);
      wake();
      return event_id;
    },
    waitForSent(pred) {
      return new Promise((resolve) => {
        const check = () => {
          if (pred(self.sent)) {
            sentWaiters.delete(check);
            resolve(self.sent);
          }
        };
        sentWaiters.add(check);
        check();
      });
    },
    close: async () => {},
  };

  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const open = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(u.pathname);
    self.requests.push({ method: req.method ?? 'GET', path });
    let raw = '';
    for await (const c of req) raw += c;
    const auth = req.headers.authorization;
    if (!auth) return json(res, 401, { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' });
    if (auth !== `Bearer ${token}`)
      return json(res, 401, { errcode: 'M_UNKNOWN_TOKEN', error: 'Unrecognised access token', soft_logout: false });
    const p = '/_matrix/client/v3';
    if (req.method === 'GET' && path === `${p}/account/whoami`) {
      if (holdGate) await holdGate;
      return json(res, 200, { user_id: userId, device_id: 'ORACLEDEVICE', is_guest: false });
    }
    if (req.method === 'GET' && path === `${p}/sync`) {
      const since = u.searchParams.get('since');
      const timeout = Math.min(Number(u.searchParams.get('timeout') ?? 0), 30_000);
      const has = () => joinTimeline.size > 0 || invites.size > 0;
      if (since !== null && !has() && timeout > 0) {
        open.add(res);
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, timeout);
          function done() {
            clearTimeout(t);
            syncWaiters.delete(done);
            resolve();
          }
          syncWaiters.add(done);
          res.on('close', done);
        });
        open.delete(res);
        if (res.destroyed) return;
      }
      const join: Record<string, unknown> = {};
      for (const [roomId, t] of joinTimeline) {
        if (!self.joined.has(roomId)) continue;
        join[roomId] = {
          timeline: { events: t.events, limited: false, prev_batch: `p${batch}` },
          state: { events: [] },
          ...(t.members !== undefined ? { summary: { 'm.joined_member_count': t.members } } : {}),
          ephemeral: { events: [] },
          account_data: { events: [] },
        };
        joinTimeline.delete(roomId);
      }
      const invite: Record<string, unknown> = {};
      for (const [roomId, events] of invites) invite[roomId] = { invite_state: { events } };
      invites.clear();
      return json(res, 200, {
        next_batch: `s${++batch}`,
        rooms: { join, invite, leave: {} },
        presence: { events: [] },
        account_data: { events: [] },
      });
    }
    let m = /^\/_matrix\/client\/v3\/join\/(.+)$/.exec(path);
    if (req.method === 'POST' && m) {
      self.joined.add(m[1]!);
      return json(res, 200, { room_id: m[1] });
    }
    m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/.exec(path);
    if (req.method === 'PUT' && m) {
      const [, roomId, txnId] = m as unknown as [string, string, string];
      if (!self.joined.has(roomId))
        return json(res, 403, { errcode: 'M_FORBIDDEN', error: `User ${userId} not in room ${roomId}` });
      const dup = self.sent.find((s) => s.roomId === roomId && s.txnId === txnId);
      if (dup) return json(res, 200, { event_id: dup.eventId });
      const eventId = `$sent${++seq}:${serverName}`;
      self.sent.push({ roomId, txnId, eventId, content: JSON.parse(raw) as SentMessage['content'] });
      for (const w of [...sentWaiters]) w();
      return json(res, 200, { event_id: eventId });
    }
    m = /^\/_matrix\/client\/v3\/user\/([^/]+)\/openid\/request_token$/.exec(path);
    if (req.method === 'POST' && m) {
      if (m[1] !== userId)
        return json(res, 403, { errcode: 'M_FORBIDDEN', error: 'Cannot request tokens for other users.' });
      const t = `openid_${++seq}`;
      self.openidTokens.push(t);
      return json(res, 200, {
        access_token: t,
        token_type: 'Bearer',
        matrix_server_name: serverName,
        expires_in: 3600,
      });
    }
    return json(res, 404, { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => json(res, 500, { errcode: 'M_UNKNOWN', error: String(e) }));
  });
  const l = await listenLoopback(server);
  self.url = l.url;
  self.close = async () => {
    for (const w of [...syncWaiters]) w();
    for (const r of open) r.destroy();
    await l.close();
  };
  return self;
}
