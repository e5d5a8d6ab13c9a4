/**
 * Steps 5 and 6 of "cookstove-sampling/v1": a ticket per household, then per
 * stratum the order by (ticket, id bytes); the first n_h are the sample and
 * the rest, in order, the replacement list.
 *
 * One thread, read from top to bottom: computeTickets (step 5), orderRows per
 * stratum (step 6), then output.ts writes selection.csv. Tickets live in one
 * Uint8Array (32 bytes per household).
 */
import type { Frame } from './frame.ts';
import { selectionError } from './errors.ts';
import { Ticketer, UNIT_SEPARATOR, compareUtf8 } from './hash.ts';
import { createSha256 } from '../hash.ts';

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

interface TicketOptions {
  /** Compute each stratum's orderDigest (default true; a draw has writeSelectionCsv compute them while writing). */
  digests?: boolean;
  /** Tickets computed so far, and the total. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Step 5: the ticket of every household, HMAC-SHA256(seed, UTF-8(stratum + U+001F + id)), 32 bytes
 * per frame row in one array (row i at i * 32).
 */
export function computeTickets(frame: Frame, seedHex: string, opts: TicketOptions = {}): Uint8Array {
  const n = frame.rows;
  const out = new Uint8Array(n * 32);
  const t = new Ticketer(seedHex);
  const prefixes = frame.strataNames.map((name) => Buffer.from(name + UNIT_SEPARATOR, 'utf8'));
  for (let i = 0; i < n; i++) {
    t.intoPrefixed(prefixes[frame.stratum[i]!]!, frame.ids[i]!, out, i * 32);
    if (opts.onProgress && (i & 0xffff) === 0xffff) opts.onProgress(i + 1, n);
  }
  opts.onProgress?.(n, n);
  return out;
}

/** The order of step 6: by ticket bytes, then by ID bytes (UTF-8). */
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

/** Positions take the low 24 bits of a sort key (a stratum has at most MAX_STRATUM_HOUSEHOLDS rows)… */
const POSITION = 2 ** 24;
/** …and the first 29 bits of the ticket the high ones: 29 + 24 = 53 bits, exact in a double. */
const PREFIX_SHIFT = 2 ** 3;

/**
 * Step 6 for one stratum: its rows ordered by compareTicketsThenIds. The same order as
 * `rows.sort(compareTicketsThenIds(...))`, computed faster: a native sort of numeric keys (the first 29
 * bits of the ticket, then the row's position), after which each run of rows whose tickets share those
 * 29 bits — rare: a few per thousand households — is put in order by the full comparison.
 */
export function orderRows(rows: Uint32Array, tickets: Uint8Array, ids: readonly string[]): Uint32Array {
  const n = rows.length;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = rows[i]! * 32;
    const first32 = tickets[o]! * 2 ** 24 + ((tickets[o + 1]! << 16) | (tickets[o + 2]! << 8) | tickets[o + 3]!);
    keys[i] = Math.floor(first32 / PREFIX_SHIFT) * POSITION + i;
  }
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = rows[keys[i]! % POSITION]!;
  const cmp = compareTicketsThenIds(tickets, ids);
  for (let i = 0; i < n;) {
    const prefix = Math.floor(keys[i]! / POSITION);
    let j = i + 1;
    while (j < n && Math.floor(keys[j]! / POSITION) === prefix) j++;
    if (j - i > 1) order.subarray(i, j).sort(cmp);
    i = j;
  }
  return order;
}

export function orderDigest(order: Uint32Array, ids: readonly string[]): string {
  const h = createSha256();
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
  const tickets = computeTickets(frame, seedHex, opts);
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
