/** The chat's input rules (src/ui/input-line.ts): what one read of keys or a paste does to the input. */
import { describe, expect, it } from 'vitest';
import { editChunk, editPaste } from '../../../src/ui/input-line.ts';

describe('editChunk: keys read together', () => {
  it('text and Enter in one read send the text', () => {
    expect(editChunk('', 'hello in one chunk\r')).toEqual({ text: '', send: 'hello in one chunk' });
    expect(editChunk('typed ', 'more\n')).toEqual({ text: '', send: 'typed more' });
  });
  it('line breaks inside a read are kept (a pasted block is one message); the last one sends it', () => {
    expect(editChunk('', 'line one\rline two\r\nline three\r')).toEqual({
      text: '',
      send: 'line one\nline two\nline three',
    });
    expect(editChunk('', 'line one\rline two')).toEqual({ text: 'line one\nline two' });
  });
  it('Ctrl+U and Backspace inside a read still edit, in order', () => {
    expect(editChunk('not this', '\u0015/help\r')).toEqual({ text: '', send: '/help' });
    expect(editChunk('ab', 'c\u007f\u007fX')).toEqual({ text: 'aX' });
    expect(editChunk('é', '\u007f')).toEqual({ text: '' });
  });
  it('other control characters are dropped; a tab is two spaces', () => {
    expect(editChunk('', 'a\u0007b\tc')).toEqual({ text: 'ab  c' });
  });
});

describe('editPaste: a bracketed paste', () => {
  it('is inserted with its lines and never sends; a final line break is dropped', () => {
    expect(editPaste('see: ', 'alpha\r\nbeta\rgamma\n')).toBe('see: alpha\nbeta\ngamma');
  });
  it('drops control characters other than line breaks', () => {
    expect(editPaste('', 'a\u001b[31mb\u0015c')).toBe('a[31mbc');
  });
});
