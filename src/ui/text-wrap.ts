/**
 * Word wrapping for the chat, as pure functions: styled runs of text broken
 * into rows of at most `width` columns, the breaking spaces dropped (a
 * wrapped row starts flush left), a word longer than the row broken inside.
 * Ink wraps too, but keeps the breaking space at the start of the next row.
 * Widths count characters; East Asian wide characters and emoji count two.
 */

export interface Run<S = string> {
  text: string;
  style: S;
}

const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;

/** Columns a string takes on the terminal. */
export function textWidth(s: string): number {
  let n = 0;
  for (const ch of s) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/** The longest prefix of s that fits in `cols` columns (at least one character). */
export function fitPrefix(s: string, cols: number): string {
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = WIDE.test(ch) ? 2 : 1;
    if (w + cw > cols && out) break;
    out += ch;
    w += cw;
  }
  return out;
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
