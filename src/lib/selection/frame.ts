/**
 * Reads a household frame CSV (`household_id[,stratum][,adopter]` plus any
 * other columns) in one streamed pass: the file is hashed as it is read, and
 * per row only the trimmed ID, the stratum index, the row's byte offset,
 * length and line are kept (about 60 bytes per household beyond the ID
 * string). The raw CSV text is never held: selection output re-reads rows by
 * offset. Nothing here looks at the adopter column.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { CsvScanner, field, type CsvRecord } from '../csv.ts';
import { frameCsvError, selectionError } from './errors.ts';
import { UNIT_SEPARATOR, compareUtf8, hashSortedIds, needsCodePointOrder, stratumKey, trimId } from './hash.ts';
import { createSha256 } from '../hash.ts';

export const UNSTRATIFIED = 'all';

export interface Frame {
  file: string;
  fileSha256: string;
  bytes: number;
  rows: number;
  header: string[];
  idColumn: number;
  /** Index of the stratum column, or -1. */
  stratumColumn: number;
  /** True when the frame has a stratum column that an unstratified design ignores. */
  stratumColumnIgnored: boolean;
  headerOffset: number;
  headerLength: number;
  /** Every row has exactly as many fields as the header (selection.csv can then copy the kept columns as one span). */
  fieldsUniform: boolean;
  /** Canonical stratum names (the design's), indexed by stratum[]. */
  strataNames: string[];
  ids: string[];
  stratum: Uint16Array<ArrayBufferLike>;
  offsets: Float64Array<ArrayBufferLike>;
  lengths: Uint32Array<ArrayBufferLike>;
  lines: Uint32Array<ArrayBufferLike>;
}

interface ReadFrameOptions {
  /** The design's stratum names; empty for an unstratified design (one stratum "all"). */
  strata: string[];
  /** Called with bytes read so far and the file's size (progress display). */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

/** A typed array of twice the length holding a's elements (the row columns grow by doubling). */
function grow<A extends Uint16Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>(a: A): A {
  const b = new (a.constructor as new (n: number) => A)(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Streams a file through a CSV scanner in 1 MiB chunks and hashes it with SHA-256 in the same read. Stops early
 * once `stop()` says so (the scanner is then not ended); `onChunk` gets the bytes read so far after each chunk.
 */
export async function scanFileHashing(
  path: string,
  scanner: CsvScanner,
  o: { stop?: () => boolean; onChunk?: (bytes: number) => void } = {},
): Promise<{ sha256: string; bytes: number }> {
  const hash = createSha256();
  let bytes = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    scanner.push(chunk);
    o.onChunk?.(bytes);
    if (o.stop?.()) break;
  }
  if (!o.stop?.()) scanner.end();
  return { sha256: hash.digest('hex'), bytes };
}

type FrameHead = Pick<Frame, 'header' | 'idColumn' | 'stratumColumn' | 'headerOffset' | 'headerLength'>;

/** The frame's header row: its trimmed names and the household_id and stratum columns (a stratified design needs one). */
function frameHeader(rec: CsvRecord, name: string, strataNames: string[], stratified: boolean): FrameHead {
  const header: string[] = [];
  for (let i = 0; i < rec.count; i++) header.push(trimId(field(rec, i)));
  const lower = header.map((h) => h.toLowerCase());
  const idCol = lower.indexOf('household_id');
  const stCol = lower.indexOf('stratum');
  if (idCol < 0) {
    throw selectionError(
      'invalid_frame',
      `${name}:${rec.line}`,
      header.join(','),
      'a header row with a household_id column',
      {
        message: `${name}:${rec.line}: the header ${JSON.stringify(header.join(','))} has no household_id column; valid: household_id[,stratum][,adopter] plus any other columns`,
      },
    );
  }
  if (stratified && stCol < 0) {
    throw selectionError(
      'missing_stratum_column',
      `${name}:${rec.line}`,
      header.join(','),
      `a stratum column (the design has strata ${strataNames.join(', ')})`,
      {
        message: `${name}:${rec.line}: the design is stratified (${strataNames.join(', ')}) but the header ${JSON.stringify(header.join(','))} has no stratum column`,
      },
    );
  }
  return { header, idColumn: idCol, stratumColumn: stCol, headerOffset: rec.offset, headerLength: rec.length };
}

/** A blank household ID, or one holding U+001F (the ticket separator). */
function householdIdError(where: string, id: string) {
  return id === ''
    ? selectionError('blank_household_id', where, id, 'a non-empty household_id', {
        message: `${where}: household_id is blank; valid: a non-empty ID (IDs are trimmed)`,
      })
    : selectionError('invalid_household_id', where, id, 'an ID without U+001F', {
        message: `${where}: household_id ${JSON.stringify(id)} contains U+001F, the ticket separator; valid: any trimmed UTF-8 text without U+001F`,
      });
}

/** A row whose stratum is not one of the design's. */
function unknownStratumError(where: string, raw: string, id: string, strataNames: string[]) {
  return selectionError('unknown_stratum', where, raw, `one of the design's strata: ${strataNames.join(', ')}`, {
    message: `${where}: stratum ${JSON.stringify(raw)} (household ${JSON.stringify(id)}) is not in the design; valid: ${strataNames.join(', ')} (trimmed; only ASCII letters match case-insensitively)`,
  });
}

/**
 * The stratum of a row: the stratum cells of a frame repeat a handful of byte strings, so they are matched by bytes
 * and each is decoded once (`idx` is the design's stratum, undefined for one the design does not have).
 */
function stratumCells(
  byKey: Map<string, number>,
): (rec: CsvRecord, col: number) => { idx: number | undefined; raw: string } {
  const seenCells: { bytes: Buffer; quoted: number; idx: number | undefined; raw: string }[] = [];
  return (rec, col) => {
    const a = rec.starts[col]!;
    const b = rec.ends[col]!;
    const q = rec.quoted[col]!;
    const buf = rec.buf;
    outer: for (const c of seenCells) {
      if (c.quoted !== q || c.bytes.length !== b - a) continue;
      for (let i = 0; i < c.bytes.length; i++) if (c.bytes[i] !== buf[a + i]) continue outer;
      return c;
    }
    const raw = field(rec, col);
    const c = { bytes: Buffer.from(buf.subarray(a, b)), quoted: q, idx: byKey.get(stratumKey(raw)), raw };
    if (seenCells.length < 256) seenCells.push(c);
    return c;
  };
}

export async function readFrame(path: string, opts: ReadFrameOptions): Promise<Frame> {
  if (!existsSync(path))
    throw selectionError('file_not_found', 'frame', path, 'an existing CSV file with a household_id column');
  const name = basename(path);
  const stratified = opts.strata.length > 0;
  const strataNames = stratified ? [...opts.strata] : [UNSTRATIFIED];
  const byKey = new Map(strataNames.map((s, i) => [stratumKey(s), i] as const));
  const stratumOf = stratumCells(byKey);
  let cap = 1 << 14;
  let ids: string[] = [];
  let stratum = new Uint16Array(cap);
  let offsets = new Float64Array(cap);
  let lengths = new Uint32Array(cap);
  let lines = new Uint32Array(cap);
  let rows = 0;
  let head = null as FrameHead | null; // set by onRecord, which narrowing does not follow
  let uniform = true;
  const onRecord = (rec: CsvRecord): void => {
    if (head === null) {
      head = frameHeader(rec, name, strataNames, stratified);
      return;
    }
    if (rec.count !== head.header.length) uniform = false;
    const id = trimId(field(rec, head.idColumn));
    if (id === '' || id.includes(UNIT_SEPARATOR)) throw householdIdError(`${name}:${rec.line}`, id);
    let s = 0;
    if (stratified) {
      const { idx, raw } = stratumOf(rec, head.stratumColumn);
      if (idx === undefined) throw unknownStratumError(`${name}:${rec.line}`, raw, id, strataNames);
      s = idx;
    }
    if (rows === cap) {
      cap *= 2;
      stratum = grow(stratum);
      offsets = grow(offsets);
      lengths = grow(lengths);
      lines = grow(lines);
    }
    ids.push(id);
    stratum[rows] = s;
    offsets[rows] = rec.offset;
    lengths[rows] = rec.length;
    lines[rows] = rec.line;
    rows++;
  };
  const size = statSync(path).size;
  const { sha256: fileSha256, bytes } = await scanFileHashing(path, new CsvScanner(name, onRecord, frameCsvError), {
    onChunk: (bytes) => opts.onProgress?.(bytes, size),
  });
  if (head === null) {
    throw selectionError(
      'invalid_frame',
      name,
      '(empty file)',
      'a CSV with a household_id header and one row per household',
    );
  }
  const frame: Frame = {
    file: name,
    fileSha256,
    bytes,
    rows,
    ...head,
    stratumColumnIgnored: !stratified && head.stratumColumn >= 0,
    fieldsUniform: uniform,
    strataNames,
    ids,
    stratum: stratum.subarray(0, rows),
    offsets: offsets.subarray(0, rows),
    lengths: lengths.subarray(0, rows),
    lines: lines.subarray(0, rows),
  };
  ids = [];
  return frame;
}

/** Row indices per stratum, in frame order. */
export function rowsByStratum(frame: Frame): Uint32Array[] {
  const counts = new Uint32Array(frame.strataNames.length);
  for (let i = 0; i < frame.rows; i++) counts[frame.stratum[i]!]!++;
  const out = [...counts].map((c) => new Uint32Array(c));
  const fill = new Uint32Array(frame.strataNames.length);
  for (let i = 0; i < frame.rows; i++) {
    const s = frame.stratum[i]!;
    out[s]![fill[s]!++] = i;
  }
  return out;
}

interface FrameHashes {
  /** Over every ID of the frame: the frameHash of the seed. */
  frameHash: string;
  /** Per stratum (index as frame.strataNames): the same construction over that stratum's IDs. */
  strata: { name: string; households: number; frameHash: string }[];
}

/**
 * frameHash of the whole frame and of each stratum. Throws
 * duplicate_household naming both lines (a sorted list makes duplicates
 * adjacent, so detection is free); when there are several, the one whose
 * second occurrence comes first in the file, so the error is stable.
 */
export function hashFrame(frame: Frame, byStratum: Uint32Array[]): FrameHashes {
  // each stratum sorted on its own, then merged: cheaper than sorting the whole frame and every stratum again
  let special = false;
  const lists = byStratum.map((rows) => {
    const ids = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) ids[i] = frame.ids[rows[i]!]!;
    if (!special && needsCodePointOrder(ids)) special = true;
    return ids;
  });
  for (const l of lists) {
    if (special) l.sort(compareUtf8);
    else l.sort();
  }
  const sorted = mergeSorted(lists, special);
  let dups: Set<string> | null = null;
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) (dups ??= new Set()).add(sorted[i]!);
  }
  if (dups) throw duplicateError(frame, dups);
  const frameHash = hashSortedIds(sorted);
  const strata = frame.strataNames.map((name, s) => ({
    name,
    households: lists[s]!.length,
    frameHash: lists.length === 1 ? frameHash : hashSortedIds(lists[s]!),
  }));
  return { frameHash, strata };
}

/** Merges sorted lists (UTF-8 byte order) pairwise, O(n log k). */
function mergeSorted(lists: string[][], special: boolean): string[] {
  let level = lists.filter((l) => l.length > 0);
  if (level.length === 0) return [];
  while (level.length > 1) {
    const next: string[][] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(i + 1 < level.length ? mergeTwo(level[i]!, level[i + 1]!, special) : level[i]!);
    level = next;
  }
  return level[0]!;
}

function mergeTwo(a: string[], b: string[], special: boolean): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  if (special) {
    while (i < a.length && j < b.length) out[k++] = compareUtf8(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  } else {
    while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

function duplicateError(frame: Frame, dups: Set<string>) {
  const first = new Map<string, number>();
  let id = '';
  const at: number[] = [];
  for (let i = 0; i < frame.rows; i++) {
    const x = frame.ids[i]!;
    if (!dups.has(x)) continue;
    const prev = first.get(x);
    if (prev === undefined) {
      first.set(x, frame.lines[i]!);
      continue;
    }
    id = x;
    at.push(prev, frame.lines[i]!);
    break;
  }
  const more = dups.size > 1 ? ` (${dups.size} IDs are duplicated; this is the first repeated in the file)` : '';
  return selectionError('duplicate_household', `${frame.file}:${at[1]}`, id, 'unique household IDs (after trim)', {
    message: `${frame.file}:${at[1]}: household_id ${JSON.stringify(id)} duplicates line ${at[0]}${more}; valid: unique household IDs (after trim)`,
    details: { lines: at, duplicatedIds: dups.size },
  });
}
