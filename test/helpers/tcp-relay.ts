/**
 * A TCP relay on loopback in front of an HTTP service. It records each connection made through it (when it opened
 * and closed) and the requests it carried (method, path, when their first bytes passed), so a test can tell which
 * connection a request came on and whether it had to wait for one. It can also make the service behave as one far
 * away does: `rttMs`, the round trip to it (a new connection passes nothing for two of them, a TCP and a TLS 1.3
 * handshake; then each chunk takes half of one each way), and `idleMs`, after which it closes a connection that
 * carried nothing (as uvicorn, the server of many self-hosted speech and model services, does after 5 s).
 * `dropAll()` closes every open connection at once.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RelayedConnection {
  openedAt: number;
  closedAt?: number;
  requests: { method: string; path: string; at: number }[];
}

export interface Relay {
  /** The relay's URL (http://127.0.0.1:port). */
  url: string;
  /** Where connections go: set before the first one is made. */
  target: { host: string; port: number } | undefined;
  connections: RelayedConnection[];
  dropAll(): void;
  close(): Promise<void>;
}

export interface RelayOptions {
  target?: { host: string; port: number };
  /** The round trip to the service (ms; default 0). */
  rttMs?: number;
  /** A connection that carried nothing this long (ms) is closed (default: never). */
  idleMs?: number;
}

const REQUEST_LINE = /(?:^|\r\n)(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) (\S+) HTTP\/1\.1\r\n/g;

export async function startRelay(o: RelayOptions = {}): Promise<Relay> {
  const rtt = o.rttMs ?? 0;
  const open = new Set<Socket>();
  const relay: Relay = {
    url: '',
    target: o.target,
    connections: [],
    dropAll: () => {
      for (const s of open) s.destroy();
    },
    close: async () => {},
  };
  /** Writes a chunk to `to` half a round trip later (timers of one delay fire in the order they were set). */
  const pass = (to: Socket) => (chunk: Buffer) =>
    rtt > 0 ? void setTimeout(() => to.writable && to.write(chunk), rtt / 2) : void to.write(chunk);
  const server = createServer((client) => {
    const target = relay.target;
    if (!target) return client.destroy();
    const c: RelayedConnection = { openedAt: Date.now(), requests: [] };
    relay.connections.push(c);
    client.pause(); // what the client sends waits in its socket until the handshakes are done
    const upstream = createConnection(target);
    upstream.pause();
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => {
        c.closedAt ??= Date.now();
        open.delete(s);
        client.destroy();
        upstream.destroy();
      });
      s.on('error', () => {});
    }
    if (o.idleMs) {
      client.setTimeout(o.idleMs);
      client.on('timeout', () => client.destroy());
    }
    const toUpstream = pass(upstream);
    client.on('data', (chunk: Buffer) => {
      // a request line at the start of a chunk or of a line in it (a body never holds one where this is used)
      for (const m of chunk.toString('latin1').matchAll(REQUEST_LINE))
        c.requests.push({ method: m[1]!, path: m[2]!, at: Date.now() });
      toUpstream(chunk);
    });
    upstream.on('data', pass(client));
    setTimeout(() => {
      client.resume();
      upstream.resume();
    }, 2 * rtt);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.close = async () => {
    relay.dropAll();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return relay;
}

/** The connection that carried the first request of `method` to a path ending in `pathEnd` after `since`. */
export function connectionOf(
  relay: Relay,
  method: string,
  pathEnd: string,
  since: number,
): { connection: RelayedConnection; request: RelayedConnection['requests'][number] } | undefined {
  let found: { connection: RelayedConnection; request: RelayedConnection['requests'][number] } | undefined;
  for (const connection of relay.connections)
    for (const request of connection.requests)
      if (request.method === method && request.path.endsWith(pathEnd) && request.at >= since)
        if (!found || request.at < found.request.at) found = { connection, request };
  return found;
}

/** Where a service at `url` listens, as a relay's target. */
export function targetOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port) };
}
