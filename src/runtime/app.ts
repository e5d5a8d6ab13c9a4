/**
 * createOracleApp (runtime.md): the runtime on its own fastify + socket.io,
 * one port (PORT, default 3000). Boot errors throw a BootError whose message
 * is the exact `[boot-error] …` line (the process entry exits non-zero).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { OracleRuntime, type OracleAppOptions } from './runtime.ts';
import { registerOracleRuntime, setRuntimeNotFound } from './routes.ts';
import { attachSocketIo, type SocketHandle } from './socket.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import type { PluginStatusListener } from './boot.ts';

export interface OracleApp {
  runtime: OracleRuntime;
  fastify: FastifyInstance;
  /** Listens on port (default PORT or 3000) and host (default HOST or 0.0.0.0); resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
  plugins: { status(): PluginsStatus };
  onPluginStatusChange(l: PluginStatusListener): () => void;
  socket(): SocketHandle | undefined;
}

export function createOracleApp(options: OracleAppOptions): OracleApp {
  const runtime = new OracleRuntime(options);
  const fastify = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 2 * 1024 * 1024 });
  setRuntimeNotFound(fastify);
  void fastify.register(registerOracleRuntime, { runtime });
  let socket: SocketHandle | undefined;
  let closed = false;
  return {
    runtime,
    fastify,
    async listen(port, host) {
      runtime.start();
      await fastify.ready();
      socket ??= attachSocketIo(runtime, fastify.server);
      const p = port ?? Number(runtime.env.PORT ?? 3000);
      const h = host ?? runtime.env.HOST ?? '0.0.0.0';
      await fastify.listen({ port: p, host: h });
      const addr = fastify.server.address();
      const actual = typeof addr === 'object' && addr ? addr.port : p;
      return `http://${h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h}:${actual}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      runtime.runs.abortAll();
      await socket?.close();
      await fastify.close();
      await runtime.close();
    },
    plugins: { status: () => runtime.status() },
    onPluginStatusChange: (l) => runtime.onPluginStatusChange(l),
    socket: () => socket,
  };
}

/**
 * Mounts the runtime on a host's fastify (the daemon): routes in an
 * encapsulated scope (under `prefix` when given, e.g. the daemon's /oracle),
 * socket.io on the host's HTTP server at /socket.io/ (not prefixed: a client
 * passes the host's origin as wsUrl). Call before host.listen(); it calls
 * runtime.start() (signing key, background plugins).
 */
export async function mountOracleRuntime(
  host: FastifyInstance,
  options: OracleAppOptions & { cors?: boolean; rootRoutes?: boolean; prefix?: string },
): Promise<{ runtime: OracleRuntime; socket: SocketHandle; close(): Promise<void> }> {
  const runtime = new OracleRuntime(options);
  await host.register(registerOracleRuntime, { runtime, cors: options.cors, rootRoutes: options.rootRoutes, ...(options.prefix ? { prefix: options.prefix } : {}) });
  const socket = attachSocketIo(runtime, host.server);
  runtime.start();
  return {
    runtime,
    socket,
    async close() {
      await socket.close();
      await runtime.close();
    },
  };
}
