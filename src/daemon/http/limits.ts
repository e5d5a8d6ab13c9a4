/**
 * The daemon's limits against hostile and slow clients (registry.md
 * "Limits"): the JSON body's depth, the rate limit per API key or client
 * address, the request time limits, and closing a connection whose body was
 * not read. server.ts wires them into the app; each is a plain function or
 * class so that tests can reach it.
 */
import type { FastifyRequest } from 'fastify';

/**
 * Arrays and objects nested deeper than this in a JSON body are refused (400
 * body_too_deep) before validation, the Idempotency-Key hash or any other
 * code that recurses over the body runs. Domain metadata allows depth 8 (at
 * level 2 of the body); nothing of the registry or the runtime comes near 64.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * Where a JSON value nests arrays and objects deeper than `max` (the value
 * itself is level 1): the top-level key the excess is under ('' when the
 * value is an array, or the excess is at the top), or undefined when it is
 * within. Walks with its own stack, so no depth can overflow the call stack,
 * and stops at the first excess.
 */
export function tooDeep(value: unknown, max: number = MAX_BODY_DEPTH): { field: string } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: [unknown, number, string][] = [];
  if (Array.isArray(value)) stack.push([value, 1, '']);
  else for (const [k, v] of Object.entries(value)) stack.push([v, 2, k]);
  if (max < 1) return { field: '' };
  while (stack.length > 0) {
    const [x, depth, field] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (depth > max) return { field };
    for (const c of Array.isArray(x) ? x : Object.values(x))
      if (typeof c === 'object' && c !== null) stack.push([c, depth + 1, field]);
  }
  return undefined;
}

/**
 * The rate limit: a fixed window per id, swept once per window. An API key
 * gets its own window (`k:<sha256>`) once it has authenticated
 * (`verified`, called by the /v1 auth); every other request — no key, a
 * made-up or revoked key, the discovery token, a UCAN — counts against the
 * client's address (`ip:<address>`). So failed authentications count against
 * the address, and the windows are bounded by the real keys and the clients,
 * not by what a client makes up. (A key's first request, before it is known,
 * counts against the address too, and then against the key.)
 */
export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  /** Hashes of keys that authenticated (at most 10,000; past that the set starts again). */
  private readonly keys = new Set<string>();
  private sweepAt = 0;
  readonly max: number;
  readonly windowMs: number;

  constructor(max: number, windowMs: number) {
    this.max = max;
    this.windowMs = windowMs;
  }

  /** The window a request counts against: its key's once the key has authenticated, else its address's. */
  idOf(keyHash: string | undefined, address: string): string {
    return keyHash !== undefined && this.keys.has(keyHash) ? 'k:' + keyHash : 'ip:' + address;
  }

  /** A key authenticated: from now on its requests count against its own window, this one included. True when it was new here. */
  verified(keyHash: string): boolean {
    if (this.keys.has(keyHash)) return false;
    if (this.keys.size >= 10_000) this.keys.clear();
    this.keys.add(keyHash);
    this.hit('k:' + keyHash);
    return true;
  }

  /** Counts one request of `id`: undefined within the limit, else the seconds until its window resets. */
  hit(id: string, now: number = Date.now()): number | undefined {
    if (now >= this.sweepAt) {
      for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
      this.sweepAt = now + this.windowMs;
    }
    let w = this.windows.get(id);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(id, w);
    }
    if (++w.count <= this.max) return undefined;
    return Math.max(1, Math.ceil((w.resetAt - now) / 1000));
  }

  /** Open windows (for tests and diagnostics). */
  get size(): number {
    return this.windows.size;
  }
}

/**
 * Time limits of a request (milliseconds). Node's HTTP server enforces them:
 * `headersMs` for the request line and headers, `requestMs` for the whole
 * request, body included, checked every `checkEveryMs`. A request over them
 * is answered 408 request_timeout and its connection closed. Nothing limits a
 * reply (an SSE stream of the oracle lasts as long as the turn).
 */
export interface RequestTimeouts {
  headersMs: number;
  requestMs: number;
  checkEveryMs: number;
}

export const DEFAULT_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 };

/**
 * Whether the request announced a body that has not been read to its end
 * (an error answered before the body was parsed: 401, 404, 429 …). Such a
 * reply goes with `Connection: close`, so the server does not keep reading
 * and discarding a body nobody will use.
 */
export function unreadBody(req: FastifyRequest): boolean {
  const raw = req.raw;
  if (raw.complete) return false;
  const h = raw.headers;
  return (h['content-length'] !== undefined && h['content-length'] !== '0') || h['transfer-encoding'] !== undefined;
}
