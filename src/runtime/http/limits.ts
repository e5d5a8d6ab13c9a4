/**
 * The daemon's limits against hostile and slow clients (registry.md
 * "Limits"): the JSON body's depth, the request time limits, and closing a
 * connection whose body was not read (the rate limit is rate-limit.ts).
 * server.ts wires them into the app; each is a plain function so that tests
 * can reach it.
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
