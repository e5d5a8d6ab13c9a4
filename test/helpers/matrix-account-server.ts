/**
 * A loopback homeserver speaking the Matrix client-server API shapes the
 * scaffolder uses: POST /_matrix/client/v3/register with user-interactive
 * auth (401 {session, flows} then a completed stage), M_USER_IN_USE for an
 * existing user, POST /login (m.login.password), GET /account/whoami.
 */
import { listenLoopback } from './loopback.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';

interface Homeserver {
  url: string;
  serverName: string;
  users: Map<string, { password: string }>;
  tokens: Map<string, string>;
  requests: { method: string; path: string; body: unknown }[];
  /** Called when a request arrives; resolve the returned promise to let it proceed. */
  gate?: (path: string) => Promise<void>;
  close(): Promise<void>;
}

export async function startHomeserver(
  o: { flows?: string[][]; registrationToken?: string; serverName?: string } = {},
): Promise<Homeserver> {
  const flows = o.flows ?? [['m.login.dummy']];
  const sessions = new Set<string>();
  const hs: Homeserver = {
    url: '',
    serverName: o.serverName ?? 'localhost',
    users: new Map(),
    tokens: new Map(),
    requests: [],
    close: async () => {},
  };
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    let raw = '';
    for await (const c of req) raw += c;
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    hs.requests.push({ method: req.method ?? '', path, body });
    if (hs.gate) await hs.gate(path);
    const issue = (user: string) => {
      const token = `syt_${randomBytes(12).toString('hex')}`;
      hs.tokens.set(token, `@${user}:${hs.serverName}`);
      return { user_id: `@${user}:${hs.serverName}`, access_token: token, device_id: 'DEV' };
    };
    if (req.method === 'POST' && path === '/_matrix/client/v3/register') {
      const user = String(body?.username ?? '');
      if (!/^[a-z0-9._=\-/]+$/.test(user))
        return send(res, 400, { errcode: 'M_INVALID_USERNAME', error: 'invalid username' });
      if (hs.users.has(user)) return send(res, 400, { errcode: 'M_USER_IN_USE', error: 'User ID already taken.' });
      const auth = body?.auth as { type?: string; session?: string; token?: string } | undefined;
      if (!auth || !auth.session || !sessions.has(auth.session)) {
        const session = randomBytes(8).toString('hex');
        sessions.add(session);
        return send(res, 401, { session, flows: flows.map((stages) => ({ stages })), params: {} });
      }
      const allowed = flows.some((f) => f.length === 1 && f[0] === auth.type);
      if (!allowed)
        return send(res, 401, {
          errcode: 'M_UNAUTHORIZED',
          error: 'stage not allowed',
          session: auth.session,
          flows: flows.map((stages) => ({ stages })),
        });
      if (auth.type === 'm.login.registration_token' && auth.token !== o.registrationToken)
        return send(res, 401, {
          errcode: 'M_FORBIDDEN',
          error: 'bad token',
          session: auth.session,
          flows: flows.map((stages) => ({ stages })),
        });
      sessions.delete(auth.session);
      hs.users.set(user, { password: String(body?.password ?? '') });
      return send(res, 200, issue(user));
    }
    if (req.method === 'POST' && path === '/_matrix/client/v3/login') {
      const id = body?.identifier as { user?: string } | undefined;
      const user = String(id?.user ?? '')
        .replace(/^@/, '')
        .split(':')[0]!;
      const u = hs.users.get(user);
      if (body?.type !== 'm.login.password' || !u || u.password !== body?.password)
        return send(res, 403, { errcode: 'M_FORBIDDEN', error: 'Invalid username or password' });
      return send(res, 200, issue(user));
    }
    if (req.method === 'GET' && path === '/_matrix/client/v3/account/whoami') {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const who = hs.tokens.get(token);
      if (!who) return send(res, 401, { errcode: 'M_UNKNOWN_TOKEN', error: 'Unknown token' });
      return send(res, 200, { user_id: who, device_id: 'DEV' });
    }
    return send(res, 404, { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' });
  });
  const l = await listenLoopback(server);
  hs.url = l.url;
  hs.close = l.close;
  return hs;
}
