/**
 * DNS rebinding and cross-origin pages (runtime.md, "Host names and origins"): a page whose name is made to
 * resolve to 127.0.0.1 reaches a loopback server with its own name in `Host`, and any page may open a
 * WebSocket to it (browsers apply no CORS to WebSockets). So a request is served only when its `Host` names
 * this server (the loopback names, or those configured), else 421 misdirected_host, and a socket.io upgrade
 * from a page is accepted only from the page's own origin or an allowed one (403 origin_not_allowed).
 * One check for fastify's requests (an onRequest hook) and the HTTP server's upgrades (wrapped listeners).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { toErrorBody } from '../lib/errors.ts';
import { runtimeError } from '../lib/protocol/errors.ts';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/** Whether a bind address is this machine only. */
export function isLoopbackAddress(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The names a server answers to: any (`*`), or a set (the loopback names always among them). */
export type HostPolicy = { any: true } | { any: false; names: ReadonlySet<string> };

/**
 * A server bound to loopback answers to the loopback names and `configured`; one bound to every interface
 * answers to any name unless names are configured (it cannot know the names it is reached by).
 */
export function hostPolicy(bindHost: string, configured?: readonly string[]): HostPolicy {
  if (configured?.includes('*')) return { any: true };
  const names = new Set([...LOOPBACK_NAMES, ...(configured ?? []).map(hostName)]);
  if (configured?.length || isLoopbackAddress(bindHost)) return { any: false, names };
  if (['0.0.0.0', '::', ''].includes(bindHost.trim())) return { any: true }; // every interface: its names are unknown
  names.add(hostName(bindHost));
  return { any: false, names };
}

/** The name of a Host header value or a host: lower case, without port, brackets or a trailing dot. */
function hostName(h: string): string {
  const v = h.trim().toLowerCase();
  // [v6]:port, name:port, or a bare v6 address (several colons)
  if (v.startsWith('[')) return v.slice(1, v.indexOf(']'));
  const colon = v.indexOf(':');
  return (colon >= 0 && colon === v.lastIndexOf(':') ? v.slice(0, colon) : v).replace(/\.$/, '');
}

/** null when the request's Host is one this server answers to (a request without Host is HTTP/1.0: served). */
function checkHost(policy: HostPolicy, host: string | undefined): null | ReturnType<typeof runtimeError> {
  if (policy.any || host === undefined) return null;
  const name = hostName(host);
  if (policy.names.has(name)) return null;
  return runtimeError(
    'misdirected_host',
    `this server does not answer to the host name ${JSON.stringify(name.slice(0, 100))}; use ` +
      `${[...policy.names].join(', ')} (ORACLE_ALLOWED_HOSTS names more)`,
    { field: 'host', value: name.slice(0, 100), valid: [...policy.names].join(', ') },
  );
}

/** Origins allowed for browser pages: any (true), none (false) or a list; the page's own origin always is. */
function checkOrigin(
  allowed: string[] | boolean,
  origin: string | undefined,
  host: string | undefined,
): null | ReturnType<typeof runtimeError> {
  if (origin === undefined || allowed === true) return null;
  try {
    if (host !== undefined && new URL(origin).host === host.toLowerCase()) return null; // the page's own origin
  } catch {
    // not a URL ("null" from a sandboxed page): only an explicit entry allows it
  }
  if (Array.isArray(allowed) && allowed.includes(origin)) return null;
  return runtimeError(
    'origin_not_allowed',
    `pages from ${JSON.stringify(origin.slice(0, 100))} may not use this oracle; CORS_ORIGINS names the ` +
      `origins that may`,
    { field: 'origin', value: origin.slice(0, 100) },
  );
}

/** A 421 (or 403) for every request of the fastify whose Host is not this server's. */
export function guardHosts(app: FastifyInstance, policy: () => HostPolicy): void {
  // answered here, not thrown: the reply is the same whatever error handler the route's scope has
  app.addHook('onRequest', async (req, reply) => {
    const refused = checkHost(policy(), req.headers.host);
    if (refused) return reply.code(refused.status).send(toErrorBody(refused));
  });
}

/**
 * Wraps the HTTP server's upgrade listeners (socket.io's among them, so call it after they are attached): an
 * upgrade with a foreign Host (421) or a foreign page's Origin (403) is answered and closed before them.
 */
export function guardUpgrades(server: Server, policy: () => HostPolicy, origins: () => string[] | boolean): void {
  const listeners = server.listeners('upgrade') as ((req: IncomingMessage, socket: Duplex, head: Buffer) => void)[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const origin = req.headers.origin;
    const refused = checkHost(policy(), req.headers.host) ?? checkOrigin(origins(), origin, req.headers.host);
    if (refused) {
      const body = JSON.stringify(toErrorBody(refused));
      socket.end(
        `HTTP/1.1 ${refused.status} ` +
          `${refused.status === 421 ? 'Misdirected Request' : 'Forbidden'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    for (const l of listeners) l.call(server, req, socket, head);
  });
}
