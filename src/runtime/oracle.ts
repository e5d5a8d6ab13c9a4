/**
 * createOracle (docs/runtime.md): the one way to stand an oracle up. It
 * returns the runtime, one fastify plugin that serves it, and close().
 * createOracleApp registers the plugin on a fastify of its own and listens;
 * the daemon registers the same plugin on its fastify under /oracle.
 *
 * The plugin owns the lifecycle, so every host starts and stops the oracle
 * in the same order:
 * - register: the routes in an encapsulated scope (a `prefix` applies to them);
 * - the host's onReady: the runtime starts (signing key, background plugins)
 *   and socket.io attaches to the host's HTTP server at /socket.io/ (never
 *   prefixed: a client passes the host's origin as wsUrl);
 * - the host's preClose: running turns are aborted and realtime clients
 *   disconnected, before the server waits for in-flight requests;
 * - the host's onClose: the runtime closes (plugins stopped, writes flushed,
 *   its own database closed).
 */
import type { FastifyPluginAsync } from 'fastify';
import { OracleRuntime, type OracleAppOptions } from './runtime.ts';
import { registerOracleRuntime } from './routes.ts';
import { attachSocketIo, type SocketHandle } from './socket.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import type { PluginStatusListener } from './boot.ts';

export interface OracleMountOptions {
  /** Register @fastify/cors in the oracle's scope (default true; false when the host registers its own). */
  cors?: boolean;
  /** Serve `/` and `/health` (default true; false when the host serves its own). */
  rootRoutes?: boolean;
}

export interface Oracle {
  runtime: OracleRuntime;
  /**
   * Register it once, on the fastify that serves the oracle: `host.register(oracle.plugin, { prefix?, cors?,
   * rootRoutes? })`.
   */
  plugin: FastifyPluginAsync<OracleMountOptions>;
  /** The socket.io channel, once the host is ready. */
  socket(): SocketHandle | undefined;
  /**
   * Aborts the running turns and disconnects realtime clients (the first step of a graceful stop; the host's close does
   * it too).
   */
  quiesce(): void;
  /** Closes the runtime (idempotent; the host's close calls it). */
  close(): Promise<void>;
  plugins: { status(): PluginsStatus };
  onPluginStatusChange(l: PluginStatusListener): () => void;
}

/**
 * An oracle to mount on a fastify server of your own (its routes, auth and socket.io), the runtime without a server:
 * `createOracleApp` is this plus a server and `listen`.
 * @example
 * const app = fastify();
 * const oracle = createOracle({ config: { name: 'Helpdesk' }, plugins: [ticketsPlugin] });
 * await app.register(oracle.plugin, { prefix: '/oracle' });
 * await app.listen({ port: 3000, host: '127.0.0.1' });
 * app.addHook('onClose', () => oracle.close());
 */
export function createOracle(options: OracleAppOptions): Oracle {
  const runtime = new OracleRuntime(options);
  let socket: SocketHandle | undefined;
  let registered = false;
  let closing: Promise<void> | undefined;
  const quiesce = () => {
    runtime.runs.abortAll();
    socket?.disconnectAll();
  };
  const close = () =>
    (closing ??= (async () => {
      runtime.runs.abortAll();
      socket?.close();
      await runtime.close();
    })());
  const plugin: FastifyPluginAsync<OracleMountOptions> = async (app, opts) => {
    if (registered) throw new Error('this oracle is already registered: createOracle() gives one plugin for one host');
    registered = true;
    await runtime.storeReady;
    app.addHook('onReady', async () => {
      if (closing) return;
      await runtime.connectCluster();
      runtime.start();
      socket ??= attachSocketIo(runtime, app.server);
    });
    app.addHook('preClose', async () => {
      runtime.runs.abortAll();
      socket?.close();
    });
    app.addHook('onClose', async () => {
      await close();
    });
    await app.register(registerOracleRuntime, { runtime, cors: opts.cors, rootRoutes: opts.rootRoutes });
  };
  return {
    runtime,
    plugin,
    socket: () => socket,
    quiesce,
    close,
    plugins: { status: () => runtime.status() },
    onPluginStatusChange: (l) => runtime.onPluginStatusChange(l),
  };
}
