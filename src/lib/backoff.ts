/**
 * The package's one retry curve: the wait before try `attempt` (0, 1, 2, …)
 * doubles from `baseMs` up to `maxMs`. With `jitter` (0–1) the wait is a
 * random share of it, from (1 − jitter) to 1, so clients that failed together
 * do not retry together.
 *
 * @example backoffMs(3, { baseMs: 100, maxMs: 2000 }) // 800
 */
export function backoffMs(attempt: number, o: { baseMs: number; maxMs: number; jitter?: number }): number {
  const ms = Math.min(o.baseMs * 2 ** attempt, o.maxMs);
  return o.jitter ? ms * (1 - o.jitter * Math.random()) : ms;
}
