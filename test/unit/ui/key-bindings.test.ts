/** The chat's key table (src/ui/key-bindings.ts): which command each key runs. */
import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import {
  commandFor,
  keyHelp,
  kittyKeyboardMode,
  modifyOtherKeysAsCsiU,
  prefixedCommand,
} from '../../../src/ui/key-bindings.ts';

const none: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
const key = (k: Partial<Key>, input = '') => commandFor(input, { ...none, ...k });

describe('the key table', () => {
  it('maps readline keys to edits', () => {
    expect(key({ ctrl: true }, 'a')).toBe('home');
    expect(key({ home: true })).toBe('home');
    expect(key({ ctrl: true }, 'e')).toBe('end');
    expect(key({ ctrl: true }, 'w')).toBe('killBigWordBack');
    expect(key({ ctrl: true }, 'k')).toBe('killToEnd');
    expect(key({ ctrl: true }, 'u')).toBe('killToStart');
    expect(key({ meta: true }, 'b')).toBe('wordLeft');
    expect(key({ meta: true }, 'f')).toBe('wordRight');
    expect(key({ leftArrow: true, ctrl: true })).toBe('wordLeft');
    expect(key({ leftArrow: true })).toBe('left');
    expect(key({ backspace: true, meta: true })).toBe('killWordBack');
    expect(key({ backspace: true })).toBe('backspace');
    expect(key({ delete: true })).toBe('delete');
  });
  it('tells Enter from Alt+Enter and Ctrl+J, and the chat keys apart', () => {
    expect(key({ return: true })).toBe('submit');
    expect(key({ return: true, meta: true })).toBe('newline');
    expect(key({}, '\n')).toBe('newline');
    expect(key({ ctrl: true }, 'c')).toBe('interrupt');
    expect(key({ escape: true })).toBe('cancel');
    expect(key({ upArrow: true })).toBe('up');
    expect(key({ tab: true })).toBe('complete');
    expect(key({}, 'a')).toBeUndefined();
    expect(key({}, 'hello')).toBeUndefined();
  });
  it('Shift+Enter adds a line: as CSI-u (Ink reports shift), and as xterm modifyOtherKeys once rewritten so', () => {
    expect(key({ return: true, shift: true }, '\r')).toBe('newline');
    expect(modifyOtherKeysAsCsiU('a\u001b[27;2;13~b\u001b[27;5;99~')).toBe('a\u001b[13;2ub\u001b[99;5u');
    expect(modifyOtherKeysAsCsiU('plain [27;2;13~')).toBe('plain [27;2;13~');
  });
  it('asks for the kitty keyboard protocol: at once in a terminal known to speak it, else by its query', () => {
    expect(kittyKeyboardMode({ TERM: 'xterm-kitty' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM_PROGRAM: 'WezTerm' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM: 'foot' })).toBe('enabled');
    expect(kittyKeyboardMode({ TERM_PROGRAM: 'WezTerm', TMUX: '/tmp/tmux-1/default,1,0' })).toBe('auto');
    expect(kittyKeyboardMode({ TERM: 'xterm-256color' })).toBe('auto');
  });
  it('Ctrl+X then E opens the editor; anything else cancels the prefix', () => {
    expect(key({ ctrl: true }, 'x')).toBe('prefix');
    expect(prefixedCommand('e')).toBe('editor');
    expect(prefixedCommand('q')).toBeUndefined();
  });
  it('lists its keys for /help', () => {
    expect(keyHelp()).toContain('Enter sends');
    expect(keyHelp().join('\n')).toContain('Ctrl+W');
  });
});
