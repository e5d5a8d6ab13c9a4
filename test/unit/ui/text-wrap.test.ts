/** Word wrapping (src/ui/text-wrap.ts) and the markdown blocks drawn to a width (tables, code). */
import { describe, expect, it } from 'vitest';
import { inputRows, textWidth, wrapRuns, wrapText } from '../../../src/ui/text-wrap.ts';
import { codeBlocks, codeRows, parseMarkdown, tableLines } from '../../../src/ui/markdown.tsx';

describe('inputRows: the input wrapped at word boundaries', () => {
  it('moves a word that does not fit to the next row whole, keeping every character', () => {
    const line = 'the quick brown fox jumps over';
    const rows = inputRows(line, 12);
    expect(rows).toEqual(['the quick ', 'brown fox ', 'jumps over']);
    expect(rows.join('')).toBe(line);
    expect(inputRows('abcdefghijklmno', 6)).toEqual(['abcdef', 'ghijkl', 'mno']);
    expect(inputRows('', 10)).toEqual(['']);
  });
  it('counts an emoji grapheme (skin tone, ZWJ family) as one wide character', () => {
    expect(textWidth('👍🏽')).toBe(2);
    expect(textWidth('👨\u200d👩\u200d👧')).toBe(2);
  });
});

describe('wrapText', () => {
  it('breaks at spaces and starts each wrapped row flush left', () => {
    expect(wrapText('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
  });
  it('keeps each source line and a leading indent; breaks a word longer than the row', () => {
    expect(wrapText('  one\ntwo', 10)).toEqual(['  one', 'two']);
    expect(wrapText('abcdefghij klm', 4)).toEqual(['abcd', 'efgh', 'ij', 'klm']);
  });
  it('counts wide characters twice', () => {
    expect(textWidth('日本')).toBe(4);
    expect(wrapText('日本 語', 4)).toEqual(['日本', '語']);
  });
  it('keeps styled runs apart and merges neighbours of one style', () => {
    const rows = wrapRuns(
      [
        { text: 'plain ', style: 'p' },
        { text: 'bold words', style: 'b' },
      ],
      11,
    );
    expect(rows).toEqual([
      [
        { text: 'plain ', style: 'p' },
        { text: 'bold', style: 'b' },
      ],
      [{ text: 'words', style: 'b' }],
    ]);
  });
});

const table = (src: string) => {
  const b = parseMarkdown(src)[0];
  if (b?.type !== 'table') throw new Error('no table');
  return b;
};

describe('tables at a width', () => {
  const wide = table(
    '| a | b | c |\n|---|---|---|\n| one two three four | five six seven eight | nine |\n| x | y | z |',
  );
  it('keep their natural width when it fits', () => {
    expect(tableLines(wide, 200)).toEqual(tableLines(wide));
    expect([...tableLines(wide)[0]!].length).toBe(52);
  });
  it('shrink the wide columns, wrap inside the cells, and rule between rows that wrap', () => {
    const lines = tableLines(wide, 30);
    for (const l of lines) expect([...l].length).toBe(30);
    expect(lines).toContain('│ one two  │ five six │ nine │');
    expect(lines.filter((l) => l.startsWith('├')).length).toBe(2);
  });
  it('are drawn one record per row when even narrow columns cannot fit', () => {
    const six = table(
      '| alpha | beta | gamma | delta | epsilon | zeta |\n|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 |\n| 7 | 8 | 9 | 10 | 11 | 12 |',
    );
    const lines = tableLines(six, 30);
    expect(lines.slice(0, 6)).toEqual([
      'alpha  : 1',
      'beta   : 2',
      'gamma  : 3',
      'delta  : 4',
      'epsilon: 5',
      'zeta   : 6',
    ]);
    expect(lines[6]).toMatch(/^─+$/);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(30);
  });
});

describe('code at a width', () => {
  it('continues a long line on the next row after a marker', () => {
    expect(codeRows('abcdefghij', 4)).toEqual(['abc↩', 'def↩', 'ghij']);
    expect(codeRows('short', 10)).toEqual(['short']);
  });
  it('codeBlocks gives each block as written', () => {
    expect(codeBlocks('a\n```js\n  x = 1;\n\ny()\n```\nb\n```\nz\n```')).toEqual(['  x = 1;\n\ny()', 'z']);
  });
});
