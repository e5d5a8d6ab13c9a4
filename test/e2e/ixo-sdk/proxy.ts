/**
 * A recording HTTP proxy on loopback in front of the runtime: the SDK talks
 * to it (`overrides.baseUrl` / `wsUrl`) so the suite sees every reply the SDK
 * got (status, and the error body's code) — the SDK itself keeps neither —
 * and can drop a live SSE stream mid-turn the way a flaky network does
 * (the client's socket is destroyed after the N-th `message` frame).
 * WebSocket upgrades (socket.io) are piped through untouched.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { listenLoopback } from '../../helpers/loopback.ts';

interface Exchange {
  method: string;
  path: string;
  status: number;
  /** The error body's `code` (non-2xx JSON replies). */
  code?: string;
  /** Request headers as the SDK sent them (lower-case names). */
  headers: IncomingMessage['headers'];
  /** The request body as sent ('' when none). */
  body: string;
  /** Reply headers. */
  responseHeaders?: IncomingMessage['headers'];
  /** SSE replies: the stream was cut by the proxy. */
  dropped?: boolean;
}

interface Hold {
  /** Requests waiting. */
  held(): number;
  /** Lets the held requests (and later ones) through. */
  release(): void;
}

export interface Proxy {
  url: string;
  log: Exchange[];
  /** Cut the next SSE reply of `POST /messages/:id` after `afterMessages` `message` frames. */
  dropNextStream(afterMessages: number): void;
  /**
   * Replaces the `Authorization` of requests whose path matches with what
   * `mint` returns (a diagnostic: what a request would get with a fresh credential).
   */
  reauthorize(path: RegExp, mint: () => Promise<string>): void;
  /** Holds `GET` requests whose path matches until released (e.g. the history refetch after a turn). */
  hold(path: RegExp): Hold;
  close(): Promise<void>;
}

export async function startProxy(target: string): Promise<Proxy> {
  const t = new URL(target);
  const log: Exchange[] = [];
  let dropAfter: number | null = null;
  let holding: { path: RegExp; waiting: (() => void)[] } | null = null;
  let reauth: { path: RegExp; mint: () => Promise<string> } | null = null;
  const sockets = new Set<Socket>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (holding && req.method === 'GET' && holding.path.test(req.url ?? '')) holding.waiting.push(forward);
      else forward();
    });
    const forward = () => {
      if (reauth?.path.test(req.url ?? '')) {
        void reauth.mint().then(
          (token) => {
            req.headers.authorization = `Bearer ${token}`;
            send();
          },
          () => res.destroy(),
        );
      } else send();
    };
    const send = () => {
      const body = Buffer.concat(chunks);
      const ex: Exchange = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        status: 0,
        headers: req.headers,
        body: body.toString('utf8'),
      };
      log.push(ex);
      const up = httpRequest(
        {
          host: t.hostname,
          port: t.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: t.host },
        },
        (upRes) => {
          ex.status = upRes.statusCode ?? 0;
          ex.responseHeaders = upRes.headers;
          res.writeHead(ex.status, upRes.headers);
          const isStream = String(upRes.headers['content-type'] ?? '').startsWith('text/event-stream');
          const cut =
            isStream && ex.method === 'POST' && ex.path.startsWith('/messages/') && dropAfter !== null
              ? dropAfter
              : null;
          if (cut !== null) dropAfter = null;
          if (ex.status >= 400) {
            const err: Buffer[] = [];
            upRes.on('data', (c: Buffer) => err.push(c));
            upRes.on('end', () => {
              const text = Buffer.concat(err).toString('utf8');
              try {
                ex.code = (JSON.parse(text) as { code?: string }).code;
              } catch {
                /* not JSON */
              }
              res.end(text);
            });
            return;
          }
          if (cut === null) {
            upRes.pipe(res);
            return;
          }
          // forward whole frames; after the cut-th `message` frame destroy both sides
          let buf = '';
          let messages = 0;
          upRes.setEncoding('utf8');
          upRes.on('data', (c: string) => {
            if (ex.dropped) return;
            buf += c;
            let i: number;
            while ((i = buf.indexOf('\n\n')) >= 0) {
              const frame = buf.slice(0, i + 2);
              buf = buf.slice(i + 2);
              if (/^event: message$/m.test(frame)) messages++;
              if (messages >= cut) {
                // the frame reaches the client, then the connection is gone (no end of stream, no done frame)
                ex.dropped = true;
                upRes.destroy();
                res.write(frame, () => res.socket?.destroy());
                return;
              }
              res.write(frame);
            }
          });
          upRes.on('end', () => res.end());
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    };
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const up = connect(Number(t.port), t.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    sockets.add(socket).add(up);
    const done = () => {
      socket.destroy();
      up.destroy();
    };
    up.on('error', done);
    socket.on('error', done);
    up.on('close', done);
    socket.on('close', done);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const l = await listenLoopback(server);
  return {
    url: l.url,
    log,
    dropNextStream(n) {
      dropAfter = n;
    },
    reauthorize(path, mint) {
      reauth = { path, mint };
    },
    hold(path) {
      const h = { path, waiting: [] as (() => void)[] };
      holding = h;
      return {
        held: () => h.waiting.length,
        release() {
          if (holding === h) holding = null;
          for (const f of h.waiting.splice(0)) f();
        },
      };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await l.close();
    },
  };
}
