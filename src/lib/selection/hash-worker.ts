/**
 * Worker thread of sha256FileInWorker (frame.ts): the SHA-256 of a whole
 * file, read sequentially in 4 MiB blocks, while the calling thread parses
 * the same file.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { path } = workerData as { path: string };
const h = createHash('sha256');
const fd = openSync(path, 'r');
const buf = Buffer.allocUnsafe(1 << 22);
let bytes = 0;
try {
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    h.update(buf.subarray(0, n));
    bytes += n;
  }
} finally {
  closeSync(fd);
}
parentPort!.postMessage({ sha256: h.digest('hex'), bytes });
