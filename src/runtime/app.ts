/**
 * createOracleApp (docs/runtime.md): createOracle's plugin on a fastify of
 * its own, built by the one server factory (http/server.ts, as the daemon's),
 * with socket.io on the same port (PORT, default 3000), logging one line per
 * request to the runtime's pino log. Boot errors
 * throw a BootError whose message is the exact `[boot-error] …` line (the
 * process entry exits non-zero).
 */
import type { FastifyInstance } from 'fastify';
import { createOracle, type Oracle } from './oracle.ts';
import type { OracleAppOptions } from './runtime.ts';
import { createHttpServer, depthChecked } from './http/server.ts';
import { corsOnNotFound } from './routes.ts';
import type { RequestTimeouts } from './http/limits.ts';

/** createOracle's options, and the server's own. */
export interface OracleAppServerOptions extends OracleAppOptions {
  /** The request time limits (http/limits.ts, the daemon's defaults: headers 10 s, whole request 30 s). */
  requestTimeouts?: Partial<RequestTimeouts>;
}

export interface OracleApp extends Omit<Oracle, 'plugin' | 'quiesce'> {
  fastify: FastifyInstance;
  /**
   * Listens on port (default PORT or 3000) and host (default HOST or 127.0.0.1: this machine only); resolves with
   * a base URL to reach it from this machine (http://127.0.0.1:<port> when bound to every interface: 0.0.0.0 or ::).
   * What the socket is bound to is `fastify.server.address()`.
   */
  listen(port?: number, host?: string): Promise<string>;
}

/**
 * An oracle with its own HTTP server (the one server factory of runtime/http: time limits, the depth-checked JSON
 * parser, request ids, the request line), its socket.io channel and its database: what a scaffolded project serves.
 * @example
 * const app = createOracleApp({
 *   config: { name: 'Weather desk', model: 'gpt-4o-mini' },
 *   plugins: [localTimePlugin],
 *   features: { weather: true },
 * });
 * const url = await app.listen(); // PORT and HOST, default 127.0.0.1:3000
 * process.once('SIGTERM', () => void app.close());
 */
export function createOracleApp(options: OracleAppServerOptions): OracleApp {
  const oracle = createOracle(options);
  const { runtime } = oracle;
  // the daemon's server, from the same factory: time limits, the depth-checked JSON parser, request ids, the
  // `__proto__` refusal, the not-found handler, the host names and the request line, written to the oracle's log
  const fastify = createHttpServer({
    loggerInstance: runtime.pino,
    bodyLimit: 2 * 1024 * 1024,
    timeouts: options.requestTimeouts,
    hosts: () => runtime.hostPolicy(),
    forceCloseConnections: true,
  });
  corsOnNotFound(fastify, () => runtime.corsOrigins);
  void fastify.register(depthChecked({ plugin: oracle.plugin }));
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
