/**
 * selection.csv: every household of every stratum in rank order — the
 * sample (role "sample", ranks 1..n_h) then the replacement list (role
 * "replacement", used strictly in order) — with the frame's other columns
 * kept. Rows are re-read from the frame by byte offset, a window of at most
 * WRITE_WINDOW rows at a time (sequential 4 MiB reads), so the CSV text is
 * never held in memory as a whole.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { csvCell } from '../csv.ts';
import type { Frame } from './frame.ts';
import type { FrameSelection } from './select.ts';

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

/** Rows per window: the raw bytes of at most this many rows are held at once while writing. */
export const WRITE_WINDOW = 1 << 18;
const BLOCK = 1 << 22;

/**
 * Fills `into` with the bytes of the given rows (slots sorted by offset),
 * reading the frame sequentially in 4 MiB blocks; a row across a block
 * boundary is read on its own.
 */
function gatherRows(fd: number, frame: Frame, rows: Uint32Array, into: Buffer, at: Uint32Array, window: number): void {
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
    pos += frame.lengths[rows[i]!]!;
  }
  const block = Buffer.alloc(BLOCK);
  let blockStart = -1;
  let blockLen = 0;
  for (const slot of slots) {
    const row = rows[slot]!;
    const off = frame.offsets[row]!;
    const len = frame.lengths[row]!;
    if (off < blockStart || off + len > blockStart + blockLen) {
      blockStart = off;
      blockLen = readSync(fd, block, 0, BLOCK, off);
    }
    if (off + len <= blockStart + blockLen) block.copy(into, at[slot]!, off - blockStart, off - blockStart + len);
    else readSync(fd, into, at[slot]!, len, off);
  }
}

const HEX = Buffer.from('0123456789abcdef');
const COMMA = 0x2c;
const QUOTE = 0x22;
const NL = 0x0a;

/** Byte spans of the fields of one raw CSV record (quotes kept: each span is a valid CSV cell). */
function fieldSpans(buf: Buffer, start: number, end: number, starts: number[], ends: number[]): number {
  let n = 0;
  let p = start;
  for (;;) {
    const s = p;
    let quoted = false;
    while (p < end) {
      const b = buf[p]!;
      if (b === QUOTE) quoted = !quoted;
      else if (b === COMMA && !quoted) break;
      p++;
    }
    starts[n] = s;
    ends[n] = p;
    n++;
    if (p >= end) return n;
    p++;
  }
}

/**
 * Writes selection.csv. Output lines are assembled as bytes: the five
 * selection cells, then the kept frame cells copied byte for byte from the
 * frame (they are valid CSV cells already), so no frame text is decoded.
 */
export function writeSelectionCsv(outPath: string, framePath: string, frame: Frame, sel: FrameSelection, onProgress?: (done: number, total: number) => void, window = WRITE_WINDOW): { sha256: string; rows: number } {
  const kept = keptColumns(frame);
  const hash = createHash('sha256');
  const inFd = openSync(framePath, 'r');
  const outFd = openSync(outPath, 'w');
  let out = Buffer.allocUnsafe(1 << 20);
  let pos = 0;
  let rows = 0;
  let raw = Buffer.alloc(0); // the window's row bytes, reused across windows
  const starts: number[] = [];
  const ends: number[] = [];
  const flush = (): void => {
    if (pos === 0) return;
    const data = out.subarray(0, pos);
    hash.update(data);
    writeSync(outFd, data);
    pos = 0;
  };
  const ensure = (need: number): void => {
    if (pos + need <= out.length) return;
    flush();
    if (need > out.length) out = Buffer.allocUnsafe(need * 2);
  };
  const sample = Buffer.from(',sample,');
  const replacement = Buffer.from(',replacement,');
  try {
    const header = [...SELECTION_COLUMNS, ...kept.map((k) => k.name)].map(csvCell).join(',') + '\n';
    ensure(Buffer.byteLength(header));
    pos += out.write(header, pos);
    for (const st of sel.strata) {
      const name = Buffer.from(csvCell(st.name));
      for (let w = 0; w < st.order.length; w += window) {
        const win = st.order.subarray(w, Math.min(st.order.length, w + window));
        let bytes = 0;
        for (const row of win) bytes += frame.lengths[row]!;
        if (bytes > raw.length) raw = Buffer.allocUnsafe(Math.max(bytes, raw.length * 2));
        const at = new Uint32Array(win.length);
        if (kept.length > 0) gatherRows(inFd, frame, win, raw, at, window);
        for (let i = 0; i < win.length; i++) {
          const row = win[i]!;
          const r = w + i;
          const id = csvCell(frame.ids[row]!);
          const len = frame.lengths[row]!;
          ensure(name.length + 16 + 13 + id.length * 3 + 1 + 64 + len + kept.length + 1);
          pos += name.copy(out, pos);
          out[pos++] = COMMA;
          pos += out.write(String(r + 1), pos, 'latin1');
          pos += (r < st.sampleSize ? sample : replacement).copy(out, pos);
          pos += out.write(id, pos, 'utf8');
          out[pos++] = COMMA;
          const t = row * 32;
          for (let k = 0; k < 32; k++) {
            const b = sel.tickets[t + k]!;
            out[pos++] = HEX[b >> 4]!;
            out[pos++] = HEX[b & 15]!;
          }
          if (kept.length > 0) {
            const n = fieldSpans(raw, at[i]!, at[i]! + len, starts, ends);
            for (const kc of kept) {
              out[pos++] = COMMA;
              if (kc.index < n) pos += raw.copy(out, pos, starts[kc.index]!, ends[kc.index]!);
            }
          }
          out[pos++] = NL;
          rows++;
          if (onProgress && (rows & 0xffff) === 0) onProgress(rows, frame.rows);
        }
      }
    }
    flush();
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
  return { sha256: hash.digest('hex'), rows };
}
