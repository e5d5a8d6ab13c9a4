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
  it('handles doubled quotes, empty fields, CR, CRLF and a trailing newline', () => {
    expect(parseCsv('"a""b",,c\r\nd\re\n')).toEqual([
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
    expect(() => parseCsv('a,"b\n')).toThrow(/line 1: unterminated/);
  });
});
