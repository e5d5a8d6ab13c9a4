/**
 * Slack on loopback, with the Web API and Socket Mode shapes the slack plugin
 * uses: POST /api/auth.test (bot token), POST /api/apps.connections.open (app
 * token) → {ok, url} of a websocket, POST /api/chat.postMessage. Web API
 * errors are HTTP 200 {ok:false, error}. The websocket sends `hello`, then
 * the test pushes `events_api` envelopes; the client must ack each
 * {envelope_id}. `disconnect` asks the client to reconnect.
 */
import { listenLoopback } from './loopback.ts';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';

interface Posted {
  channel: string;
  text: string;
  thread_ts?: string;
  ts: string;
}

export interface SlackServer {
  url: string;
  apiUrl: string;
  botToken: string;
  appToken: string;
  teamId: string;
  botUserId: string;
  posted: Posted[];
  acked: Set<string>;
  connections: number;
  calls: string[];
  /** Pushes an Events API event over the open socket; returns the envelope id. */
  event(event: Record<string, unknown>, opts?: { retryAttempt?: number; eventId?: string }): string;
  /** Asks the client to reconnect (as Slack does before rotating a connection). */
  disconnect(): void;
  waitFor(pred: () => boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startSlackServer(): Promise<SlackServer> {
  const botToken = 'xoxb-1111-2222-bot-secret';
  const appToken = 'xapp-1-A0001-3333-app-secret';
  const teamId = 'T0001';
  const botUserId = 'UBOT';
  const channels = new Set(['C0001', 'C0002', 'D0001']);
  let seq = 0;
  const sockets = new Set<WebSocket>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  const self: SlackServer = {
    url: '',
    apiUrl: '',
    botToken,
    appToken,
    teamId,
    botUserId,
    posted: [],
    acked: new Set(),
    connections: 0,
    calls: [],
    event(event, o = {}) {
      const envelope_id = randomUUID();
      const msg = {
        envelope_id,
        payload: {
          token: 'verification',
          team_id: teamId,
          api_app_id: 'A0001',
          event: { event_ts: event.ts, ...event },
          type: 'event_callback',
          event_id: o.eventId ?? `Ev${++seq}`,
          event_time: Math.floor(Date.now() / 1000),
        },
        type: 'events_api',
        accept_response_payload: false,
        retry_attempt: o.retryAttempt ?? 0,
        retry_reason: o.retryAttempt ? 'timeout' : '',
      };
      const ws = [...sockets].at(-1);
      if (!ws) throw new Error('no socket mode connection');
      ws.send(JSON.stringify(msg));
      return envelope_id;
    },
    disconnect() {
      for (const ws of sockets)
        ws.send(
          JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'applink-test' } }),
        );
    },
    waitFor(pred) {
      return new Promise((resolve) => {
        const check = () => {
          if (pred()) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
      });
    },
    close: async () => {},
  };

  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    let raw = '';
    for await (const c of req) raw += c;
    if (!raw) return {};
    if ((req.headers['content-type'] ?? '').includes('application/json'))
      return JSON.parse(raw) as Record<string, unknown>;
    return Object.fromEntries(new URLSearchParams(raw));
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const body = await readBody(req);
      const method = u.pathname.replace(/^\/api\//, '');
      self.calls.push(method);
      const send = (b: unknown, status = 200) =>
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(b));
      const auth = req.headers.authorization ?? '';
      if (req.method !== 'POST') return send({ ok: false, error: 'method_not_supported_for_channel_type' });
      if (method === 'auth.test') {
        if (auth !== `Bearer ${botToken}`) return send({ ok: false, error: 'invalid_auth' });
        return send({
          ok: true,
          url: 'https://oracle-test.slack.com/',
          team: 'Oracle Test',
          user: 'oraclebot',
          team_id: teamId,
          user_id: botUserId,
          bot_id: 'B0001',
          is_enterprise_install: false,
        });
      }
      if (method === 'apps.connections.open') {
        if (auth !== `Bearer ${appToken}`) return send({ ok: false, error: 'invalid_auth' });
        return send({ ok: true, url: `${self.url.replace('http', 'ws')}/link/?ticket=${randomUUID()}&app_id=A0001` });
      }
      if (method === 'chat.postMessage') {
        if (auth !== `Bearer ${botToken}`) return send({ ok: false, error: 'invalid_auth' });
        const channel = String(body.channel ?? '');
        if (!channels.has(channel)) return send({ ok: false, error: 'channel_not_found' });
        if (!body.text) return send({ ok: false, error: 'no_text' });
        const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
        const p: Posted = {
          channel,
          text: String(body.text),
          ts,
          ...(body.thread_ts ? { thread_ts: String(body.thread_ts) } : {}),
        };
        self.posted.push(p);
        notify();
        return send({
          ok: true,
          channel,
          ts,
          message: {
            type: 'message',
            text: p.text,
            user: botUserId,
            bot_id: 'B0001',
            ts,
            ...(p.thread_ts ? { thread_ts: p.thread_ts } : {}),
          },
        });
      }
      return send({ ok: false, error: 'unknown_method' }, 404);
    })();
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!(req.url ?? '').startsWith('/link/')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      self.connections++;
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString()) as { envelope_id?: string };
        if (m.envelope_id) self.acked.add(m.envelope_id);
        notify();
      });
      ws.send(
        JSON.stringify({
          type: 'hello',
          num_connections: sockets.size,
          debug_info: { host: 'applink-test', build_number: 1, approximate_connection_time: 18060 },
          connection_info: { app_id: 'A0001' },
        }),
      );
      notify();
    });
  });
  const l = await listenLoopback(server);
  self.url = l.url;
  self.apiUrl = `${self.url}/api`;
  self.close = async () => {
    for (const ws of sockets) ws.terminate();
    wss.close();
    await l.close();
  };
  return self;
}
