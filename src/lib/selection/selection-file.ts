/**
 * selection.csv read back: one reader (the header, then each row in turn, hashing the file as it goes, stopping at
 * the first row that does not recompute) and its two checks — row by row against the order recomputed from the
 * frame (`sample verify --selection`), and without the frame, from the file alone (`sample report`, `sample
 * check`): the file holds every household with its stratum, rank, role and ticket, so the frameHash, every ticket,
 * the order, the roles, the proof's sample, every orderDigest and the file's sha256 recompute from it.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { isOracleKitError } from '../errors.ts';
import { CsvScanner, field, type CsvRecord } from '../csv.ts';
import { short, type Checks } from './checks.ts';
import { frameCsvError, selectionError } from './errors.ts';
import { scanFileHashing, type Frame } from './frame.ts';
import { Ticketer, compareUtf8, hashSortedIds, sortUtf8 } from './hash.ts';
import { keptColumns, SELECTION_COLUMNS } from './output.ts';
import type { Commitment, Proof } from './records.ts';
import { ticketHex, type FrameSelection } from './select.ts';

/**
 * Reads selection.csv in one pass: `header` checks the header row, `row` each data row; both return the first
 * mismatch (or null), which ends the reading. The row count and the file's sha256 come back with it.
 */
async function readSelectionCsv(
  path: string,
  name: string,
  header: (fields: string[], line: number) => string | null,
  row: (rec: CsvRecord) => string | null,
): Promise<{ rows: number; sha256: string; mismatch: string | null }> {
  let first = true;
  let mismatch: string | null = null;
  let rows = 0;
  const scanner = new CsvScanner(
    name,
    (rec) => {
      if (mismatch) return;
      if (first) {
        first = false;
        mismatch = header(
          Array.from({ length: rec.count }, (_, i) => field(rec, i)),
          rec.line,
        );
        return;
      }
      rows++;
      mismatch = row(rec);
    },
    frameCsvError,
  );
  const { sha256 } = await scanFileHashing(path, scanner, { stop: () => mismatch !== null });
  return { rows, sha256, mismatch };
}

/** Compares selection.csv row by row with the order recomputed from the frame; returns the first mismatch or null. */
export async function checkSelectionCsv(
  path: string,
  frame: Frame,
  sel: FrameSelection,
  p: Proof,
): Promise<string | null> {
  if (!existsSync(path))
    throw selectionError('file_not_found', 'selection', path, 'the selection.csv written by `sample select draw`');
  const name = basename(path);
  const expectedHeader = [...SELECTION_COLUMNS, ...keptColumns(frame).map((k) => k.name)].join(',');
  const total = sel.strata.reduce((a, s) => a + s.order.length, 0);
  let si = 0;
  let rank = 0;
  const read = await readSelectionCsv(
    path,
    name,
    (h, line) =>
      h.join(',') !== expectedHeader
        ? `${name}:${line}: header ${JSON.stringify(h.join(','))} is not ${JSON.stringify(expectedHeader)}`
        : null,
    (rec) => {
      while (si < sel.strata.length && rank >= sel.strata[si]!.order.length) {
        si++;
        rank = 0;
      }
      if (si >= sel.strata.length) return `${name}:${rec.line}: an extra row beyond the ${total} households`;
      const s = sel.strata[si]!;
      const row = s.order[rank]!;
      const want = [
        s.name,
        String(rank + 1),
        rank < s.sampleSize ? 'sample' : 'replacement',
        frame.ids[row]!,
        ticketHex(sel.tickets, row),
      ];
      for (let i = 0; i < want.length; i++) {
        const got = field(rec, i);
        if (got !== want[i])
          return `${name}:${rec.line}: ${SELECTION_COLUMNS[i]} is ${JSON.stringify(got)}, recomputed ${JSON.stringify(want[i])} (stratum ${s.name}, rank ${rank + 1})`;
      }
      rank++;
      return null;
    },
  );
  if (read.mismatch) return read.mismatch;
  if (read.rows !== total)
    return `${name}: ${read.rows} rows, the frame has ${total} households (the list is cut short)`;
  if (read.sha256 !== p.selection.sha256)
    return `${name}: sha256 ${read.sha256} is not the proof's ${p.selection.sha256}; the ranks and IDs match, so another column was edited`;
  return null;
}

export interface SelectionFileReading {
  /** Per committed stratum, the replacement list in rank order (at most `keep` IDs each). */
  replacements: { stratum: string; rank: number; household_id: string; ticket: string }[][];
  /** Per committed stratum, every household ID in rank order (ranks 1..n_h the sample), as checked. */
  order: { stratum: string; sampleSize: number; ids: string[] }[];
}

/**
 * selection.csv without the frame, as the check `selection.csv`: every row recomputes from the seed and the
 * commitment, and the totals add up (see selectionTotalsMismatch). What it cannot show is the frame file's other
 * columns as committed (fileSha256) — that needs the frame.
 */
export async function selectionFileChecks(
  c: Commitment,
  p: Proof,
  seed: string,
  path: string,
  keep: number[],
  k: Checks,
): Promise<SelectionFileReading | null> {
  const name = basename(path);
  if (!existsSync(path)) {
    k.fail('selection.csv', 'integrity', `${path} does not exist`);
    return null;
  }
  const read = await readSelectionFile(c, seed, path, name);
  const { strata, rows } = read;
  const mismatch = read.mismatch ?? selectionTotalsMismatch(c, p, name, read);
  if (mismatch) {
    k.fail('selection.csv', 'integrity', mismatch);
    return null;
  }
  k.pass(
    'selection.csv',
    'integrity',
    `${name}: all ${rows} households — frameHash (whole and per stratum), every ticket from the seed, the (ticket, id) order, roles, the proof's sample, every orderDigest and the file's sha256 recompute`,
  );
  return {
    replacements: c.strata.map((cs, i) => {
      const s = strata[i]!;
      const out = [];
      for (let r = cs.sampleSize; r < s.ids.length && r < cs.sampleSize + keep[i]!; r++)
        out.push({ stratum: cs.name, rank: r + 1, household_id: s.ids[r]!, ticket: s.tickets[r]! });
      return out;
    }),
    order: c.strata.map((cs, i) => ({ stratum: cs.name, sampleSize: cs.sampleSize, ids: strata[i]!.ids })),
  };
}

/** selection.csv as read: per committed stratum its IDs and tickets in file order, the row count and sha256. */
interface SelectionFile {
  strata: { ids: string[]; tickets: string[] }[];
  rows: number;
  sha256: string;
  /** The first row that does not recompute (or a CSV error), or null. */
  mismatch: string | null;
}

/**
 * Checks each row of selection.csv as it comes: a committed stratum in one block in the design's order, the next
 * rank, its role, its ticket from the seed and the (ticket, id) order. A CSV error is a mismatch too.
 */
async function readSelectionFile(c: Commitment, seed: string, path: string, name: string): Promise<SelectionFile> {
  const t = new Ticketer(seed);
  const strata = c.strata.map(() => ({ ids: [] as string[], tickets: [] as string[] }));
  const byName = new Map(c.strata.map((s, i) => [s.name, i] as const));
  let cur = -1;
  const columns = SELECTION_COLUMNS.join(',');
  const row = (rec: CsvRecord): string | null => {
    const st = field(rec, 0);
    const si = byName.get(st);
    if (si === undefined) return `${name}:${rec.line}: stratum ${JSON.stringify(st)} is not a committed stratum`;
    if (si !== cur) {
      if (si < cur || strata[si]!.ids.length > 0)
        return `${name}:${rec.line}: stratum ${st} does not come in one block in the design's order`;
      cur = si;
    }
    const s = strata[si]!;
    const rank = s.ids.length + 1;
    const id = field(rec, 3);
    const ticket = field(rec, 4);
    const role = rank <= c.strata[si]!.sampleSize ? 'sample' : 'replacement';
    if (field(rec, 1) !== String(rank))
      return `${name}:${rec.line}: rank is ${JSON.stringify(field(rec, 1))}, expected ${rank} (stratum ${st})`;
    if (field(rec, 2) !== role)
      return `${name}:${rec.line}: role is ${JSON.stringify(field(rec, 2))}, expected ${role} (stratum ${st}, rank ${rank}, n_h ${c.strata[si]!.sampleSize})`;
    const want = t.hex(st, id);
    if (ticket !== want)
      return `${name}:${rec.line}: ticket of ${JSON.stringify(id)} is ${short(ticket)}…, recomputed from the seed ${short(want)}…`;
    if (s.ids.length > 0) {
      const pt = s.tickets[s.tickets.length - 1]!;
      if (pt > ticket || (pt === ticket && compareUtf8(s.ids[s.ids.length - 1]!, id) >= 0))
        return `${name}:${rec.line}: rank ${rank} is not after rank ${rank - 1} in (ticket, id) order`;
    }
    s.ids.push(id);
    s.tickets.push(ticket);
    return null;
  };
  try {
    const read = await readSelectionCsv(
      path,
      name,
      (h, line) => {
        const head = h.slice(0, SELECTION_COLUMNS.length).join(',');
        return head !== columns
          ? `${name}:${line}: the header starts ${JSON.stringify(head)}, not ${JSON.stringify(columns)}`
          : null;
      },
      row,
    );
    return { strata, ...read };
  } catch (e) {
    if (isOracleKitError(e)) return { strata, rows: 0, sha256: '', mismatch: e.message };
    throw e;
  }
}

/**
 * What a complete selection.csv must add up to: each stratum's count and IDs (frameHash), the proof's sample and
 * orderDigest, the whole frameHash, then the file's sha256 and row count; the first difference or null.
 */
function selectionTotalsMismatch(c: Commitment, p: Proof, name: string, read: SelectionFile): string | null {
  const all: string[] = [];
  for (let i = 0; i < c.strata.length; i++) {
    const cs = c.strata[i]!;
    const s = read.strata[i]!;
    if (s.ids.length !== cs.households)
      return `${name}: stratum ${cs.name} has ${s.ids.length} rows, the commitment ${cs.households} households`;
    const fh = hashSortedIds(sortUtf8([...s.ids]));
    if (c.strata.length > 1 && fh !== cs.frameHash)
      return `${name}: the IDs of stratum ${cs.name} hash to ${short(fh)}…, committed ${short(cs.frameHash)}…`;
    const ps = p.strata[i];
    if (ps) {
      for (let r = 0; r < cs.sampleSize && r < ps.sample.length; r++) {
        if (ps.sample[r]!.household_id !== s.ids[r])
          return `${name}: stratum ${cs.name} rank ${r + 1} is ${JSON.stringify(s.ids[r])}, the proof lists ${JSON.stringify(ps.sample[r]!.household_id)}`;
      }
      const od = hashSortedIds(s.ids);
      if (od !== ps.orderDigest)
        return `${name}: the order of stratum ${cs.name} hashes to ${short(od)}…, proof.orderDigest is ${short(ps.orderDigest)}…`;
    }
    for (const id of s.ids) all.push(id);
  }
  const fh = hashSortedIds(sortUtf8(all));
  if (fh !== c.frame.frameHash)
    return `${name}: the ${all.length} IDs hash to frameHash ${short(fh)}…, committed ${short(c.frame.frameHash)}…: the list is not the committed frame`;
  if (read.sha256 !== p.selection.sha256)
    return `${name}: sha256 ${read.sha256} is not the proof's ${p.selection.sha256}; the ranks, IDs and tickets recompute, so another column was edited`;
  if (read.rows !== p.selection.rows) return `${name}: ${read.rows} rows, the proof says ${p.selection.rows}`;
  return null;
}
