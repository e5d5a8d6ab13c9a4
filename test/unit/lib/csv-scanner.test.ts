import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CsvScanner, csvCell, field, splitRecord } from '../../../src/lib/csv.ts';

function parse(text: string | Buffer, chunk = 7): { fields: string[]; line: number; offset: number; length: number }[] {
  const out: { fields: string[]; line: number; offset: number; length: number }[] = [];
  const s = new CsvScanner('t.csv', (r) =>
    out.push({
      fields: Array.from({ length: r.count }, (_, i) => field(r, i)),
      line: r.line,
      offset: r.offset,
      length: r.length,
    }),
  );
  const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < buf.length; i += chunk) s.push(buf.subarray(i, i + chunk));
  s.end();
  return out;
}

describe('CsvScanner', () => {
  it('handles quotes, escaped quotes, embedded newlines, CRLF, a BOM and blank lines; lines and offsets are right', () => {
    const text = '\uFEFFid,name\r\n1,"a, ""b"""\r\n\r\n2,"multi\nline"\n3,plain';
    const recs = parse(text, 3);
    expect(recs.map((r) => r.fields)).toEqual([
      ['id', 'name'],
      ['1', 'a, "b"'],
      ['2', 'multi\nline'],
      ['3', 'plain'],
    ]);
    expect(recs.map((r) => r.line)).toEqual([1, 2, 4, 6]);
    const buf = Buffer.from(text);
    for (const r of recs) expect(splitRecord(buf.subarray(r.offset, r.offset + r.length))).toEqual(r.fields);
  });

  it('names the line of an unterminated quote', () => {
    expect(() => parse('id\n1\n"open\n2\n')).toThrow(/t\.csv:3: a quoted field is never closed/);
  });

  it('round-trips any table written with csvCell, whatever the chunk size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ maxLength: 8 }), { minLength: 2, maxLength: 2 }), {
          minLength: 1,
          maxLength: 10,
        }),
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        (rows, chunk, crlf) => {
          const rowsNonBlank = rows.map(([a, b]) => [a === '' && b === '' ? 'x' : a!, b!]);
          const text = rowsNonBlank.map((r) => r.map(csvCell).join(',')).join(crlf ? '\r\n' : '\n');
          expect(parse(text, chunk).map((r) => r.fields)).toEqual(rowsNonBlank);
        },
      ),
      { numRuns: 300 },
    );
  });
});
