/**
 * A request with the headers a browser page would send and fetch() will not
 * let a test set (Host), or a WebSocket upgrade of socket.io: what a DNS
 * rebinding page or a cross-origin page does to a loopback server.
 */
import { request } from 'node:http';

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function rawRequest(
  url: string,
  o: { host?: string; origin?: string; upgrade?: boolean; method?: string; headers?: Record<string, string> } = {},
): Promise<RawReply> {
  const u = new URL(url);
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.host) headers.host = o.host;
  if (o.origin) headers.origin = o.origin;
  if (o.upgrade)
    Object.assign(headers, {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': Buffer.from('0123456789abcdef').toString('base64'),
    });
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: u.hostname, port: u.port, path: u.pathname + u.search, method: o.method ?? 'GET', headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

/** socket.io's websocket handshake path. */
export const SOCKET_IO_UPGRADE = '/socket.io/?EIO=4&transport=websocket&sessionId=x';
