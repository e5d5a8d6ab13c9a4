/**
 * selection.csv: every household of every stratum in rank order — the
 * sample (role "sample", ranks 1..n_h) then the replacement list (role
 * "replacement", used strictly in order) — with the frame's other columns
 * kept. Rows are re-read from the frame by byte offset (positional reads), so
 * the CSV text is never held in memory.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { csvCell, splitRecord } from './csv.ts';
import type { Frame } from './frame.ts';
import { ticketHex, type FrameSelection } from './select.ts';

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

export function writeSelectionCsv(outPath: string, framePath: string, frame: Frame, sel: FrameSelection, onProgress?: (done: number) => void): { sha256: string; rows: number } {
  const kept = keptColumns(frame);
  const hash = createHash('sha256');
  const inFd = openSync(framePath, 'r');
  const outFd = openSync(outPath, 'w');
  let buf = Buffer.alloc(1 << 16);
  let pending: string[] = [];
  let pendingLen = 0;
  let rows = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    const data = Buffer.from(pending.join(''), 'utf8');
    hash.update(data);
    writeSync(outFd, data);
    pending = [];
    pendingLen = 0;
  };
  const emit = (line: string): void => {
    pending.push(line);
    pendingLen += line.length;
    if (pendingLen > 1 << 20) flush();
  };
  try {
    emit([...SELECTION_COLUMNS, ...kept.map((k) => k.name)].map(csvCell).join(',') + '\n');
    for (const st of sel.strata) {
      const name = csvCell(st.name);
      for (let r = 0; r < st.order.length; r++) {
        const row = st.order[r]!;
        const len = frame.lengths[row]!;
        if (len > buf.length) buf = Buffer.alloc(len * 2);
        readSync(inFd, buf, 0, len, frame.offsets[row]!);
        const fields = kept.length > 0 ? splitRecord(buf.subarray(0, len)) : [];
        let line = `${name},${r + 1},${r < st.sampleSize ? 'sample' : 'replacement'},${csvCell(frame.ids[row]!)},${ticketHex(sel.tickets, row)}`;
        for (const k of kept) line += ',' + csvCell(fields[k.index] ?? '');
        emit(line + '\n');
        rows++;
        if (onProgress && (rows & 0xffff) === 0) onProgress(rows);
      }
    }
    flush();
  } finally {
    closeSync(inFd);
    closeSync(outFd);
  }
  return { sha256: hash.digest('hex'), rows };
}
