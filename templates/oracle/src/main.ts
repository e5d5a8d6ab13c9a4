/**
 * `npm start`: serves the oracle on HOST:PORT (.env; default 127.0.0.1:3000)
 * — PORT is the port of the URL registered as this oracle's #api service.
 * The line it prints names the address the socket is really bound to.
 */
import type { AddressInfo } from 'node:net';
import { BootError } from 'oraclekit';
import { buildOracle } from './oracle.ts';

try {
  const app = buildOracle();
  const url = await app.listen();
  const bound = app.fastify.server.address() as AddressInfo;
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const everywhere = bound.address === '0.0.0.0' || bound.address === '::';
  console.log(
    everywhere
      ? `oracle listening on ${host}:${bound.port} (every interface; from this machine ${url})`
      : `oracle listening on ${url} (this machine only; HOST=0.0.0.0 serves every interface)`,
  );
  const stop = () => {
    void app.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (e) {
  console.error(e instanceof BootError ? e.line : `[boot-error] ${(e as Error).message}`);
  process.exit(1);
}
