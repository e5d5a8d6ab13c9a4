/**
 * `npm start`: serves the oracle on HOST:PORT (.env; default 127.0.0.1:3000)
 * — PORT is the port of the URL registered as this oracle's #api service.
 * The line it prints names the address the socket is really bound to.
 */
import type { AddressInfo } from 'node:net';
import { BootError } from 'oraclekit';
import { buildOracle, loadConfig } from './oracle.ts';

/** What to do when PORT is taken: it is also the port of the registered URL, so both move together. */
function portInUse(): string {
  const port = Number(process.env.PORT ?? 3000);
  const { apiUrl } = loadConfig();
  const url = new URL(apiUrl ?? `http://localhost:${port}`);
  url.port = String(port + 1);
  return [
    `[boot-error] port ${port} is in use (PORT=${port} in .env, the port of this oracle's registered URL).`,
    `Stop what is using it, or move the oracle to another port — the registered URL and PORT change together:`,
    `  npx oraclekit update-oracle-api-url ${url.origin} --no-check && npm start`,
  ].join('\n');
}

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
  if ((e as { code?: string }).code === 'EADDRINUSE') console.error(portInUse());
  else console.error(e instanceof BootError ? e.line : `[boot-error] ${(e as Error).message}`);
  process.exit(1);
}
