/**
 * Markdown for the terminal, as Ink elements, drawn to a given width:
 * headings, paragraphs with **bold**, *italic*, `code` and [links](url)
 * (single line breaks kept, as the model wrote them; wrapped rows start flush
 * left), fenced code blocks (no side borders, so a mouse copy is the code; a
 * line longer than the width continues on the next row after a `↩` marker),
 * bullet and numbered lists (nested by indent), tables (GFM pipes; columns
 * shrink to the width and wrap inside their cells, and a table that cannot
 * fit even so is drawn one record per row), block quotes, rules. Partial
 * input (a stream in progress) renders too: an unclosed fence is a code
 * block so far.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useColour, useTint } from './theme.ts';
import { fitPrefix, textWidth, wrapRuns, wrapText, type Run } from './text-wrap.ts';

type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'code'; lang: string; lines: string[] }
  | { type: 'list'; items: { indent: number; marker: string; text: string }[] }
  | { type: 'table'; header: string[]; align: ('left' | 'right' | 'center')[]; rows: string[][] }
  | { type: 'quote'; text: string }
  | { type: 'rule' }
  /** The blank line the model wrote between two blocks (one row, however many it wrote). */
  | { type: 'blank' };

const LIST = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** A reference definition, `[label]: url "title"` (a line of its own; the title is not shown). */
const REF_DEF = /^ {0,3}\[([^\]]+)\]:\s*<?([^\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*$/;

/** Reference definitions of a text, by label (case and spacing folded, as CommonMark matches them). */
function referenceDefinitions(lines: readonly string[]): Map<string, string> {
  const refs = new Map<string, string>();
  let fenced = false;
  for (const l of lines) {
    if (/^\s*(```|~~~)/.test(l)) fenced = !fenced;
    const d = fenced ? null : REF_DEF.exec(l);
    if (d && !refs.has(label(d[1]!))) refs.set(label(d[1]!), d[2]!);
  }
  return refs;
}

const label = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** `[text][ref]`, `[text][]` and `[text]` whose reference is defined, written as inline links `[text](url)`. */
function resolveReferences(line: string, refs: ReadonlyMap<string, string>): string {
  if (!refs.size) return line;
  return line.replace(/\[([^\]]+)\](?:\[([^\]]*)\])?(?!\()/g, (m, text: string, ref: string | undefined) => {
    const url = refs.get(label(ref || text));
    return url ? `[${text}](${url})` : m;
  });
}

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const refs = referenceDefinitions(lines);
  const blocks: Block[] = [];
  let para: string[] = [];
  // a blank line was read since the last block: the next block gets a blank row before it
  let gap = false;
  const add = (b: Block) => {
    if (gap && blocks.length) blocks.push({ type: 'blank' });
    gap = false;
    blocks.push(b);
  };
  const flush = () => {
    if (para.length) add({ type: 'paragraph', text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(raw);
    if (fence) {
      flush();
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) code.push(lines[i++]!);
      add({ type: 'code', lang: fence[2] ?? '', lines: code });
      continue;
    }
    if (raw.trim() === '') {
      flush();
      gap = true;
      continue;
    }
    if (REF_DEF.test(raw)) continue;
    const line = resolveReferences(raw, refs);
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      add({ type: 'heading', level: h[1]!.length, text: h[2]!.replace(/\s+#+\s*$/, '') });
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      add({ type: 'rule' });
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!) && lines[i + 1]!.includes('-')) {
      flush();
      const header = splitRow(line);
      const align = splitRow(lines[i + 1]!).map(
        (c) =>
          (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : 'left') as
            'left' | 'right' | 'center',
      );
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(splitRow(lines[i++]!));
      i--;
      add({ type: 'table', header, align, rows });
      continue;
    }
    const li = LIST.exec(line);
    if (li) {
      flush();
      const last = blocks.at(-1);
      const item = { indent: Math.floor(li[1]!.replace(/\t/g, '  ').length / 2), marker: li[2]!, text: li[3]! };
      if (!gap && last?.type === 'list') last.items.push(item);
      else add({ type: 'list', items: [item] });
      continue;
    }
    const q = /^\s*>\s?(.*)$/.exec(line);
    if (q) {
      flush();
      const last = blocks.at(-1);
      if (!gap && last?.type === 'quote') last.text += '\n' + q[1]!;
      else add({ type: 'quote', text: q[1]! });
      continue;
    }
    // a continuation line of a list item
    const last = blocks.at(-1);
    if (para.length === 0 && !gap && last?.type === 'list' && /^\s+\S/.test(line)) {
      last.items.at(-1)!.text += '\n' + line.trim();
      continue;
    }
    para.push(line.replace(/\s+$/, '').replace(/^\s+/, ''));
  }
  flush();
  return blocks;
}

/** An autolink: `<https://…>`, or a bare http(s) URL (its trailing punctuation is the sentence's). */
const AUTOLINK = /^<(https?:\/\/[^>\s]+)>$|^(https?:\/\/\S*[^\s<>()[\].,;:!?'"*_~])$/;

const INLINE =
  /(\*\*[^*]+\*\*|__[^_]+__|~~[^~]+~~|`[^`]+`|\*[^*\s][^*]*\*|(?<![\w])_[^_\s][^_]*_(?![\w])|\[[^\]]+\]\([^)\s]+\)|<https?:\/\/[^>\s]+>|https?:\/\/\S*[^\s<>()[\].,;:!?'"*_~])/;

type Style = 'plain' | 'bold' | 'italic' | 'strike' | 'code' | 'link' | 'url';

/**
 * Inline markup → styled runs: the markers dropped (a link is its text, then its URL dimmed; an autolink its URL).
 * Without colours (`marked`) inline code keeps its backticks: colour was all that set it apart.
 */
function inlineRuns(text: string, marked = false): Run<Style>[] {
  const out: Run<Style>[] = [];
  for (const p of text.split(INLINE)) {
    if (p === '') continue;
    if (/^(\*\*|__).*(\*\*|__)$/.test(p) && p.length > 4) out.push({ text: p.slice(2, -2), style: 'bold' });
    else if (/^~~.*~~$/.test(p) && p.length > 4) out.push({ text: p.slice(2, -2), style: 'strike' });
    else if (/^`.*`$/.test(p) && p.length > 2) out.push({ text: marked ? p : p.slice(1, -1), style: 'code' });
    else if (/^[*_].*[*_]$/.test(p) && p.length > 2) out.push({ text: p.slice(1, -1), style: 'italic' });
    else {
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(p);
      const auto = AUTOLINK.exec(p);
      if (link) out.push({ text: link[1]!, style: 'link' }, { text: ` (${link[2]})`, style: 'url' });
      else if (auto) out.push({ text: auto[1] ?? auto[2]!, style: 'link' });
      else out.push({ text: p, style: 'plain' });
    }
  }
  return out;
}

/** Inline markup → plain text (for widths and plain output). */
function inlinePlain(text: string): string {
  return inlineRuns(text)
    .map((r) => r.text)
    .join('');
}

function RunText({ run }: { run: Run<Style> }): ReactNode {
  const tint = useTint();
  switch (run.style) {
    case 'bold':
      return <Text bold>{run.text}</Text>;
    case 'italic':
      return <Text italic>{run.text}</Text>;
    case 'strike':
      return <Text strikethrough>{run.text}</Text>;
    case 'code':
      return <Text color={tint('yellow')}>{run.text}</Text>;
    case 'link':
      return (
        <Text underline color={tint('cyan')}>
          {run.text}
        </Text>
      );
    case 'url':
      return <Text dimColor>{run.text}</Text>;
    default:
      return <Text>{run.text}</Text>;
  }
}

/** Text with inline markup, each source line kept, wrapped to `width` (rows flush left). */
function Inline({ text, width, bold }: { text: string; width: number; bold?: boolean }): ReactNode {
  const marked = !useColour();
  const rows = text.split('\n').flatMap((line) => wrapRuns(inlineRuns(line, marked), width));
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => (
        <Text key={i} wrap="truncate-end" bold={bold}>
          {row.length ? row.map((r, j) => <RunText key={j} run={r} />) : ' '}
        </Text>
      ))}
    </Box>
  );
}

function pad(s: string, w: number, align: 'left' | 'right' | 'center'): string {
  const n = w - textWidth(s);
  if (n <= 0) return s;
  if (align === 'right') return ' '.repeat(n) + s;
  if (align === 'center') return ' '.repeat(Math.floor(n / 2)) + s + ' '.repeat(Math.ceil(n / 2));
  return s + ' '.repeat(n);
}

type TableBlock = Extract<Block, { type: 'table' }>;

/** The narrowest a column may get before the table is drawn one record per row instead. */
const MIN_COLUMN = 6;

/**
 * Column widths that fit `room` columns of cell text: every column keeps its
 * natural width if it can; otherwise the room is shared out (water-filling:
 * narrow columns keep their width, the wide ones share what is left).
 * Undefined when even MIN_COLUMN each does not fit.
 */
function fitColumns(natural: number[], room: number): number[] | undefined {
  const total = natural.reduce((a, b) => a + b, 0);
  if (total <= room) return natural;
  const floor = natural.map((n) => Math.min(n, MIN_COLUMN));
  if (floor.reduce((a, b) => a + b, 0) > room) return undefined;
  const widths = natural.slice();
  let open = natural.map((_, i) => i);
  let left = room;
  for (;;) {
    const share = Math.floor(left / open.length);
    const fits = open.filter((i) => natural[i]! <= share);
    if (!fits.length) break;
    for (const i of fits) left -= natural[i]!;
    open = open.filter((i) => natural[i]! > share);
    if (!open.length) return widths;
  }
  const share = Math.floor(left / open.length);
  let extra = left - share * open.length;
  for (const i of open) widths[i] = Math.max(floor[i]!, share + (extra-- > 0 ? 1 : 0));
  return widths;
}

/**
 * A table as text rows with box-drawing borders, at most `width` columns
 * wide (default: as wide as its content): columns shrink and cells wrap;
 * when that cannot fit, one record per row (`header: value` lines).
 */
export function tableLines(b: TableBlock, width = Infinity): string[] {
  const cols = Math.max(b.header.length, ...b.rows.map((r) => r.length));
  const cell = (r: string[], c: number) => inlinePlain(r[c] ?? '');
  const natural = Array.from({ length: cols }, (_, c) =>
    Math.max(1, textWidth(cell(b.header, c)), ...b.rows.map((r) => textWidth(cell(r, c)))),
  );
  const widths = fitColumns(natural, width - (3 * cols + 1));
  if (!widths) return recordLines(b, width);
  const row = (r: string[]) => {
    const cells = widths.map((w, c) => wrapText(cell(r, c), w));
    const height = Math.max(...cells.map((x) => x.length));
    return Array.from(
      { length: height },
      (_, k) => '│ ' + widths.map((w, c) => pad(cells[c]![k] ?? '', w, b.align[c] ?? 'left')).join(' │ ') + ' │',
    );
  };
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  const body = b.rows.map(row);
  // rows that wrap are told apart by a rule between them
  const between = body.some((r) => r.length > 1) ? [rule('├', '┼', '┤')] : [];
  return [
    rule('┌', '┬', '┐'),
    ...row(b.header),
    rule('├', '┼', '┤'),
    ...body.flatMap((r, i) => (i ? [...between, ...r] : r)),
    rule('└', '┴', '┘'),
  ];
}

/** A table too wide for the screen: each row as `header: value` lines, rows separated by a rule. */
function recordLines(b: TableBlock, width: number): string[] {
  const heads = b.header.map((h) => inlinePlain(h));
  const headWidth = Math.min(Math.max(...heads.map(textWidth)), Math.floor(width / 3));
  const out: string[] = [];
  b.rows.forEach((r, i) => {
    if (i > 0) out.push('─'.repeat(Math.min(width, 20)));
    r.forEach((v, c) => {
      const head = fitPrefix(heads[c] ?? '', headWidth);
      const lines = wrapText(inlinePlain(v), Math.max(1, width - headWidth - 2));
      lines.forEach((l, k) =>
        out.push(`${k === 0 ? pad(head, headWidth, 'left') + ': ' : ' '.repeat(headWidth + 2)}${l}`),
      );
    });
  });
  return out;
}

/** The continuation marker of a code line longer than the screen. */
const CODE_CONTINUES = '↩';

/** A code line as rows of the width: all but the last end with the marker. */
export function codeRows(line: string, width: number): string[] {
  if (textWidth(line) <= width) return [line];
  const rows: string[] = [];
  let rest = line;
  while (textWidth(rest) > width) {
    const part = fitPrefix(rest, Math.max(1, width - 1));
    rows.push(part + CODE_CONTINUES);
    rest = rest.slice(part.length);
  }
  rows.push(rest);
  return rows;
}

/** The fenced code blocks of a text, in order, each exactly as the model wrote it (for /copy n). */
export function codeBlocks(text: string): string[] {
  return parseMarkdown(text).flatMap((b) => (b.type === 'code' ? [b.lines.join('\n')] : []));
}

export function Markdown({ text, width }: { text: string; width: number }): ReactNode {
  const tint = useTint();
  // without colours a heading keeps its # markers: colour was what set it apart
  const coloured = useColour();
  const marker = (level: number) => (coloured ? '' : '#'.repeat(level) + ' ');
  const blocks = parseMarkdown(text);
  const w = Math.max(8, width);
  return (
    <Box flexDirection="column">
      {blocks.map((b, i) => {
        switch (b.type) {
          case 'heading':
            return (
              <Box key={i}>
                <Text bold color={b.level <= 2 ? tint('magenta') : undefined}>
                  {wrapText(marker(b.level) + inlinePlain(b.text), w).join('\n')}
                </Text>
              </Box>
            );
          case 'paragraph':
            return <Inline key={i} text={b.text} width={w} />;
          case 'code':
            return <CodeBlock key={i} block={b} width={w} />;
          case 'list':
            return <ListBlock key={i} block={b} width={w} />;
          case 'table':
            return (
              <Box key={i} flexDirection="column">
                {tableLines(b, w).map((l, j) => (
                  <Text key={j} wrap="truncate-end">
                    {l}
                  </Text>
                ))}
              </Box>
            );
          case 'quote':
            return (
              <Box key={i}>
                <Box width={2} flexShrink={0}>
                  <Text color={tint('gray')}>│</Text>
                </Box>
                <Inline text={b.text} width={w - 2} />
              </Box>
            );
          case 'blank':
            return <Box key={i} height={1} />;
          case 'rule':
            return (
              <Text key={i} dimColor>
                {'─'.repeat(Math.min(40, w))}
              </Text>
            );
        }
      })}
    </Box>
  );
}

/** A fenced code block between rules, each line cut to rows of the width with a continuation marker. */
function CodeBlock({ block, width }: { block: Extract<Block, { type: 'code' }>; width: number }): ReactNode {
  const tint = useTint();
  return (
    <Box flexDirection="column">
      <Text dimColor>{block.lang ? `─── ${block.lang}` : '───'}</Text>
      {(block.lines.length ? block.lines : ['']).flatMap((l, j) =>
        codeRows(l, width).map((r, k, all) => (
          <Text key={`${j}.${k}`} color={tint('yellow')} wrap="truncate-end">
            {k < all.length - 1 ? (
              <>
                {r.slice(0, -CODE_CONTINUES.length)}
                <Text dimColor>{CODE_CONTINUES}</Text>
              </>
            ) : r === '' ? (
              ' '
            ) : (
              r
            )}
          </Text>
        )),
      )}
      <Text dimColor>───</Text>
    </Box>
  );
}

/** A list: numbers as written, bullets by depth, each item's text wrapped beside its bullet. */
function ListBlock({ block, width }: { block: Extract<Block, { type: 'list' }>; width: number }): ReactNode {
  return (
    <Box flexDirection="column">
      {block.items.map((it, j) => {
        const ordered = /\d/.test(it.marker);
        const bullet = ordered ? `${it.marker.replace(/[.)]$/, '')}.` : it.indent % 2 ? '◦' : '•';
        const indent = Math.min(it.indent * 2, Math.floor(width / 2));
        const bw = textWidth(bullet) + 1;
        return (
          <Box key={j} paddingLeft={indent}>
            <Box width={bw} flexShrink={0}>
              <Text>{bullet}</Text>
            </Box>
            <Inline text={it.text} width={width - indent - bw} />
          </Box>
        );
      })}
    </Box>
  );
}
