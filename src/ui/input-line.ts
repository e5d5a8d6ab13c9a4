/**
 * The chat's input buffer, as pure functions of (buffer, what was read), so
 * the rules are tested without a terminal (test/unit/ui/input-line.test.ts).
 *
 * - A key alone: Enter (CR) sends; Alt+Enter or Ctrl+J (a lone LF) adds a
 *   newline; Backspace deletes; Ctrl+U clears.
 * - Keys read in one chunk without paste markers (a fast typist, a loaded
 *   machine, `tmux send-keys`, a paste in a terminal without bracketed paste):
 *   Ctrl+U and Backspace inside it still edit, line breaks inside it are kept
 *   as newlines (a pasted block is one message), and a line break that ends
 *   the chunk is the Enter that sends it.
 * - A bracketed paste (the terminal marks it): inserted as is, newlines kept,
 *   never sent by itself — Enter sends.
 */

export interface Edit {
  /** The input after the edit. */
  text: string;
  /** Set when the chunk ended with Enter: the message to send (the input is then empty). */
  send?: string;
}

const BREAK = /\r\n|\r|\n/g;

/** Line breaks (CRLF, CR, LF) as LF. */
function normaliseBreaks(s: string): string {
  return s.replace(BREAK, '\n');
}

function apply(line: string, keys: string): string {
  let text = line;
  for (const c of keys) {
    if (c === '\u0015') text = '';
    else if (c === '\u007f' || c === '\b') text = [...text].slice(0, -1).join('');
    else if (c === '\n') text += '\n';
    else if (c === '\t') text += '  ';
    else if (c >= ' ') text += c;
  }
  return text;
}

/** The input after a chunk of keys read together (see the module comment). */
export function editChunk(line: string, chunk: string): Edit {
  const keys = normaliseBreaks(chunk);
  if (keys.endsWith('\n')) return { text: '', send: apply(line, keys.slice(0, -1)) };
  return { text: apply(line, keys) };
}

/** The input after a bracketed paste: inserted as is (line breaks as LF, a final line break dropped). */
export function editPaste(line: string, pasted: string): string {
  return (
    line +
    normaliseBreaks(pasted)
      .replace(/\n$/, '')
      .replace(/\t/g, '  ')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, '')
  );
}
