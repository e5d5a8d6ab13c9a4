/**
 * The daemon's heap when idle (issue #19, item 7). V8 grows the young
 * generation (two semi-spaces) while the daemon boots and under load, and
 * keeps it committed afterwards: with a 16 MB semi-space the idle daemon
 * held ~140 MB RSS after start and ~155 MB after a burst, against ~115 MB
 * with the 2 MB semi-space it used to run with — which cost throughput
 * (more scavenges, more objects promoted to the old generation, and a
 * larger old generation after load). So the daemon runs with a 16 MB
 * semi-space (DAEMON_NODE_FLAGS) and gives the memory back when it is idle:
 * a "last resort" full GC (V8's memory-reducing collection: it compacts the
 * old generation and shrinks the young one to its minimum) once after boot,
 * and again whenever, after IDLE_CHECKS seconds without requests, the
 * committed heap has grown by more than GROWTH_BYTES since the last one — so
 * a slow trickle of requests does not cause a collection each second.
 *
 * Only the memory-reducing collection gives the young generation back
 * reliably: a regular full collection shrinks it only when V8's allocation
 * statistics show a low rate, which they often do not after an idle spell
 * without collections (measured: RSS 12 s after a burst stayed at 138–140
 * MB in most runs; bench/README.md, "Issue #19 item 7, session 8").
 *
 * Why several idle seconds, not one: the burst after a pause costs more CPU
 * per request for its first seconds — ~30–40 µs more per POST when measured
 * in session 7 (bench/README.md, "registry"), most of which session 8 found
 * after a 6 s pause with no shrink as well, so it is mostly the pause's own.
 * Shrinking after one idle second added the regrowth to every short pause;
 * after IDLE_CHECKS seconds only a daemon that has really gone quiet shrinks.
 *
 * The collection is V8's gc() from a separate context (`--expose-gc` set at
 * run time, so the daemon's global scope gets no `gc`); where that is not
 * available the shrinking is skipped.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Server } from 'node:http';

type Gc = (o: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

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

/** A memory-reducing full collection now (synchronous; ~0.1–0.3 s on a booted daemon). False when unavailable. */
export function shrinkHeap(): boolean {
  const f = gc();
  if (!f) return false;
  f({ type: 'major', execution: 'sync', flavor: 'last-resort' });
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
    shrinkHeap();
  }, checkMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    server.off('request', onRequest);
  };
}
