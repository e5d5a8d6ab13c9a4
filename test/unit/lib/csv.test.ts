import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../../src/lib/csv.ts';

describe('parseCsv', () => {
  it('keeps the line where each row starts', () => {
    expect(parseCsv('a,b\n"x\ny",2\nz,3')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x\ny', '2'] },
      { line: 4, fields: ['z', '3'] },
    ]);
  });
  it('handles doubled quotes, empty fields, CRLF, a BOM and a trailing newline', () => {
    expect(parseCsv('\ufeff"a""b",,c\r\nd\r\ne\n')).toEqual([
      { line: 1, fields: ['a"b', '', 'c'] },
      { line: 2, fields: ['d'] },
      { line: 3, fields: ['e'] },
    ]);
  });
  it('skips blank lines and reports an unterminated quote', () => {
    expect(parseCsv('a\n\nb\n')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 3, fields: ['b'] },
    ]);
    expect(() => parseCsv('a,"b\n', 'obs.csv')).toThrow(/obs.csv:1: a quoted field is never closed/);
  });
});
