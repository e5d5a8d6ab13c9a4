/**
 * Preloaded into the daemon (node --import) by bench/registry.ts for the runs
 * that split the cost of `POST /v1/sampling`; never part of the shipped
 * daemon. BENCH_SKIP (in the daemon's environment) says what is skipped:
 *
 * - `sqlite`: `Database.write` (the group commit) runs the write at once, outside any
 *   transaction, and the INSERT of the design is not executed: no SQLite
 *   work, no COMMIT, no fsync. The design is still computed, its record
 *   built and stringified, and the reply sent as shipped.
 * - `write`: once the first design has been stored, every later
 *   `Database.write` resolves at once with that first design's result: no
 *   design computation, no record, no SQLite. What is left is the stack:
 *   HTTP parsing, request id, rate limit (SHA-256 of the key), auth, the JSON
 *   body parser, zod validation of the body, the reply (the stored JSON text,
 *   as sendCreated sends it) and the access log line. Its ratio to the bare
 *   route is the best any POST route of this stack can reach on this machine.
 */
import { Database } from '../dist/storage/db.js';

type Write = (fn: () => unknown) => Promise<unknown>;
type Run = (sql: string, params?: unknown[]) => Promise<{ changes: number }>;
const database = Database.prototype as unknown as { run: Run; write: Write };
const skip = process.env.BENCH_SKIP;

if (skip === 'sqlite') {
  database.write = (fn) => {
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const run = database.run;
  database.run = function (this: Database, sql, params) {
    if (sql.startsWith('INSERT INTO designs ')) return Promise.resolve({ changes: 1 });
    return run.call(this, sql, params);
  };
} else if (skip === 'write') {
  const write = database.write;
  let first: unknown;
  database.write = function (this: Database, fn) {
    if (first !== undefined) return Promise.resolve(first);
    return write.call(this, fn).then((r) => {
      // a stored design {record, json} (POST /v1/sampling without an Idempotency-Key), or the idempotency layer's {status, body}
      const x = r as { record?: { designId?: unknown }; body?: { designId?: unknown } } | undefined;
      if (x?.record?.designId !== undefined || x?.body?.designId !== undefined) first = r;
      return r;
    });
  };
} else {
  throw new Error(`bench/registry-floor.ts: BENCH_SKIP must be sqlite or write, not ${String(skip)}`);
}
process.stderr.write(`[bench] daemon with BENCH_SKIP=${skip} (bench/registry-floor.ts)\n`);
