/**
 * Word wrapping for the chat, as pure functions: styled runs of text broken
 * into rows of at most `width` columns, the breaking spaces dropped (a
 * wrapped row starts flush left), a word longer than the row broken inside.
 * Ink wraps too, but keeps the breaking space at the start of the next row.
 * Widths count characters; East Asian wide characters and emoji count two.
 */

/** A count and its noun, singular for one: `counted(1, 'line')` is "1 line". */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export interface Run<S = string> {
  text: string;
  style: S;
}

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * The characters of s as a person sees them: graphemes (Intl.Segmenter), so an emoji with its skin tone, a ZWJ
 * family or a letter with its combining accents is one.
 */
export function graphemes(s: string): string[] {
  if (ASCII.test(s)) return s.split('');
  return Array.from(segmenter.segment(s), (x) => x.segment);
}

/** Columns one grapheme takes: two for East Asian wide characters and emoji, else one. */
const graphemeWidth = (g: string) => (WIDE.test(g) ? 2 : 1);

/** Columns a string takes on the terminal. */
export function textWidth(s: string): number {
  if (ASCII.test(s)) return s.length;
  let n = 0;
  for (const g of graphemes(s)) n += graphemeWidth(g);
  return n;
}

/** The longest prefix of s that fits in `cols` columns (at least one character). */
export function fitPrefix(s: string, cols: number): string {
  let out = '';
  let w = 0;
  for (const g of graphemes(s)) {
    const cw = graphemeWidth(g);
    if (w + cw > cols && out) break;
    out += g;
    w += cw;
  }
  return out;
}

/**
 * A line of input as rows of `width` columns, every character kept (the rows joined are the line, so a cursor
 * offset maps onto them): a row breaks after its last space, moving the word that does not fit to the next row
 * whole; a word longer than the row breaks inside it.
 */
export function inputRows(s: string, width: number): string[] {
  const w = Math.max(1, width);
  const rows: string[] = [];
  let row = '';
  let used = 0;
  // where the row may break: after its last space
  let breakAt = 0;
  for (const g of graphemes(s)) {
    const gw = graphemeWidth(g);
    if (used + gw > w && row) {
      const moved = g !== ' ' && breakAt > 0 ? row.slice(breakAt) : '';
      rows.push(row.slice(0, row.length - moved.length));
      row = moved;
      used = textWidth(moved);
      breakAt = 0;
    }
    row += g;
    used += gw;
    if (g === ' ') breakAt = row.length;
  }
  rows.push(row);
  return rows;
}

/** Runs as rows of at most `width` columns (one row for empty input). */
export function wrapRuns<S>(runs: readonly Run<S>[], width: number): Run<S>[][] {
  const w = Math.max(1, width);
  const rows: Run<S>[][] = [[]];
  let used = 0;
  const push = (text: string, style: S) => {
    const row = rows.at(-1)!;
    const last = row.at(-1);
    if (last && last.style === style) last.text += text;
    else row.push({ text, style });
    used += textWidth(text);
  };
  const newRow = () => {
    const row = rows.at(-1)!;
    const last = row.at(-1);
    if (last) last.text = last.text.replace(/ +$/, '');
    rows.push([]);
    used = 0;
  };
  for (const run of runs) {
    for (const token of run.text.match(/ +|[^ ]+/g) ?? []) {
      const tw = textWidth(token);
      if (token.startsWith(' ')) {
        if (used === 0 && rows.length > 1) continue; // a breaking space: the row starts flush left
        if (used + tw > w) {
          newRow();
          continue;
        }
        push(token, run.style);
        continue;
      }
      if (used + tw <= w) {
        push(token, run.style);
        continue;
      }
      if (used > 0 && tw <= w) {
        newRow();
        push(token, run.style);
        continue;
      }
      // a word longer than the room left: break it
      let rest = token;
      while (rest) {
        if (used >= w) newRow();
        const part = fitPrefix(rest, w - used);
        push(part, run.style);
        rest = rest.slice(part.length);
      }
    }
  }
  const last = rows.at(-1)!.at(-1);
  if (last) last.text = last.text.replace(/ +$/, '');
  return rows;
}

/** Plain text as rows of at most `width` columns (each source line wrapped on its own). */
export function wrapText(text: string, width: number): string[] {
  return text
    .split('\n')
    .flatMap((line) => wrapRuns([{ text: line, style: 0 }], width).map((r) => r.map((x) => x.text).join('')));
}
