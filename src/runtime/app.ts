/**
 * createOracleApp (docs/runtime.md): createOracle's plugin on a fastify of
 * its own, with socket.io on the same port (PORT, default 3000), logging one
 * line per request to the runtime's pino log (log.ts). Boot errors
 * throw a BootError whose message is the exact `[boot-error] …` line (the
 * process entry exits non-zero).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { createOracle, type Oracle } from './oracle.ts';
import type { OracleAppOptions } from './runtime.ts';
import { setRuntimeNotFound } from './routes.ts';
import { logRequest } from './log.ts';
import { guardHosts } from './host-check.ts';

export interface OracleApp extends Omit<Oracle, 'plugin' | 'quiesce'> {
  fastify: FastifyInstance;
  /**
   * Listens on port (default PORT or 3000) and host (default HOST or 127.0.0.1: this machine only); resolves with
   * a base URL to reach it from this machine (http://127.0.0.1:<port> when bound to every interface: 0.0.0.0 or ::).
   * What the socket is bound to is `fastify.server.address()`.
   */
  listen(port?: number, host?: string): Promise<string>;
}

export function createOracleApp(options: OracleAppOptions): OracleApp {
  const oracle = createOracle(options);
  const { runtime } = oracle;
  // fastify's own logger stays off: the runtime's log has one line per request (log.ts), nothing else of fastify's
  const fastify = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 2 * 1024 * 1024 });
  fastify.addHook('onResponse', async (req, reply) => logRequest(runtime.pino, req, reply));
  setRuntimeNotFound(fastify, () => runtime.corsOrigins);
  guardHosts(fastify, () => runtime.hostPolicy());
  void fastify.register(oracle.plugin);
  return {
    runtime,
    fastify,
    async listen(port, host) {
      const p = port ?? runtime.settings.PORT;
      const h = host ?? runtime.settings.HOST;
      runtime.listenHost = h;
      await fastify.listen({ port: p, host: h });
      const addr = fastify.server.address();
      const actual = typeof addr === 'object' && addr ? addr.port : p;
      return `http://${h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h}:${actual}`;
    },
    async close() {
      await fastify.close();
      await oracle.close();
    },
    socket: oracle.socket,
    plugins: oracle.plugins,
    onPluginStatusChange: oracle.onPluginStatusChange,
  };
}
