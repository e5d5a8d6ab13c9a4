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
 * Why several idle seconds, not one: the young generation grows back after
 * each shrink, so the burst after it costs more CPU per request for its first
 * seconds. Shrinking after one idle second added the regrowth to every short
 * pause; after IDLE_CHECKS seconds only a daemon that has really gone quiet
 * shrinks. (Most of the larger cost sessions 7–9 measured after a pause, with
 * or without a shrink, was the maps the memory-reducing collections dropped:
 * see "Hidden classes across a shrink" below.)
 *
 * The collection is V8's gc() from a separate context (`--expose-gc` set at
 * run time, so the daemon's global scope gets no `gc`); where that is not
 * available the shrinking is skipped.
 */
import { executionAsyncResource } from 'node:async_hooks';
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

/*
 * Hidden classes across a shrink. Each object shape has a V8 "map", and the
 * inline caches of hot code remember the maps they have seen: one map is the
 * fast case, up to four is slower, and more than four makes the cache
 * megamorphic, for the rest of the process's life. A memory-reducing
 * collection (shrinkHeap's, and the ones V8's own memory reducer makes when a
 * process goes idle) keeps no map that no live object has: V8 retains maps
 * for a few collections only in regular ones. An idle daemon holds no object
 * of a request, so the maps of everything a request makes die with it:
 * Node's tick objects, IncomingMessage, ServerResponse, fastify's Request and
 * Reply, their header objects, the parsed body. The next request makes new
 * maps, and every inline cache on its path sees one more. After a few idle
 * spells those caches are megamorphic: process.nextTick went from ~40 to
 * ~450 ns a call, and a POST /v1/sampling after an idle spell cost ~20 % more
 * instructions than before it (bench/README.md, "session 10").
 *
 * So the daemon keeps one sample alive: the latest request's reply (which
 * holds its request, the raw request and response, their socket and header
 * objects, and the body) and one tick object. Live objects keep their maps,
 * a map keeps the maps it was reached from, and the next request finds the
 * same ones. The cost is one request's objects held until the next request.
 */
let shapeSample: object | undefined;
let tickSample: object | undefined;

/**
 * Keeps a tick object as a sample (see above). The daemon calls it first
 * thing at boot, before any memory-reducing collection: a tick object made
 * after one would already have a second map.
 */
export function keepTickShape(): void {
  process.nextTick(() => {
    // inside a tick's callback the execution resource is that tick's object
    tickSample = executionAsyncResource();
  });
}

/**
 * Keeps `reply` (fastify's, of the request being served) as the sample whose
 * maps outlive a memory-reducing collection. Called by the daemon's onRequest
 * hook (server.ts).
 */
export function keepShapes(reply: object): void {
  shapeSample = reply;
}

/** The samples keepShapes holds: [the latest reply, a tick object] (for tests). */
export function keptShapes(): [object | undefined, object | undefined] {
  return [shapeSample, tickSample];
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
