/**
 * The daemon's heap when idle (issue #19, item 7). V8 grows the young
 * generation (two semi-spaces) while the daemon boots and under load, and
 * keeps it committed afterwards: with a 16 MB semi-space the idle daemon
 * held ~140 MB RSS after start and ~155 MB after a burst, against ~115 MB
 * with the 2 MB semi-space it used to run with — which cost throughput
 * (more scavenges, more objects promoted to the old generation, and a
 * larger old generation after load). So the daemon runs with a 16 MB
 * semi-space (DAEMON_NODE_FLAGS) and gives the memory back when it is idle:
 *
 * - once after boot, a "last resort" collection (V8's memory-reducing one:
 *   several passes that compact the old generation, flush code not run
 *   lately, and shrink the young generation to its minimum): ~100 MB RSS;
 * - after a burst, when IDLE_CHECKS seconds have passed without requests and
 *   the committed heap has grown by more than GROWTH_BYTES since the last
 *   shrink, a regular full collection. After seconds without allocation V8
 *   shrinks the young generation at the end of any full collection, so it
 *   gives back nearly as much (107–113 MB RSS 12 s after a burst) — without
 *   what made the last-resort flavour costly to the next burst: the next
 *   15,000 POSTs cost ~105 µs of CPU each after a last-resort collection and
 *   ~58 µs after a regular one, about what they cost with no shrinking at all
 *   (bench/README.md, "The idle shrink: a regular collection"). The flushed
 *   code had to be compiled again and the tightened old-generation limit
 *   made the burst mark and compact more.
 *
 * Why several idle seconds, not one: a slow trickle of requests should not
 * cause a collection each second, and a short pause in a burst none at all.
 *
 * The collection is V8's gc() from a separate context (`--expose-gc` set at
 * run time, so the daemon's global scope gets no `gc`); where that is not
 * available the shrinking is skipped.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Server } from 'node:http';

type Gc = (o: { type: 'major'; execution: 'sync'; flavor?: 'last-resort' }) => void;

/** Regrowth of the committed heap that makes an idle spell worth a collection. */
export const GROWTH_BYTES = 16 * 1024 * 1024;

/** Consecutive checks without requests (seconds, in the daemon) before a shrink. */
const IDLE_CHECKS = 8;

let gcFn: Gc | null | undefined;
/** Collections made by shrinkHeap so far (for tests and diagnostics). */
let shrinks = 0;
/** The committed heap after the last shrinkHeap (undefined before the first). */
let shrunkTo: number | undefined;

function gc(): Gc | null {
  if (gcFn === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as Gc;
    } catch {
      gcFn = null;
    }
  }
  return gcFn;
}

/**
 * A full collection now (synchronous): by default V8's memory-reducing "last
 * resort" one (~0.1–0.3 s on a booted daemon; after boot), or with
 * `{ regular: true }` a regular one (after a burst, see above). False when
 * unavailable.
 */
export function shrinkHeap(o: { regular?: boolean } = {}): boolean {
  const f = gc();
  if (!f) return false;
  f(o.regular ? { type: 'major', execution: 'sync' } : { type: 'major', execution: 'sync', flavor: 'last-resort' });
  shrunkTo = v8.getHeapStatistics().total_heap_size;
  shrinks++;
  return true;
}

/** How many collections shrinkHeap has made in this process. */
export function shrinkCount(): number {
  return shrinks;
}

/**
 * Shrinks the heap after `idleChecks` checks in a row without requests that
 * follow growth (see above). `server` is the daemon's HTTP server (its
 * 'request' events are the activity). Returns a stop function; the timer
 * never keeps the process alive.
 */
export function shrinkWhenIdle(server: Server, checkMs = 1000, idleChecks = IDLE_CHECKS): () => void {
  let requests = 0;
  let seen = 0;
  let idle = 0;
  const base = shrunkTo === undefined ? v8.getHeapStatistics().total_heap_size : undefined;
  const onRequest = () => void requests++;
  server.on('request', onRequest);
  const timer = setInterval(() => {
    if (requests !== seen) {
      seen = requests;
      idle = 0;
      return;
    }
    if (++idle < idleChecks) return;
    // growth since the last shrink, whoever made it (the boot's, in main.ts, comes after this is set up)
    if (v8.getHeapStatistics().total_heap_size - (shrunkTo ?? base!) < GROWTH_BYTES) return;
    shrinkHeap({ regular: true });
  }, checkMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    server.off('request', onRequest);
  };
}
