/**
 * Output helpers shared by commands: colours only on a TTY (and never with
 * NO_COLOR), aligned text tables, CSV and Markdown tables.
 */
export const useColour = (): boolean =>
  Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';

const wrap = (open: number, close: number) => (s: string) => (useColour() ? `\u001b[${open}m${s}\u001b[${close}m` : s);

export const paint = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};

export type Cell = string | number | boolean | null | undefined;

function cellText(c: Cell): string {
  if (c === null || c === undefined) return '';
  return String(c);
}

/** An aligned plain-text table; numbers right-aligned. */
export function textTable(headers: string[], rows: Cell[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => cellText(r[i]).length)));
  const isNum = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === '' || r[i] == null),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (isNum[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [paint.bold(line(headers)), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r.map(cellText)));
  return out.join('\n');
}

export function csvTable(headers: string[], rows: Cell[][]): string {
  const esc = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  return [headers, ...rows.map((r) => r.map(cellText))].map((r) => r.map(esc).join(',')).join('\n');
}

export function markdownTable(headers: string[], rows: Cell[][]): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const isNum = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  return [
    `| ${headers.map(esc).join(' | ')} |`,
    `|${isNum.map((n) => (n ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.map((c) => esc(cellText(c))).join(' | ')} |`),
  ].join('\n');
}
