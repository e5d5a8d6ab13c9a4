/**
 * A streaming RFC 4180 CSV record scanner over bytes: quoted fields (with ""
 * escapes and embedded newlines), LF or CRLF line ends, a UTF-8 BOM, blank
 * lines skipped. It works on Buffers so each record's byte offset and length
 * in the file are known (selection output re-reads rows by offset instead of
 * keeping the CSV text in memory). Only the fields a caller asks for are
 * decoded to strings.
 */
import { OracleKitError } from './errors.ts';

/** Builds the error for malformed CSV; each area passes its own (selection: invalid_frame). */
type CsvErrorFactory = (where: string, value: string, valid: string, message: string) => Error;

const defaultCsvError: CsvErrorFactory = (where, value, valid, message) =>
  new OracleKitError({ status: 400, code: 'invalid_csv', field: where, value, valid, message });

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

export interface CsvRecord {
  /** The bytes the spans point into (valid only during the callback). */
  buf: Buffer;
  /** Number of fields. */
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  quoted: Uint8Array;
  /** Absolute byte offset of the record in the input, and its length without the line end. */
  offset: number;
  length: number;
  /** 1-based physical line where the record starts. */
  line: number;
}

/** Decodes field i of a record (quoted fields unescaped). Missing fields are ''. */
export function field(rec: CsvRecord, i: number): string {
  if (i < 0 || i >= rec.count) return '';
  const s = rec.buf.toString('utf8', rec.starts[i]!, rec.ends[i]!);
  return rec.quoted[i] ? s.replaceAll('""', '"') : s;
}

export class CsvScanner {
  private pending: Buffer | null = null;
  private base = 0; // absolute offset of pending[0] / the current chunk start
  private line = 1;
  private first = true;
  private maxFields = 64;
  private rec: CsvRecord = {
    buf: Buffer.alloc(0),
    count: 0,
    starts: new Int32Array(64),
    ends: new Int32Array(64),
    quoted: new Uint8Array(64),
    offset: 0,
    length: 0,
    line: 1,
  };
  private readonly name: string;
  private readonly onRecord: (rec: CsvRecord) => void;
  private readonly makeError: CsvErrorFactory;

  constructor(name: string, onRecord: (rec: CsvRecord) => void, makeError: CsvErrorFactory = defaultCsvError) {
    this.name = name;
    this.onRecord = onRecord;
    this.makeError = makeError;
  }

  push(chunk: Buffer): void {
    this.scan(chunk, false);
  }

  end(): void {
    this.scan(Buffer.alloc(0), true);
  }

  private grow(): void {
    this.maxFields *= 2;
    const r = this.rec;
    const s = new Int32Array(this.maxFields);
    s.set(r.starts);
    r.starts = s;
    const e = new Int32Array(this.maxFields);
    e.set(r.ends);
    r.ends = e;
    const q = new Uint8Array(this.maxFields);
    q.set(r.quoted);
    r.quoted = q;
  }

  private scan(chunk: Buffer, final: boolean): void {
    const data = this.pending && this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let pos = 0;
    if (this.first) {
      if (data.length < 3 && !final) {
        this.pending = data;
        return;
      }
      if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
        pos = 3;
      }
      this.first = false;
    }
    const n = data.length;
    const rec = this.rec;
    rec.buf = data;
    // each iteration: one record starting at pos
    while (pos < n) {
      const recStart = pos;
      let lines = 0; // newlines inside quoted fields of this record
      let count = 0;
      let p = pos;
      let complete = false;
      let endOfRecord = -1;
      for (;;) {
        if (count >= this.maxFields) this.grow();
        if (p < n && data[p] === QUOTE) {
          // quoted field
          let q = p + 1;
          let closed = -1;
          while (q < n) {
            const b = data[q]!;
            if (b === QUOTE) {
              if (q + 1 < n && data[q + 1] === QUOTE) {
                q += 2;
                continue;
              }
              if (q + 1 >= n && !final) break; // cannot tell "" from " yet
              closed = q;
              break;
            }
            if (b === LF) lines++;
            q++;
          }
          if (closed < 0) {
            if (final) {
              throw this.makeError(
                `${this.name}:${this.line}`,
                'unterminated quoted field',
                'a closing " for every opening "',
                `${this.name}:${this.line}: a quoted field is never closed; valid: RFC 4180 CSV, a closing " for every opening "`,
              );
            }
            break; // need more data
          }
          rec.starts[count] = p + 1;
          rec.ends[count] = closed;
          rec.quoted[count] = 1;
          count++;
          p = closed + 1;
          if (p >= n) {
            if (!final) break;
            endOfRecord = p;
            complete = true;
            p = n;
            break;
          }
          const b = data[p]!;
          if (b === COMMA) {
            p++;
            continue;
          }
          if (b === LF) {
            endOfRecord = p;
            complete = true;
            p++;
            break;
          }
          if (b === CR) {
            if (p + 1 >= n && !final) break;
            if (p + 1 >= n || data[p + 1] === LF) {
              endOfRecord = p;
              complete = true;
              p = Math.min(n, p + 2);
              break;
            }
          }
          throw this.makeError(
            `${this.name}:${this.line + lines}`,
            String.fromCharCode(b),
            'a comma or a line end right after a closing quote',
            `${this.name}:${this.line + lines}: unexpected ${JSON.stringify(String.fromCharCode(b))} after a closing quote; valid: a comma or a line end (RFC 4180)`,
          );
        }
        // unquoted field: up to comma or LF
        let q = p;
        while (q < n) {
          const b = data[q]!;
          if (b === COMMA || b === LF) break;
          q++;
        }
        if (q >= n && !final) break;
        let e = q;
        const atEnd = q >= n || data[q] === LF;
        if (atEnd && e > p && data[e - 1] === CR) e--;
        rec.starts[count] = p;
        rec.ends[count] = e;
        rec.quoted[count] = 0;
        count++;
        if (q >= n) {
          endOfRecord = e;
          complete = true;
          p = n;
          break;
        }
        if (data[q] === COMMA) {
          p = q + 1;
          continue;
        }
        endOfRecord = e;
        complete = true;
        p = q + 1;
        break;
      }
      if (!complete) break;
      const blank = count === 1 && rec.starts[0] === rec.ends[0] && !rec.quoted[0];
      if (!blank) {
        rec.count = count;
        rec.offset = this.base + recStart;
        rec.length = endOfRecord - recStart;
        rec.line = this.line;
        this.onRecord(rec);
      }
      // line accounting: the record's own line end plus embedded newlines
      this.line += lines + (p > 0 && data[p - 1] === LF ? 1 : 0);
      pos = p;
    }
    if (pos < n) this.pending = data.subarray(pos);
    this.base += pos;
  }
}

/** Splits one CSV record (bytes without its line end) into decoded fields. */
export function splitRecord(buf: Buffer, start = 0, end = buf.length): string[] {
  const out: string[] = [];
  let p = start;
  for (;;) {
    if (p < end && buf[p] === QUOTE) {
      let q = p + 1;
      let escaped = false;
      while (q < end) {
        if (buf[q] === QUOTE) {
          if (q + 1 < end && buf[q + 1] === QUOTE) {
            q += 2;
            escaped = true;
            continue;
          }
          break;
        }
        q++;
      }
      const v = buf.toString('utf8', p + 1, Math.min(q, end));
      out.push(escaped ? v.replaceAll('""', '"') : v);
      p = q + 1; // past the closing quote
      if (p < end && buf[p] === COMMA) {
        p++;
        continue;
      }
      return out;
    }
    let q = p;
    while (q < end && buf[q] !== COMMA) q++;
    out.push(buf.toString('utf8', p, q));
    if (q >= end) return out;
    p = q + 1;
  }
}

/** One CSV cell: quoted when it holds a comma, a quote or a line break. */
export function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

interface CsvRow {
  line: number;
  fields: string[];
}

/** A whole CSV text as rows of strings with the 1-based line where each row starts. */
export function parseCsv(text: string, name = 'csv', makeError: CsvErrorFactory = defaultCsvError): CsvRow[] {
  const rows: CsvRow[] = [];
  const scanner = new CsvScanner(
    name,
    (rec) => {
      const fields: string[] = [];
      for (let i = 0; i < rec.count; i++) fields.push(field(rec, i));
      rows.push({ line: rec.line, fields });
    },
    makeError,
  );
  scanner.push(Buffer.from(text, 'utf8'));
  scanner.end();
  return rows;
}
