/**
 * selection.csv: every household of every stratum in rank order — the
 * sample (role "sample", ranks 1..n_h) then the replacement list (role
 * "replacement", used strictly in order) — with the frame's other columns
 * kept byte for byte, and on the way each stratum's orderDigest.
 *
 * One path for every frame: the rows are taken in rank order, a window of at
 * most WRITE_WINDOW rows at a time; a window's rows are read from the frame by
 * byte offset (in file order, sequential 4 MiB reads), and each row's line is
 * assembled by writeLine. The frame's text is never held whole, and at the end
 * the file is hashed again: what was copied is what was committed.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { csvCell } from '../csv.ts';
import { selectionError } from './errors.ts';
import type { Frame } from './frame.ts';
import type { FrameSelection } from './select.ts';
import { createSha256 } from '../hash.ts';

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

/** Rows per window: the raw bytes of at most this many rows are held at once. */
const WRITE_WINDOW = 1 << 18;
const BLOCK = 1 << 22;
const CHUNK = 1 << 22;

const HEX = Buffer.from('0123456789abcdef');
const COMMA = 0x2c;
const QUOTE = 0x22;
const NL = 0x0a;
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

/** Where assembled bytes go: a growable buffer flushed to a callback. */
class ByteSink {
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

/** One line of selection.csv, and what it needs from the frame row: its raw bytes raw[start, end). */
interface Line {
  stratumCell: Buffer;
  rank: number;
  sample: boolean;
  id: string;
  tickets: Uint8Array;
  row: number;
  raw: Buffer;
  start: number;
  end: number;
  kept: number[];
}

const fs: number[] = [];
const fe: number[] = [];

/** stratum,rank,role,household_id,ticket, then the kept cells of the frame row as they were written. */
function writeLine(out: ByteSink, l: Line): void {
  const idCell = csvCell(l.id);
  out.ensure(l.stratumCell.length + 32 + idCell.length * 3 + 66 + (l.end - l.start) + l.kept.length + 1);
  const b = out.buf;
  let pos = out.pos;
  pos += l.stratumCell.copy(b, pos);
  b[pos++] = COMMA;
  pos += b.write(String(l.rank), pos, 'latin1');
  pos += (l.sample ? SAMPLE : REPLACEMENT).copy(b, pos);
  pos += b.write(idCell, pos, 'utf8');
  b[pos++] = COMMA;
  for (let k = l.row * 32, e = k + 32; k < e; k++) {
    b[pos++] = HEX[l.tickets[k]! >> 4]!;
    b[pos++] = HEX[l.tickets[k]! & 15]!;
  }
  const nf = l.kept.length > 0 ? fieldSpans(l.raw, l.start, l.end, fs, fe) : 0;
  for (const ix of l.kept) {
    b[pos++] = COMMA;
    if (ix < nf) pos += l.raw.copy(b, pos, fs[ix]!, fe[ix]!);
  }
  b[pos++] = NL;
  out.pos = pos;
}

interface WriteOptions {
  onProgress?: (done: number, total: number) => void;
  /** Rows per window (default WRITE_WINDOW). */
  window?: number;
}

/** The SHA-256 (hex, src/lib/hash.ts) of an open file, read from its start in blocks. */
function digestOfFile(fd: number): string {
  const h = createSha256();
  const buf = Buffer.allocUnsafe(BLOCK);
  for (let pos = 0; ;) {
    const k = readSync(fd, buf, 0, BLOCK, pos);
    if (k === 0) break;
    h.update(buf.subarray(0, k));
    pos += k;
  }
  return h.digest('hex');
}

/** The frame file is not what was parsed (`now` says how): something wrote to it during the draw. */
function frameChanged(frame: Frame, now: string) {
  return selectionError(
    'frame_mismatch',
    frame.file,
    now,
    `the file as parsed (${frame.bytes} bytes, sha256 ${frame.fileSha256})`,
    {
      message: `${frame.file} changed during the draw (${frame.bytes} bytes, sha256 ${frame.fileSha256} when parsed; ${now} now); valid: a frame file that nothing writes to during the command`,
    },
  );
}

/**
 * Writes selection.csv and returns its SHA-256, its row count and every stratum's orderDigest
 * (SHA-256 of the IDs in rank order, each followed by "\n").
 */
export async function writeSelectionCsv(
  outPath: string,
  framePath: string,
  frame: Frame,
  sel: FrameSelection,
  o: WriteOptions = {},
): Promise<{ sha256: string; rows: number; orderDigests: string[] }> {
  const window = o.window ?? WRITE_WINDOW;
  const cols = keptColumns(frame);
  const kept = cols.map((k) => k.index);
  const total = sel.strata.reduce((a, s) => a + s.order.length, 0);
  const hash = createSha256();
  const orderDigests: string[] = [];
  const inFd = openSync(framePath, 'r');
  const outFd = openSync(outPath, 'w');
  const out = new ByteSink((data) => {
    hash.update(data);
    writeSync(outFd, data);
  });
  let done = 0;
  try {
    const size = fstatSync(inFd).size;
    if (size !== frame.bytes) throw frameChanged(frame, `${size} bytes`);
    const header = [...SELECTION_COLUMNS, ...cols.map((k) => k.name)].map(csvCell).join(',') + '\n';
    out.ensure(Buffer.byteLength(header));
    out.pos += out.buf.write(header, out.pos);
    let raw = Buffer.alloc(0);
    for (const st of sel.strata) {
      const stratumCell = Buffer.from(csvCell(st.name));
      const digest = createSha256();
      for (let w = 0; w < st.order.length; w += window) {
        const rows = st.order.subarray(w, Math.min(st.order.length, w + window));
        let bytes = 0;
        for (const row of rows) bytes += frame.lengths[row]!;
        if (bytes > raw.length) raw = Buffer.allocUnsafe(Math.max(bytes, raw.length * 2));
        const at = new Uint32Array(rows.length);
        gatherRows(inFd, frame.offsets, frame.lengths, rows, raw, at, window);
        const ids: string[] = [];
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!;
          const rank = w + i + 1;
          const id = frame.ids[row]!;
          ids.push(id);
          const start = at[i]!;
          writeLine(out, {
            stratumCell,
            rank,
            sample: rank <= st.sampleSize,
            id,
            tickets: sel.tickets,
            row,
            raw,
            start,
            end: start + frame.lengths[row]!,
            kept,
          });
        }
        digest.update(ids.join('\n') + '\n', 'utf8');
        done += rows.length;
        o.onProgress?.(done, total);
      }
      orderDigests.push(digest.digest('hex'));
    }
    out.flush();
    const sha = digestOfFile(inFd);
    if (sha !== frame.fileSha256) throw frameChanged(frame, `sha256 ${sha}`);
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
  o.onProgress?.(total, total);
  return { sha256: hash.digest('hex'), rows: total, orderDigests };
}
