/**
 * The chat's input buffer and its editing, as pure functions of (buffer,
 * what was read), so the rules are tested without a terminal
 * (test/unit/ui/input-line.test.ts). The key bindings that call them are a
 * table (key-bindings.ts).
 *
 * - The buffer is its text and a cursor (a UTF-16 offset that never splits a
 *   grapheme: an emoji with its skin tone, a ZWJ family, a letter and its
 *   accents are one character to move over and delete). Readline editing: moves by character, word and line;
 *   Backspace/Delete; kills to the start or end of the line and of a word.
 *   Multi-line text is edited the same way: Home/End and the kills act on the
 *   cursor's line, Up/Down move between lines (`lineUp`/`lineDown` say when
 *   the cursor is already on the first or last line: history's turn).
 * - Keys read in one chunk without paste markers (a fast typist, a loaded
 *   machine, `tmux send-keys`, a paste in a terminal without bracketed paste):
 *   the control keys inside it are still keys (`splitChunk` hands them to the
 *   key table; Ctrl+U and Backspace edit here), line breaks inside it are kept
 *   as newlines (a pasted block is one message), and a line break that ends
 *   the chunk is the Enter that sends it — unless a backslash is before it:
 *   `\` then Enter continues the message on the next line (`continueLine`).
 * - A bracketed paste (the terminal marks it) is inserted at the cursor,
 *   newlines kept, never sent by itself. One of more than PASTE_COLLAPSE_LINES
 *   lines is shown as a marker `[pasted N lines #k]` and its text kept aside;
 *   `expandPastes` puts it back when the message is sent.
 */

import { graphemes } from './text-wrap.ts';

export interface Line {
  text: string;
  /** Where the next character goes: 0 … text.length. */
  cursor: number;
  /** The text of collapsed pastes, by their number (the k of the marker). */
  pastes?: Readonly<Record<number, string>>;
}

export const EMPTY_LINE: Line = { text: '', cursor: 0 };

interface Edit {
  /** The input after the edit. */
  line: Line;
  /** Set when the chunk ended with Enter: the message to send (the input is then empty). */
  send?: string;
}

/** Pastes of more lines than this are shown collapsed. */
const PASTE_COLLAPSE_LINES = 5;

const BREAK = /\r\n|\r|\n/g;

/** Line breaks (CRLF, CR, LF) as LF. */
function normaliseBreaks(s: string): string {
  return s.replace(BREAK, '\n');
}

/**
 * The offset one character before i: a character is a grapheme (text-wrap.ts), so Backspace and Left take an
 * emoji with its skin tone or a ZWJ family whole. Graphemes never span a line break: only i's line is segmented.
 */
function prevChar(s: string, i: number): number {
  if (i <= 0) return 0;
  const from = s.lastIndexOf('\n', i - 2) + 1;
  const g = graphemes(s.slice(from, i));
  return i - (g.at(-1)?.length ?? 1);
}

/** The offset one character (grapheme) after i. */
function nextChar(s: string, i: number): number {
  if (i >= s.length) return s.length;
  const end = s.indexOf('\n', i + 1);
  return i + (graphemes(s.slice(i, end < 0 ? s.length : end))[0]?.length ?? 1);
}

const isWordChar = (ch: string) => /[\p{L}\p{N}_]/u.test(ch);

/** Readline's backward-word: skip non-word characters, then the word. */
function wordStart(s: string, i: number): number {
  let j = i;
  while (j > 0 && !isWordChar(s[j - 1]!)) j = prevChar(s, j);
  while (j > 0 && isWordChar(s[j - 1]!)) j = prevChar(s, j);
  return j;
}

/** Readline's forward-word: skip non-word characters, then the word. */
function wordEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && !isWordChar(s[j]!)) j = nextChar(s, j);
  while (j < s.length && isWordChar(s[j]!)) j = nextChar(s, j);
  return j;
}

/** Ctrl+W: the whitespace-delimited word before the cursor (unix-word-rubout). */
function bigWordStart(s: string, i: number): number {
  let j = i;
  while (j > 0 && /\s/.test(s[j - 1]!)) j--;
  while (j > 0 && !/\s/.test(s[j - 1]!)) j = prevChar(s, j);
  return j;
}

const lineStartAt = (s: string, i: number) => s.lastIndexOf('\n', i - 1) + 1;
const lineEndAt = (s: string, i: number) => {
  const n = s.indexOf('\n', i);
  return n < 0 ? s.length : n;
};

function splice(l: Line, from: number, to: number, insert = ''): Line {
  return { ...l, text: l.text.slice(0, from) + insert + l.text.slice(to), cursor: from + insert.length };
}

export function insert(l: Line, s: string): Line {
  return splice(l, l.cursor, l.cursor, s);
}

/** The editing commands of the key-binding table. */
export const EDIT_COMMANDS = {
  left: (l: Line): Line => ({ ...l, cursor: prevChar(l.text, l.cursor) }),
  right: (l: Line): Line => ({ ...l, cursor: nextChar(l.text, l.cursor) }),
  wordLeft: (l: Line): Line => ({ ...l, cursor: wordStart(l.text, l.cursor) }),
  wordRight: (l: Line): Line => ({ ...l, cursor: wordEnd(l.text, l.cursor) }),
  home: (l: Line): Line => ({ ...l, cursor: lineStartAt(l.text, l.cursor) }),
  end: (l: Line): Line => ({ ...l, cursor: lineEndAt(l.text, l.cursor) }),
  backspace: (l: Line): Line => splice(l, prevChar(l.text, l.cursor), l.cursor),
  delete: (l: Line): Line => splice(l, l.cursor, nextChar(l.text, l.cursor)),
  /** Ctrl+W: the whitespace-delimited word before the cursor. */
  killBigWordBack: (l: Line): Line => splice(l, bigWordStart(l.text, l.cursor), l.cursor),
  /** Alt+Backspace: the word before the cursor. */
  killWordBack: (l: Line): Line => splice(l, wordStart(l.text, l.cursor), l.cursor),
  /** Alt+D: the word after the cursor. */
  killWordForward: (l: Line): Line => splice(l, l.cursor, wordEnd(l.text, l.cursor)),
  /** Ctrl+K: to the end of the line (at the end of a line: the line break). */
  killToEnd: (l: Line): Line => {
    const end = lineEndAt(l.text, l.cursor);
    return splice(l, l.cursor, end === l.cursor ? nextChar(l.text, end) : end);
  },
  /** Ctrl+U: to the start of the line (at the start of a line: the line break before it). */
  killToStart: (l: Line): Line => {
    const start = lineStartAt(l.text, l.cursor);
    return splice(l, start === l.cursor ? prevChar(l.text, start) : start, l.cursor);
  },
  newline: (l: Line): Line => insert(l, '\n'),
} as const;

export type EditCommand = keyof typeof EDIT_COMMANDS;

/** Column of the cursor on its line, in characters. */
function columnOf(s: string, i: number): number {
  return graphemes(s.slice(lineStartAt(s, i), i)).length;
}

/** The offset of column col (or the line's end) on the line starting at start. */
function offsetAtColumn(s: string, start: number, col: number): number {
  let j = start;
  const end = lineEndAt(s, start);
  for (let c = 0; c < col && j < end; c++) j = nextChar(s, j);
  return j;
}

/** Up in a multi-line input: the same column on the line above; undefined on the first line. */
export function lineUp(l: Line): Line | undefined {
  const start = lineStartAt(l.text, l.cursor);
  if (start === 0) return undefined;
  const prevStart = lineStartAt(l.text, start - 1);
  return { ...l, cursor: offsetAtColumn(l.text, prevStart, columnOf(l.text, l.cursor)) };
}

/** Down in a multi-line input: the same column on the line below; undefined on the last line. */
export function lineDown(l: Line): Line | undefined {
  const end = lineEndAt(l.text, l.cursor);
  if (end === l.text.length) return undefined;
  return { ...l, cursor: offsetAtColumn(l.text, end + 1, columnOf(l.text, l.cursor)) };
}

/** A whole new input (history recall, an editor's text) with the cursor at its end. */
export function lineOf(text: string): Line {
  return { text, cursor: text.length };
}

/**
 * The input after a cancelled turn gave back the messages queued behind it:
 * those messages (oldest first), then what was being typed, one per line,
 * the cursor at the end.
 */
export function withQueued(l: Line, queued: readonly string[]): Line {
  const text = [...queued, l.text].filter((t) => t !== '').join('\n');
  return { ...l, text, cursor: text.length };
}

/** Ctrl+U and Backspace inside a chunk (the chat hands the other control keys to its key table: splitChunk). */
const control = (c: string): EditCommand | undefined =>
  c === '\u0015' ? 'killToStart' : c === '\u007f' || c === '\b' ? 'backspace' : undefined;

function apply(line: Line, keys: string): Line {
  let l = line;
  let run = '';
  const flush = () => {
    if (run) l = insert(l, run);
    run = '';
  };
  for (const c of keys) {
    if (c === '\n') run += '\n';
    else if (c === '\t') run += '  ';
    else if (c >= ' ' && c !== '\u007f') run += c;
    else {
      const cmd = control(c);
      flush();
      if (cmd) l = EDIT_COMMANDS[cmd](l);
    }
  }
  flush();
  return l;
}

/**
 * Enter after a backslash (the character before the cursor) continues the message on a new line instead of
 * sending it, as in a shell: the backslash gives way to the line break. Undefined when Enter sends.
 */
export function continueLine(l: Line): Line | undefined {
  if (l.text[l.cursor - 1] !== '\\') return undefined;
  return splice(l, l.cursor - 1, l.cursor, '\n');
}

/** The input after a chunk of keys read together (see the module comment). */
export function editChunk(line: Line, chunk: string): Edit {
  const keys = normaliseBreaks(chunk);
  if (!keys.endsWith('\n')) return { line: apply(line, keys) };
  const typed = apply(line, keys.slice(0, -1));
  const continued = continueLine(typed);
  if (continued) return { line: continued };
  return { line: EMPTY_LINE, send: expandPastes(typed) };
}

/**
 * A chunk of keys as text runs and control keys (Ctrl+A is `{ctrl: 'a'}`),
 * in order. Line breaks and tabs stay in the text (a paste's line breaks are
 * text; editChunk decides what a final one means); Ctrl+U stays too.
 */
export function splitChunk(chunk: string): (string | { ctrl: string })[] {
  const out: (string | { ctrl: string })[] = [];
  let run = '';
  for (const c of chunk) {
    const code = c.charCodeAt(0);
    if (code >= 1 && code <= 26 && !'\r\n\t\u0015\b'.includes(c)) {
      if (run) out.push(run);
      run = '';
      out.push({ ctrl: String.fromCharCode(code + 96) });
    } else run += c;
  }
  if (run) out.push(run);
  return out;
}

const MARKER = /\[pasted \d+ lines #(\d+)\]/g;

/**
 * The input after a bracketed paste: inserted at the cursor (line breaks as
 * LF, a final line break dropped, other control characters removed); more
 * than PASTE_COLLAPSE_LINES lines are inserted as a marker.
 */
export function editPaste(line: Line, pasted: string): Line {
  const text = normaliseBreaks(pasted)
    .replace(/\n$/, '')
    .replace(/\t/g, '  ')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '');
  const lines = text.split('\n').length;
  if (lines <= PASTE_COLLAPSE_LINES) return insert(line, text);
  const k = Object.keys(line.pastes ?? {}).length + 1;
  return { ...insert(line, `[pasted ${lines} lines #${k}]`), pastes: { ...line.pastes, [k]: text } };
}

/** The message to send: the input with each paste marker replaced by the text it stands for. */
export function expandPastes(l: Line): string {
  const pastes = l.pastes;
  if (!pastes) return l.text;
  return l.text.replace(MARKER, (m, k: string) => pastes[Number(k)] ?? m);
}

/** The input as rows to show: its lines, and where the cursor is (row and column in characters). */
export function cursorRowCol(l: Line): { lines: string[]; row: number; col: number } {
  const lines = l.text.split('\n');
  const before = l.text.slice(0, l.cursor).split('\n');
  return { lines, row: before.length - 1, col: graphemes(before.at(-1)!).length };
}
