/**
 * Steps 5 and 6 of "cookstove-sampling/v1": a ticket per household, then per
 * stratum the order by (ticket, id bytes); the first n_h are the sample and
 * the rest, in order, the replacement list.
 *
 * Tickets live in one Uint8Array (32 bytes per household); see orderRows for
 * how the order by (ticket, id bytes) is computed fast and exactly.
 */
import { createHash } from 'node:crypto';
import type { Frame } from './frame.ts';
import { selectionError } from './errors.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { Ticketer, UNIT_SEPARATOR, compareUtf8 } from './hash.ts';

const MAX_STRATUM_HOUSEHOLDS = 0xffffff;

interface StratumOrder {
  name: string;
  population: number;
  sampleSize: number;
  /** Row indices of the frame in rank order: [0, sampleSize) sample, the rest replacements. */
  order: Uint32Array;
  /** SHA-256 of the IDs in rank order, each followed by "\n". */
  orderDigest: string;
}

export interface FrameSelection {
  /** 32 bytes per frame row. */
  tickets: Uint8Array;
  strata: StratumOrder[];
}

/** Throws insufficient_frame when a stratum has fewer households than its sample size. */
export function checkSizes(frame: Frame, byStratum: Uint32Array[], sizes: number[]): void {
  frame.strataNames.forEach((name, s) => {
    const have = byStratum[s]!.length;
    const need = sizes[s]!;
    if (have > MAX_STRATUM_HOUSEHOLDS) {
      throw selectionError(
        'too_many_households',
        `${frame.file}`,
        have,
        `at most ${MAX_STRATUM_HOUSEHOLDS} households per stratum`,
      );
    }
    if (have < need) {
      throw selectionError(
        'insufficient_frame',
        `${frame.file}`,
        have,
        `at least ${need} households in stratum ${name}`,
        {
          message: `${frame.file}: stratum ${JSON.stringify(name)} has ${have} households in the frame, fewer than its sample size ${need}; valid: a frame with at least ${need} households in ${name} (never capped silently)`,
          details: { stratum: name, households: have, sampleSize: need },
        },
      );
    }
  });
}

/** Below this many households the tickets are computed on the calling thread only. */
export const PARALLEL_THRESHOLD = 200_000;

export interface TicketOptions {
  /** Total threads (the calling one included); default $ORACLEKIT_TICKET_THREADS, else available parallelism, at most 4. */
  threads?: number;
  /** Default $ORACLEKIT_TICKET_PARALLEL_MIN, else PARALLEL_THRESHOLD. */
  threshold?: number;
  /** Compute each stratum's orderDigest (default true; a draw has writeSelectionCsv compute them while writing). */
  digests?: boolean;
  /** Tickets computed so far, on every thread, and the total. */
  onProgress?: (done: number, total: number) => void;
}

function defaultThreads(): number {
  const env = process.env.ORACLEKIT_TICKET_THREADS;
  if (env !== undefined && /^\d+$/.test(env)) return Math.max(1, Number(env));
  return Math.min(4, availableParallelism());
}

/**
 * Computes every ticket (32 bytes per frame row). Large frames are split
 * between the calling thread and worker threads (ticket-worker.ts) writing
 * into one SharedArrayBuffer; the result is byte-identical to the single
 * thread (tested), only faster on more than one core.
 */
export async function computeTickets(frame: Frame, seedHex: string, opts: TicketOptions = {}): Promise<Uint8Array> {
  const n = frame.rows;
  const threads = Math.max(1, opts.threads ?? defaultThreads());
  const envMin = process.env.ORACLEKIT_TICKET_PARALLEL_MIN;
  const threshold =
    opts.threshold ?? (envMin !== undefined && /^\d+$/.test(envMin) ? Number(envMin) : PARALLEL_THRESHOLD);
  const parallel = threads > 1 && n >= threshold;
  const out = parallel ? new Uint8Array(new SharedArrayBuffer(n * 32)) : new Uint8Array(n * 32);
  const names = frame.strataNames;
  const part = parallel ? Math.ceil(n / threads) : n;
  const jobs: Promise<void>[] = [];
  // one progress counter per worker, written by the worker (Atomics), summed here
  const counters = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, threads)));
  const doneSoFar = (own: number): number => {
    let d = own;
    for (let w = 0; w < counters.length; w++) d += Atomics.load(counters, w);
    return d;
  };
  if (parallel) {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const url = new URL(`./ticket-worker${ext}`, import.meta.url);
    // the workers' messages (UTF-8 of stratum + U+001F + id) in shared memory, written without a view or a string per row
    const prefixes = names.map((nm) => Buffer.from(nm + UNIT_SEPARATOR, 'utf8'));
    const maxPrefix = Math.max(...prefixes.map((b) => b.length));
    for (let from = part, w = 0; from < n; from += part, w++) {
      const to = Math.min(n, from + part);
      let chars = 0;
      for (let r = from; r < to; r++) chars += frame.ids[r]!.length;
      const msgs = Buffer.from(new SharedArrayBuffer(chars * 3 + (to - from) * maxPrefix));
      const offs = new Uint32Array(to - from + 1);
      let pos = 0;
      for (let r = from, k = 0; r < to; r++, k++) {
        offs[k] = pos;
        const pre = prefixes[frame.stratum[r]!]!;
        for (let j = 0; j < pre.length; j++) msgs[pos++] = pre[j]!;
        pos += msgs.write(frame.ids[r]!, pos, 'utf8');
      }
      offs[to - from] = pos;
      jobs.push(
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(url, { workerData: { seedHex, msgs, offs, out, from, to, counters, counter: w } });
          let done = false;
          worker.once('message', () => {
            done = true;
            resolve();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => {
            if (!done) reject(new Error(`ticket worker exited with code ${code} before finishing rows ${from}..${to}`));
          });
        }),
      );
    }
  }
  const t = new Ticketer(seedHex);
  const mine = Math.min(part, n);
  const prefixBytes = names.map((nm) => Buffer.from(nm + UNIT_SEPARATOR, 'utf8'));
  for (let i = 0; i < mine; i++) {
    t.intoPrefixed(prefixBytes[frame.stratum[i]!]!, frame.ids[i]!, out, i * 32);
    if (opts.onProgress && (i & 0xffff) === 0xffff) opts.onProgress(doneSoFar(i + 1), n);
  }
  if (jobs.length > 0 && opts.onProgress) {
    // the workers may still be running: keep the count moving while waiting
    const report = opts.onProgress;
    const timer = setInterval(() => report(doneSoFar(mine), n), 100);
    try {
      await Promise.all(jobs);
    } finally {
      clearInterval(timer);
    }
  } else {
    await Promise.all(jobs);
  }
  opts.onProgress?.(n, n);
  return out;
}

const compareTicketsThenIds =
  (tickets: Uint8Array, ids: readonly string[]) =>
  (a: number, b: number): number => {
    const oa = a * 32;
    const ob = b * 32;
    for (let i = 0; i < 32; i++) {
      const x = tickets[oa + i]! - tickets[ob + i]!;
      if (x !== 0) return x;
    }
    return compareUtf8(ids[a]!, ids[b]!);
  };

const LOCAL_BITS = 2 ** 21;

/**
 * Orders one stratum's rows by (ticket, id bytes). Up to 2^21 households per
 * stratum the sort is a native numeric sort of (first 32 ticket bits * 2^21 +
 * position), exact in a double; runs that share the first 32 bits are then
 * re-sorted with the full comparison. Larger strata use the comparator
 * throughout. Both give exactly the order of the spec.
 */
export function orderRows(rows: Uint32Array, tickets: Uint8Array, ids: readonly string[]): Uint32Array {
  const n = rows.length;
  const cmp = compareTicketsThenIds(tickets, ids);
  if (n > LOCAL_BITS) return Uint32Array.from(rows).sort(cmp);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = rows[i]! * 32;
    const prefix = ((tickets[o]! << 24) >>> 0) + ((tickets[o + 1]! << 16) | (tickets[o + 2]! << 8) | tickets[o + 3]!);
    keys[i] = prefix * LOCAL_BITS + i;
  }
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = rows[keys[i]! % LOCAL_BITS]!;
  let i = 0;
  while (i < n) {
    const p = Math.floor(keys[i]! / LOCAL_BITS);
    let j = i + 1;
    while (j < n && Math.floor(keys[j]! / LOCAL_BITS) === p) j++;
    if (j - i > 1) order.subarray(i, j).sort(cmp);
    i = j;
  }
  return order;
}

export function orderDigest(order: Uint32Array, ids: readonly string[]): string {
  const h = createHash('sha256');
  const BATCH = 8192;
  for (let i = 0; i < order.length; i += BATCH) {
    const part: string[] = [];
    const end = Math.min(order.length, i + BATCH);
    for (let j = i; j < end; j++) part.push(ids[order[j]!]!);
    h.update(part.join('\n') + '\n', 'utf8');
  }
  return h.digest('hex');
}

/** Tickets and the order of every stratum. sizes[s] is n_h for frame.strataNames[s]. */
export async function selectFrame(
  frame: Frame,
  byStratum: Uint32Array[],
  seedHex: string,
  sizes: number[],
  opts: TicketOptions = {},
): Promise<FrameSelection> {
  checkSizes(frame, byStratum, sizes);
  const tickets = await computeTickets(frame, seedHex, opts);
  const strata = frame.strataNames.map((name, s) => {
    const order = orderRows(byStratum[s]!, tickets, frame.ids);
    return {
      name,
      population: order.length,
      sampleSize: sizes[s]!,
      order,
      orderDigest: opts.digests === false ? '' : orderDigest(order, frame.ids),
    };
  });
  return { tickets, strata };
}

export function ticketHex(tickets: Uint8Array, row: number): string {
  return Buffer.from(tickets.buffer, tickets.byteOffset + row * 32, 32).toString('hex');
}

/** The whole algorithm on an in-memory list of one stratum (tests, small frames). */
export function selectIds(
  ids: string[],
  stratum: string,
  n: number,
  seedHex: string,
): { selected: string[]; replacements: string[]; tickets: Map<string, string> } {
  const t = new Ticketer(seedHex);
  const tickets = new Uint8Array(ids.length * 32);
  ids.forEach((id, i) => t.into(stratum, id, tickets, i * 32));
  const order = orderRows(Uint32Array.from(ids.keys()), tickets, ids);
  const ordered = [...order].map((r) => ids[r]!);
  return {
    selected: ordered.slice(0, n),
    replacements: ordered.slice(n),
    tickets: new Map(ids.map((id, i) => [id, ticketHex(tickets, i)])),
  };
}
