/**
 * src/daemon/heap.ts: the memory-reducing collection is available without
 * --expose-gc and gives back the young generation V8 grew; the idle
 * shrinker collects only after idle checks that follow growth, once, and stops;
 * the samples kept across a shrink keep their maps (checked with V8's own
 * %HaveSameMap in a child process), and the daemon's hook keeps each request's
 * reply.
 * (No timing: the checks are driven by a short interval and awaited by polling
 * the observable effect, and sizes are compared, not durations.)
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { GROWTH_BYTES, keptShapes, shrinkCount, shrinkHeap, shrinkWhenIdle } from '../../../src/daemon/heap.ts';
import { startInProcess } from './harness.ts';

const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

/** Allocates short-lived garbage until V8 has grown the young generation (or gives up). */
function growYoungGeneration(): void {
  const start = newSpace();
  let keep: unknown[] = [];
  for (let i = 0; i < 2000 && newSpace() <= start; i++) {
    keep = Array.from({ length: 5000 }, (_, j) => ({ i, j, s: `x${j}` }));
  }
  expect(keep.length).toBe(5000);
}

describe('shrinkHeap', () => {
  it('runs without --expose-gc and leaves no global gc', () => {
    expect(shrinkHeap()).toBe(true);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('shrinks a grown young generation', () => {
    growYoungGeneration();
    const grown = newSpace();
    shrinkHeap();
    expect(newSpace()).toBeLessThan(grown);
  });
});

describe('shrinkWhenIdle', () => {
  it('collects once after growth when the server is idle, not while requests come, and stops when told', async () => {
    const server = createServer();
    const stop = shrinkWhenIdle(server, 5);
    const count = shrinkCount();
    // grow the committed heap by more than GROWTH_BYTES with data that is garbage once the function returns
    const before = v8.getHeapStatistics().total_heap_size;
    const grew = (() => {
      const big = Array.from({ length: (GROWTH_BYTES * 3) / 1024 }, (_, i) => 'y'.repeat(1000) + i);
      return big.length > 0 && v8.getHeapStatistics().total_heap_size - before;
    })();
    expect(grew).toBeGreaterThan(GROWTH_BYTES);
    // a request every few checks: never idle for 8 checks in a row, so no collection
    for (let i = 0; i < 20; i++) {
      server.emit('request');
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(shrinkCount()).toBe(count);
    // then idle: one collection, and no more while nothing grows again
    for (let i = 0; i < 400 && shrinkCount() === count; i++) await new Promise((r) => setTimeout(r, 10));
    expect(shrinkCount()).toBe(count + 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(shrinkCount()).toBe(count + 1);
    stop();
    expect(server.listenerCount('request')).toBe(0);
  });
});

describe('the shapes kept across a shrink', () => {
  // A child process with V8's natives syntax: after each of three memory-reducing collections (with ticks
  // between them, as an idle daemon has), a new tick object has the map of the kept one; the probe holds no
  // other tick object. Without a sample, the collections drop that map and each new tick object gets a new
  // one: the inline caches on the path of process.nextTick then went megamorphic (bench/README.md, "session 10").
  const probe = `
    import { executionAsyncResource } from 'node:async_hooks';
    import { keepTickShape, keptShapes, shrinkHeap } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../../src/daemon/heap.ts')).href)};
    const tick = () => new Promise((r) => process.nextTick(() => r(executionAsyncResource())));
    keepTickShape();
    await new Promise((r) => setImmediate(r));
    const kept = keptShapes()[1];
    const same = [];
    for (let i = 0; i < 3; i++) {
      shrinkHeap();
      await new Promise((r) => setImmediate(r));
      same.push(%HaveSameMap(await tick(), kept));
    }
    console.log(JSON.stringify({ keptIsTick: typeof kept?.callback === 'function', same }));
  `;

  it('a kept tick object keeps its map through memory-reducing collections', () => {
    const r = JSON.parse(
      execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', probe], {
        encoding: 'utf8',
      }),
    ) as { keptIsTick: boolean; same: boolean[] };
    expect(r.keptIsTick).toBe(true);
    expect(r.same).toEqual([true, true, true]);
  });

  it('the daemon keeps the reply of the latest request', async () => {
    const s = await startInProcess();
    try {
      await s.call('GET', '/health');
      const [reply] = keptShapes() as [{ request: { url: string } } | undefined, unknown];
      expect(reply?.request.url).toBe('/health');
      const key = await s.key('did:example:shapes', 'member');
      await s.call('GET', '/v1/domains?limit=1', { key });
      expect((keptShapes()[0] as { request: { url: string } }).request.url).toBe('/v1/domains?limit=1');
    } finally {
      await s.close();
    }
  });
});
