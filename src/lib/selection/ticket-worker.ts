/**
 * Worker thread of computeTickets (select.ts): computes the tickets of one
 * range of households from their encoded messages (UTF-8 of stratum + U+001F
 * + id, in a SharedArrayBuffer) into the shared ticket array.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ticketer } from './hash.ts';

interface Job {
  seedHex: string;
  msgs: Uint8Array;
  offs: Uint32Array;
  out: Uint8Array;
  /** Rows [from, to) of the frame; offs is indexed from 0 at row `from`. */
  from: number;
  to: number;
  /** Progress: counters[counter] = rows done so far (Atomics). */
  counters: Int32Array;
  counter: number;
}

const job = workerData as Job;
const t = new Ticketer(job.seedHex);
for (let r = job.from, k = 0; r < job.to; r++, k++) {
  t.intoBytes(job.msgs.subarray(job.offs[k]!, job.offs[k + 1]!), job.out, r * 32);
  if ((k & 0xfff) === 0xfff) Atomics.store(job.counters, job.counter, k + 1);
}
Atomics.store(job.counters, job.counter, job.to - job.from);
parentPort!.postMessage('done');
