/** The chat's input rules (src/ui/input-line.ts): editing, one read of keys, a paste. */
import { describe, expect, it } from 'vitest';
import {
  EDIT_COMMANDS as E,
  editChunk,
  editPaste,
  expandPastes,
  insert,
  lineDown,
  lineOf,
  lineUp,
  continueLine,
  cursorRowCol,
  splitChunk,
  withQueued,
  type Line,
} from '../../../src/ui/input-line.ts';

const at = (text: string, cursor: number): Line => ({ text, cursor });
/** A line drawn with its cursor as `|`. */
const show = (l: Line) => l.text.slice(0, l.cursor) + '|' + l.text.slice(l.cursor);

describe('readline editing', () => {
  it('moves by character, word and line, and inserts at the cursor', () => {
    let l = lineOf('hello world');
    l = E.left(E.left(l));
    expect(show(l)).toBe('hello wor|ld');
    l = insert(l, 'XY');
    expect(show(l)).toBe('hello worXY|ld');
    expect(show(E.home(l))).toBe('|hello worXYld');
    expect(show(E.end(E.home(l)))).toBe('hello worXYld|');
    expect(show(E.wordLeft(l))).toBe('hello |worXYld');
    expect(show(E.wordRight(E.home(l)))).toBe('hello| worXYld');
    expect(show(E.right(lineOf('ab')))).toBe('ab|');
    expect(show(E.left(at('', 0)))).toBe('|');
  });

  it('deletes and kills like readline', () => {
    expect(show(E.backspace(at('abc', 2)))).toBe('a|c');
    expect(show(E.delete(at('abc', 1)))).toBe('a|c');
    expect(show(E.killToEnd(at('hello world', 5)))).toBe('hello|');
    expect(show(E.killToStart(at('hello world', 6)))).toBe('|world');
    expect(show(E.killBigWordBack(at('say foo-bar baz', 11)))).toBe('say | baz');
    expect(show(E.killWordBack(at('say foo-bar', 11)))).toBe('say foo-|');
    expect(show(E.killWordForward(at('say foo bar', 3)))).toBe('say| bar');
  });

  it('keeps a surrogate pair whole', () => {
    const l = lineOf('a😀');
    expect(show(E.left(l))).toBe('a|😀');
    expect(E.backspace(l).text).toBe('a');
  });

  it('moves over and deletes whole graphemes: a skin tone, a ZWJ family, a combining accent', () => {
    const family = '👨\u200d👩\u200d👧\u200d👦';
    const thumb = '👍🏽';
    const l = lineOf(`ok ${family}${thumb}e\u0301`);
    expect(E.backspace(l).text).toBe(`ok ${family}${thumb}`);
    expect(E.backspace(E.backspace(l)).text).toBe(`ok ${family}`);
    expect(E.backspace(E.backspace(E.backspace(l))).text).toBe('ok ');
    expect(show(E.left(E.left(l)))).toBe(`ok ${family}|${thumb}e\u0301`);
    expect(E.delete(at(`${thumb}x`, 0)).text).toBe('x');
    expect(cursorRowCol(l).col).toBe(6);
  });

  it('\\ then Enter continues on the next line; a chunk ending so does too; a queued message comes back', () => {
    expect(continueLine(lineOf('first \\'))).toEqual({ text: 'first \n', cursor: 7 });
    expect(continueLine(lineOf('send me'))).toBeUndefined();
    expect(editChunk(lineOf(''), 'one\\\r')).toEqual({ line: { text: 'one\n', cursor: 4 } });
    expect(withQueued(lineOf('draft'), ['q1', 'q2\nmore'])).toEqual({ text: 'q1\nq2\nmore\ndraft', cursor: 16 });
    expect(withQueued(lineOf(''), ['q1']).text).toBe('q1');
  });

  it('edits the cursor line of a multi-line input; Up/Down move between lines and say when at the edge', () => {
    const l = at('first line\nsecond\nthird line', 15); // "seco|nd"
    expect(show(E.home(l))).toBe('first line\n|second\nthird line');
    expect(show(E.end(l))).toBe('first line\nsecond|\nthird line');
    expect(show(E.killToEnd(l))).toBe('first line\nseco|\nthird line');
    expect(show(lineUp(l)!)).toBe('firs|t line\nsecond\nthird line');
    expect(show(lineDown(l)!)).toBe('first line\nsecond\nthir|d line');
    expect(lineUp(at('one\ntwo', 2))).toBeUndefined();
    expect(lineDown(at('one\ntwo', 5))).toBeUndefined();
    // a shorter line: the cursor goes to its end
    expect(show(lineUp(at('ab\nlonger', 9))!)).toBe('ab|\nlonger');
    expect(cursorRowCol(l)).toEqual({ lines: ['first line', 'second', 'third line'], row: 1, col: 4 });
  });
});

describe('editChunk: keys read together', () => {
  it('text and Enter in one read send the text', () => {
    expect(editChunk(lineOf(''), 'hello in one chunk\r')).toEqual({
      line: { text: '', cursor: 0 },
      send: 'hello in one chunk',
    });
    expect(editChunk(lineOf('typed '), 'more\n').send).toBe('typed more');
  });
  it('line breaks inside a read are kept (a pasted block is one message); the last one sends it', () => {
    expect(editChunk(lineOf(''), 'line one\rline two\r\nline three\r').send).toBe('line one\nline two\nline three');
    expect(editChunk(lineOf(''), 'line one\rline two').line.text).toBe('line one\nline two');
  });
  it('inserts at the cursor', () => {
    expect(show(editChunk(at('ad', 1), 'bc').line)).toBe('abc|d');
  });
  it('Ctrl+U and Backspace inside a read still edit, in order', () => {
    expect(editChunk(lineOf('not this'), '\u0015/help\r').send).toBe('/help');
    expect(editChunk(lineOf('ab'), 'c\u007f\u007fX').line.text).toBe('aX');
    expect(editChunk(lineOf('é'), '\u007f').line.text).toBe('');
  });
  it('other control characters are dropped; a tab is two spaces', () => {
    expect(editChunk(lineOf(''), 'a\u0007b\tc').line.text).toBe('ab  c');
  });
});

describe('splitChunk: the control keys of a chunk are keys of their own', () => {
  it('splits Ctrl+letter keys out of the text, in order; line breaks, tabs and Ctrl+U stay text', () => {
    expect(splitChunk('ab\u0001>> \u0018\u0005x\ry\t\u0015z')).toEqual([
      'ab',
      { ctrl: 'a' },
      '>> ',
      { ctrl: 'x' },
      { ctrl: 'e' },
      'x\ry\t\u0015z',
    ]);
  });
});

describe('editPaste: a bracketed paste', () => {
  it('is inserted at the cursor with its lines and never sends; a final line break is dropped', () => {
    expect(editPaste(lineOf('see: '), 'alpha\r\nbeta\rgamma\n').text).toBe('see: alpha\nbeta\ngamma');
    expect(show(editPaste(at('[]', 1), 'x'))).toBe('[x|]');
  });
  it('drops control characters other than line breaks', () => {
    expect(editPaste(lineOf(''), 'a\u001b[31mb\u0015c').text).toBe('a[31mbc');
  });
  it('more than five lines are shown as a marker and sent whole', () => {
    const thirty = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join('\n');
    const l = editPaste(lineOf('look: '), thirty + '\n');
    expect(l.text).toBe('look: [pasted 30 lines #1]');
    const two = editPaste(insert(l, ' and '), thirty);
    expect(two.text).toBe('look: [pasted 30 lines #1] and [pasted 30 lines #2]');
    expect(expandPastes(two)).toBe(`look: ${thirty} and ${thirty}`);
    expect(editChunk(l, '\r').send).toBe(`look: ${thirty}`);
  });
});
