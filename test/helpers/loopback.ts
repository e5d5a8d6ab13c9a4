/** Listens on a random 127.0.0.1 port; close() drops open connections and stops the server. */
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';

export async function listenLoopback(server: Server): Promise<{ url: string; port: number; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A free TCP port on 127.0.0.1 (for servers that take a port rather than a listening socket: redis-server, PostgreSQL,
 * a spawned CLI).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
