/**
 * Worker thread of writeSelectionCsv (output.ts): assembles the selection.csv
 * bytes of the second half of the rows, and those rows' IDs for the order
 * digests, and posts them in order ({kind: 'csv' | 'dig', s, buf}, then
 * {kind: 'done'}); the calling thread appends them after its own half.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ByteSink, emitRows, type EmitContext } from './output.ts';

interface Job {
  ctx: EmitContext;
  segments: { s: number; a: number; b: number; rows: Uint32Array }[];
  counter: Int32Array;
}

const job = workerData as Job;
// structured cloning turns Buffers into plain Uint8Arrays: view them as Buffers again (no copy)
const asBuffer = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
const ctx: EmitContext = { ...job.ctx, src: asBuffer(job.ctx.src), names: job.ctx.names.map(asBuffer), ids: null };
let s = 0;
const post =
  (kind: 'csv' | 'dig') =>
  (data: Buffer): void => {
    const copy = new Uint8Array(data.length);
    copy.set(data);
    parentPort!.postMessage({ kind, s, buf: copy }, [copy.buffer]);
  };
const out = new ByteSink(post('csv'));
const dig = new ByteSink(post('dig'), 1 << 20);
let done = 0;
for (const g of job.segments) {
  if (g.s !== s) {
    out.flush();
    dig.flush();
    s = g.s;
  }
  emitRows(ctx, g.s, g.rows, g.a, ctx.offsets, true, out, dig, (k) => {
    done += k;
    Atomics.store(job.counter, 0, done);
  });
}
out.flush();
dig.flush();
parentPort!.postMessage({ kind: 'done', s, buf: new Uint8Array(0) });
