/**
 * selection.csv: every household of every stratum in rank order — the
 * sample (role "sample", ranks 1..n_h) then the replacement list (role
 * "replacement", used strictly in order) — with the frame's other columns
 * kept, and on the way each stratum's orderDigest.
 *
 * Frames up to WHOLE_FILE_MAX are read whole, once, and large ones (from
 * PARALLEL_THRESHOLD rows) are written by two threads: a worker
 * (write-worker.ts) assembles the last 60 % of the rows while this thread
 * assembles, hashes and writes the first 40 %, then appends the worker's bytes.
 * Larger frames are re-read by byte offset, a window of at most WRITE_WINDOW
 * rows at a time (sequential 4 MiB reads), so their text is never held in
 * memory as a whole. Every path writes the same bytes (property-tested).
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { csvCell } from '../csv.ts';
import { selectionError } from './errors.ts';
import type { Frame } from './frame.ts';
import { trimId } from './hash.ts';
import { PARALLEL_THRESHOLD, type FrameSelection } from './select.ts';

export const SELECTION_COLUMNS = ['stratum', 'rank', 'role', 'household_id', 'ticket'] as const;

/** The frame columns copied into selection.csv (all but household_id and, when stratified, stratum). */
export function keptColumns(frame: Frame): { index: number; name: string }[] {
  const drop = new Set([frame.idColumn, frame.stratumColumnIgnored ? -1 : frame.stratumColumn]);
  const taken = new Set<string>(SELECTION_COLUMNS);
  const out: { index: number; name: string }[] = [];
  frame.header.forEach((h, index) => {
    if (drop.has(index)) return;
    let name = h;
    while (taken.has(name.toLowerCase())) name = `frame_${name}`;
    taken.add(name.toLowerCase());
    out.push({ index, name });
  });
  return out;
}

/** Rows per window: the raw bytes of at most this many rows are held at once while writing a large frame. */
const WRITE_WINDOW = 1 << 18;
/** Frames up to this size are read whole (one sequential read) to write selection.csv. */
const WHOLE_FILE_MAX = 512 << 20;
const BLOCK = 1 << 22;
const CHUNK = 1 << 22;
/** Rows whose memory emitRows touches ahead of assembling them (about 150 KB of cache lines; 256–1024 measured alike, 4096 worse). */
const BATCH = 512;
/** With a worker, the share of the rows this thread assembles (it also hashes and writes all of them). */
const MAIN_SHARE = 0.4;

const HEX = Buffer.from('0123456789abcdef');
const COMMA = 0x2c;
const QUOTE = 0x22;
const NL = 0x0a;
const CR = 0x0d;
const SAMPLE = Buffer.from(',sample,');
const REPLACEMENT = Buffer.from(',replacement,');

/**
 * Fills `into` with the bytes of the given rows (slots sorted by offset),
 * reading the frame sequentially in 4 MiB blocks; a row across a block
 * boundary is read on its own.
 */
function gatherRows(
  fd: number,
  offsets: Float64Array<ArrayBufferLike>,
  lengths: Uint32Array<ArrayBufferLike>,
  rows: Uint32Array,
  into: Buffer,
  at: Uint32Array,
  window: number,
): void {
  // frame rows are numbered in file order, so sorting by row number sorts by offset;
  // (row * window + slot) is exact in a double and sorts natively
  const keys = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) keys[i] = rows[i]! * window + i;
  keys.sort();
  const slots = new Uint32Array(rows.length);
  for (let i = 0; i < rows.length; i++) slots[i] = keys[i]! % window;
  let pos = 0;
  for (let i = 0; i < rows.length; i++) {
    at[i] = pos;
    pos += lengths[rows[i]!]!;
  }
  const block = Buffer.alloc(BLOCK);
  let blockStart = -1;
  let blockLen = 0;
  for (const slot of slots) {
    const row = rows[slot]!;
    const off = offsets[row]!;
    const len = lengths[row]!;
    if (off < blockStart || off + len > blockStart + blockLen) {
      blockStart = off;
      blockLen = readSync(fd, block, 0, BLOCK, off);
    }
    if (off + len <= blockStart + blockLen) block.copy(into, at[slot]!, off - blockStart, off - blockStart + len);
    else readSync(fd, into, at[slot]!, len, off);
  }
}

/**
 * Byte spans of the fields of one raw CSV record (quotes kept: each span is a
 * valid CSV cell), split as CsvScanner splits it: a field is quoted only if
 * it starts with a quote ("" inside is an escaped quote); a quote inside an
 * unquoted field is a plain character.
 */
function fieldSpans(buf: Uint8Array, start: number, end: number, starts: number[], ends: number[]): number {
  let n = 0;
  let p = start;
  for (;;) {
    const s = p;
    if (p < end && buf[p] === QUOTE) {
      p++;
      while (p < end) {
        if (buf[p] === QUOTE) {
          if (p + 1 < end && buf[p + 1] === QUOTE) {
            p += 2;
            continue;
          }
          p++;
          break;
        }
        p++;
      }
    }
    while (p < end && buf[p] !== COMMA) p++;
    starts[n] = s;
    ends[n] = p;
    n++;
    if (p >= end) return n;
    p++;
  }
}

/** Field i of a raw record decoded as readFrame decodes it (unquoted, "" unescaped, trimmed): the household ID. */
function decodeIdField(buf: Buffer, start: number, end: number, i: number, starts: number[], ends: number[]): string {
  const n = fieldSpans(buf, start, end, starts, ends);
  if (i >= n) return '';
  let a = starts[i]!;
  let b = ends[i]!;
  const quoted = buf[a] === QUOTE;
  if (quoted) {
    a++;
    // the closing quote (the scanner stops the field there; anything after it is an error it already reported)
    let p = a;
    while (p < b) {
      if (buf[p] === QUOTE) {
        if (p + 1 < b && buf[p + 1] === QUOTE) {
          p += 2;
          continue;
        }
        break;
      }
      p++;
    }
    b = p;
  }
  const s = buf.toString('utf8', a, b);
  return trimId(quoted ? s.replaceAll('""', '"') : s);
}

/** Where assembled bytes go: a growable buffer flushed to a callback. */
export class ByteSink {
  buf: Buffer;
  pos = 0;
  private readonly flushTo: (data: Buffer) => void;
  constructor(flushTo: (data: Buffer) => void, size = CHUNK) {
    this.buf = Buffer.allocUnsafe(size);
    this.flushTo = flushTo;
  }
  flush(): void {
    if (this.pos === 0) return;
    this.flushTo(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
  ensure(need: number): void {
    if (this.pos + need <= this.buf.length) return;
    this.flush();
    if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need * 2);
  }
}

/** What assembling rows needs; plain data, so a worker thread can be given it. */
export interface EmitContext {
  src: Buffer;
  /** Per frame row: its byte offset in src (whole file), and its length. */
  offsets: Float64Array<ArrayBufferLike>;
  lengths: Uint32Array<ArrayBufferLike>;
  tickets: Uint8Array<ArrayBufferLike>;
  /** The stratum names as CSV cells (UTF-8) and n_h. */
  names: Buffer[];
  sampleSizes: number[];
  keptIndexes: number[];
  /** The kept cells are one span after the first `dropped` fields. */
  span: boolean;
  dropped: number;
  idField: number;
  /** The trimmed IDs, when at hand (this thread); a worker decodes them from the bytes. */
  ids: readonly string[] | null;
}

/**
 * Assembles the selection.csv lines of `rows` (one stratum's rows in rank
 * order, ranks from rankBase + 1) into `out`, and the IDs each followed by
 * "\n" into `dig` (the stratum's orderDigest). A row starts at
 * starts[byRow ? row : i] in ctx.src.
 */
export function emitRows(
  ctx: EmitContext,
  stratum: number,
  rows: Uint32Array,
  rankBase: number,
  starts: Float64Array<ArrayBufferLike> | Uint32Array,
  byRow: boolean,
  out: ByteSink,
  dig: ByteSink,
  onRows?: (n: number) => void,
): void {
  const { src, lengths, tickets, keptIndexes, span, dropped, idField, ids } = ctx;
  const name = ctx.names[stratum]!;
  const n = ctx.sampleSizes[stratum]!;
  const kept = keptIndexes.length;
  const digits = new Uint8Array(16);
  const fs: number[] = [];
  const fe: number[] = [];
  // Rows come in rank order, i.e. in random file order: each one's offset, bytes and ticket are a cache
  // miss. A short first loop over a batch touches them all — independent loads the CPU overlaps — so
  // that the assembling loop, long per row, finds them in cache (3-4x fewer stalls than one loop).
  const batchStart = new Float64Array(BATCH);
  const batchLen = new Uint32Array(BATCH);
  let touched = 0;
  for (let i = 0; i < rows.length; i++) {
    const bi = i % BATCH;
    if (bi === 0) {
      const m = Math.min(BATCH, rows.length - i);
      for (let j = 0; j < m; j++) {
        const rj = rows[i + j]!;
        const st = byRow ? starts[rj]! : starts[i + j]!;
        const ln = lengths[rj]!;
        batchStart[j] = st;
        batchLen[j] = ln;
        touched = (touched + src[st]! + src[st + ln - 1]! + tickets[rj * 32]!) | 0;
      }
    }
    const row = rows[i]!;
    const r = rankBase + i;
    const start = batchStart[bi]!;
    const len = batchLen[bi]!;
    const end = start + len;
    out.ensure(name.length + 40 + 64 + 2 * len + kept + 8);
    dig.ensure(len + 1);
    const o = out.buf;
    let pos = out.pos;
    const d = dig.buf;
    let dpos = dig.pos;
    for (let k = 0; k < name.length; k++) o[pos++] = name[k]!;
    o[pos++] = COMMA;
    let v = r + 1;
    let nd = 0;
    do {
      digits[nd++] = 48 + (v % 10);
      v = Math.floor(v / 10);
    } while (v > 0);
    while (nd > 0) o[pos++] = digits[--nd]!;
    const role = r < n ? SAMPLE : REPLACEMENT;
    for (let k = 0; k < role.length; k++) o[pos++] = role[k]!;
    let keptFrom = -1;
    let idDone = false;
    if (span) {
      // walk the dropped prefix fields: where the kept span starts, and whether the ID's bytes can be copied as they are
      let p = start;
      for (let f = 0; f < dropped; f++) {
        const a0 = p;
        let clean = true;
        if (src[p] === QUOTE) {
          clean = false;
          p++;
          while (p < end) {
            if (src[p] === QUOTE) {
              if (p + 1 < end && src[p + 1] === QUOTE) {
                p += 2;
                continue;
              }
              p++;
              break;
            }
            p++;
          }
        }
        while (p < end) {
          const b = src[p]!;
          if (b === COMMA) break;
          if (b === QUOTE || b === CR) clean = false;
          p++;
        }
        if (f === idField && clean && p > a0) {
          const a = src[a0]!;
          const z = src[p - 1]!;
          if (a > 0x20 && a < 0x7f && z > 0x20 && z < 0x7f) {
            for (let k = a0; k < p; k++) {
              const b = src[k]!;
              o[pos++] = b;
              d[dpos++] = b;
            }
            d[dpos++] = NL;
            idDone = true;
          }
        }
        p++; // the comma
      }
      keptFrom = p;
    }
    if (!idDone) {
      const id = ids ? ids[row]! : decodeIdField(src, start, end, idField, fs, fe);
      const cell = csvCell(id);
      out.pos = pos;
      out.ensure(cell.length * 3 + 200 + 2 * len);
      pos = out.pos;
      pos += out.buf.write(cell, pos, 'utf8');
      const idBytes = Buffer.from(id + '\n', 'utf8');
      dig.pos = dpos;
      dig.ensure(idBytes.length);
      dpos = dig.pos + idBytes.copy(dig.buf, dig.pos);
    }
    const oo = out.buf;
    oo[pos++] = COMMA;
    const t = row * 32;
    for (let k = 0; k < 32; k++) {
      const b = tickets[t + k]!;
      oo[pos++] = HEX[b >> 4]!;
      oo[pos++] = HEX[b & 15]!;
    }
    if (kept > 0) {
      if (keptFrom >= 0) {
        oo[pos++] = COMMA;
        if (keptFrom < end) pos += src.copy(oo, pos, keptFrom, end);
      } else {
        const nf = fieldSpans(src, start, end, fs, fe);
        for (let k = 0; k < kept; k++) {
          const ix = keptIndexes[k]!;
          oo[pos++] = COMMA;
          if (ix < nf) pos += src.copy(oo, pos, fs[ix]!, fe[ix]!);
        }
      }
    }
    oo[pos++] = NL;
    out.pos = pos;
    dig.pos = dpos;
    if (onRows && (i & 0xffff) === 0xffff) onRows(0x10000);
  }
  onRows?.(rows.length & 0xffff);
  if (touched === 0.5) throw new Error('unreachable'); // the touching loads have a use
}

export interface WriteOptions {
  onProgress?: (done: number, total: number) => void;
  /** Rows per window for frames larger than wholeFileMax. */
  window?: number;
  wholeFileMax?: number;
  /** Threads (this one included): 2 splits the rows with a worker; default $ORACLEKIT_TICKET_THREADS, else min(2, cores). */
  threads?: number;
  /** Frames with fewer rows are written by this thread alone (default $ORACLEKIT_TICKET_PARALLEL_MIN, else PARALLEL_THRESHOLD). */
  threshold?: number;
}

const envInt = (name: string): number | undefined => {
  const v = process.env[name];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
};

/** A copy of a typed array in shared memory (a worker reads it without a copy of its own). */
function shared<T extends Float64Array | Uint32Array | Uint8Array>(a: T, make: (sab: SharedArrayBuffer) => T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const b = make(new SharedArrayBuffer(a.byteLength));
  b.set(a as never);
  return b;
}

/**
 * Writes selection.csv and returns its SHA-256, its row count and every
 * stratum's orderDigest. Output lines are assembled as bytes: the five
 * selection cells, then the kept frame cells copied byte for byte from the
 * frame (they are valid CSV cells already). When the dropped columns
 * (household_id and, stratified, stratum) are the first ones and every row
 * has the header's number of fields — the usual frame — the kept cells are
 * one span of the row, and an ID that needs no quoting or trimming is copied
 * from the frame's bytes too.
 */
export async function writeSelectionCsv(
  outPath: string,
  framePath: string,
  frame: Frame,
  sel: FrameSelection,
  o: WriteOptions = {},
): Promise<{ sha256: string; rows: number; orderDigests: string[] }> {
  const window = o.window ?? WRITE_WINDOW;
  const kept = keptColumns(frame);
  const dropped = frame.header.length - kept.length;
  const span = frame.fieldsUniform && kept.every((k, j) => k.index === dropped + j) && frame.idColumn < dropped;
  const whole = frame.bytes <= (o.wholeFileMax ?? WHOLE_FILE_MAX);
  const threads = Math.max(1, o.threads ?? envInt('ORACLEKIT_TICKET_THREADS') ?? Math.min(2, availableParallelism()));
  const parallel =
    whole &&
    threads > 1 &&
    frame.rows >= (o.threshold ?? envInt('ORACLEKIT_TICKET_PARALLEL_MIN') ?? PARALLEL_THRESHOLD);
  const total = sel.strata.reduce((a, s) => a + s.order.length, 0);
  const hash = createHash('sha256');
  const digests: Hash[] = sel.strata.map(() => createHash('sha256'));
  const outFd = openSync(outPath, 'w');
  const out = new ByteSink((data) => {
    hash.update(data);
    writeSync(outFd, data);
  });
  let digFor = 0;
  const dig = new ByteSink((data) => {
    digests[digFor]!.update(data);
  }, 1 << 20);
  let done = 0;
  const progress = (k: number): void => {
    done += k;
    o.onProgress?.(done, total);
  };
  let inFd = -1;
  try {
    let src: Buffer;
    if (whole) {
      // the frame, whole, in memory shared with the worker
      src = Buffer.from(parallel ? new SharedArrayBuffer(frame.bytes) : new ArrayBuffer(frame.bytes));
      inFd = openSync(framePath, 'r');
      let got = 0;
      for (;;) {
        const k = readSync(inFd, src, got, Math.min(BLOCK, src.length - got), got);
        if (k === 0) break;
        got += k;
        if (got === src.length) {
          // one more byte would mean the file grew
          if (readSync(inFd, Buffer.alloc(1), 0, 1, got) !== 0) got++;
          break;
        }
      }
      if (got !== frame.bytes) {
        throw selectionError('frame_mismatch', frame.file, got, `the ${frame.bytes} bytes read before`, {
          message: `${frame.file} changed during the draw (${frame.bytes} bytes read before, ${got} now); valid: a frame file that nothing writes to during the command`,
        });
      }
      // the bytes copied into selection.csv are the bytes that were parsed and committed (SHA-NI: ~30 ms for 56 MB)
      const sha = createHash('sha256').update(src).digest('hex');
      if (sha !== frame.fileSha256) {
        throw selectionError('frame_mismatch', frame.file, sha, `the sha256 read before, ${frame.fileSha256}`, {
          message: `${frame.file} changed during the draw (sha256 ${frame.fileSha256} when parsed, ${sha} now); valid: a frame file that nothing writes to during the command`,
        });
      }
    } else {
      src = Buffer.alloc(0);
      inFd = openSync(framePath, 'r');
    }
    const ctx: EmitContext = {
      src,
      offsets: frame.offsets,
      lengths: frame.lengths,
      tickets: sel.tickets,
      names: sel.strata.map((s) => Buffer.from(csvCell(s.name))),
      sampleSizes: sel.strata.map((s) => s.sampleSize),
      keptIndexes: kept.map((k) => k.index),
      span,
      dropped,
      idField: frame.idColumn,
      ids: frame.ids,
    };
    const header = [...SELECTION_COLUMNS, ...kept.map((k) => k.name)].map(csvCell).join(',') + '\n';
    out.ensure(Buffer.byteLength(header));
    out.pos += out.buf.write(header, out.pos);

    // the rows of the file in sequence: stratum by stratum, rank by rank; [0, mid) here, [mid, total) on the
    // worker. This thread also hashes and writes every byte, so it assembles fewer rows (MAIN_SHARE).
    const mid = parallel ? Math.ceil(total * MAIN_SHARE) : total;
    const segments = (from: number, to: number): { s: number; a: number; b: number }[] => {
      const segs: { s: number; a: number; b: number }[] = [];
      let base = 0;
      sel.strata.forEach((st, s) => {
        const a = Math.max(from, base) - base;
        const b = Math.min(to, base + st.order.length) - base;
        if (b > a) segs.push({ s, a, b });
        base += st.order.length;
      });
      return segs;
    };
    let worker: Promise<{ kind: 'csv' | 'dig'; s: number; buf: Uint8Array }[]> | null = null;
    let counter: Int32Array | null = null;
    if (parallel) {
      counter = new Int32Array(new SharedArrayBuffer(4));
      const job = {
        ctx: {
          ...ctx,
          ids: null,
          offsets: shared(frame.offsets as Float64Array, (b) => new Float64Array(b)),
          lengths: shared(frame.lengths as Uint32Array, (b) => new Uint32Array(b)),
          tickets: shared(sel.tickets as Uint8Array, (b) => new Uint8Array(b)),
        },
        segments: segments(mid, total).map((g) => ({
          ...g,
          rows: shared(sel.strata[g.s]!.order.subarray(g.a, g.b), (b) => new Uint32Array(b)),
        })),
        counter,
      };
      const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
      worker = new Promise((resolve, reject) => {
        const parts: { kind: 'csv' | 'dig'; s: number; buf: Uint8Array }[] = [];
        const w = new Worker(new URL(`./write-worker${ext}`, import.meta.url), { workerData: job });
        let finished = false;
        w.on('message', (m: { kind: 'csv' | 'dig' | 'done'; s: number; buf: Uint8Array }) => {
          if (m.kind === 'done') {
            finished = true;
            resolve(parts);
          } else parts.push(m as { kind: 'csv' | 'dig'; s: number; buf: Uint8Array });
        });
        w.once('error', reject);
        w.once('exit', (code) => {
          if (!finished) reject(new Error(`selection.csv worker exited with code ${code}`));
        });
      });
      worker.catch(() => {});
    }
    for (const g of segments(0, mid)) {
      if (g.s !== digFor) {
        dig.flush();
        digFor = g.s;
      }
      const rows = sel.strata[g.s]!.order.subarray(g.a, g.b);
      if (whole) {
        emitRows(ctx, g.s, rows, g.a, frame.offsets, true, out, dig, progress);
      } else {
        let raw = Buffer.alloc(0);
        for (let w = 0; w < rows.length; w += window) {
          const win = rows.subarray(w, Math.min(rows.length, w + window));
          let bytes = 0;
          for (const row of win) bytes += frame.lengths[row]!;
          if (bytes > raw.length) raw = Buffer.allocUnsafe(Math.max(bytes, raw.length * 2));
          const slots = new Uint32Array(win.length);
          gatherRows(inFd, frame.offsets, frame.lengths, win, raw, slots, window);
          emitRows({ ...ctx, src: raw }, g.s, win, g.a + w, slots, false, out, dig, progress);
        }
      }
    }
    dig.flush();
    if (worker) {
      const timer = o.onProgress
        ? setInterval(() => o.onProgress!(done + Atomics.load(counter!, 0), total), 100)
        : null;
      let parts: Awaited<typeof worker>;
      try {
        parts = await worker;
      } finally {
        if (timer) clearInterval(timer);
      }
      out.flush();
      for (const p of parts) {
        const b = Buffer.from(p.buf.buffer, p.buf.byteOffset, p.buf.byteLength);
        if (p.kind === 'csv') {
          hash.update(b);
          writeSync(outFd, b);
        } else digests[p.s]!.update(b);
      }
      done = total;
      o.onProgress?.(done, total);
    }
    out.flush();
  } finally {
    if (inFd >= 0) closeSync(inFd);
    closeSync(outFd);
  }
  return { sha256: hash.digest('hex'), rows: total, orderDigests: digests.map((d) => d.digest('hex')) };
}
