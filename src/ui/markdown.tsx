/**
 * Markdown for the terminal, as Ink elements: headings, paragraphs with
 * **bold**, *italic*, `code` and [links](url), fenced code blocks, bullet and
 * numbered lists (nested by indent), tables (GFM pipes, aligned columns),
 * block quotes, rules. Partial input (a stream in progress) renders too: an
 * unclosed fence is a code block so far.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { useTint } from './theme.ts';

export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'code'; lang: string; lines: string[] }
  | { type: 'list'; items: { indent: number; marker: string; text: string }[] }
  | { type: 'table'; header: string[]; align: ('left' | 'right' | 'center')[]; rows: string[][] }
  | { type: 'quote'; text: string }
  | { type: 'rule' };

const LIST = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ type: 'paragraph', text: para.join(' ') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) code.push(lines[i++]!);
      blocks.push({ type: 'code', lang: fence[2] ?? '', lines: code });
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      blocks.push({ type: 'heading', level: h[1]!.length, text: h[2]!.replace(/\s+#+\s*$/, '') });
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      blocks.push({ type: 'rule' });
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
      blocks.push({ type: 'table', header, align, rows });
      continue;
    }
    const li = LIST.exec(line);
    if (li) {
      flush();
      const last = blocks.at(-1);
      const item = { indent: Math.floor(li[1]!.replace(/\t/g, '  ').length / 2), marker: li[2]!, text: li[3]! };
      if (last?.type === 'list') last.items.push(item);
      else blocks.push({ type: 'list', items: [item] });
      continue;
    }
    const q = /^\s*>\s?(.*)$/.exec(line);
    if (q) {
      flush();
      const last = blocks.at(-1);
      if (last?.type === 'quote') last.text += ' ' + q[1]!;
      else blocks.push({ type: 'quote', text: q[1]! });
      continue;
    }
    // a continuation line of a list item
    const last = blocks.at(-1);
    if (para.length === 0 && last?.type === 'list' && /^\s+\S/.test(line)) {
      last.items.at(-1)!.text += ' ' + line.trim();
      continue;
    }
    para.push(line.trim());
  }
  flush();
  return blocks;
}

const INLINE = /(\*\*[^*]+\*\*|__[^_]+__|`[^`]+`|\*[^*\s][^*]*\*|(?<![\w])_[^_\s][^_]*_(?![\w])|\[[^\]]+\]\([^)\s]+\))/;

/** Inline markup → plain text (for widths and plain output). */
function inlinePlain(text: string): string {
  return text
    .split(INLINE)
    .map((p) => {
      if (/^(\*\*|__).*(\*\*|__)$/.test(p)) return p.slice(2, -2);
      if (/^`.*`$/.test(p)) return p.slice(1, -1);
      if (/^[*_].*[*_]$/.test(p) && p.length > 2) return p.slice(1, -1);
      const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(p);
      if (link) return `${link[1]} (${link[2]})`;
      return p;
    })
    .join('');
}

function Inline({ text }: { text: string }): ReactNode {
  const tint = useTint();
  const parts = text.split(INLINE).filter((p) => p !== '');
  return (
    <Text>
      {parts.map((p, i) => {
        if (/^(\*\*|__).*(\*\*|__)$/.test(p) && p.length > 4)
          return (
            <Text key={i} bold>
              {p.slice(2, -2)}
            </Text>
          );
        if (/^`.*`$/.test(p) && p.length > 2)
          return (
            <Text key={i} color={tint('yellow')}>
              {p.slice(1, -1)}
            </Text>
          );
        if (/^[*_].*[*_]$/.test(p) && p.length > 2)
          return (
            <Text key={i} italic>
              {p.slice(1, -1)}
            </Text>
          );
        const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(p);
        if (link)
          return (
            <Text key={i}>
              <Text underline color={tint('cyan')}>
                {link[1]}
              </Text>
              <Text dimColor> ({link[2]})</Text>
            </Text>
          );
        return <Text key={i}>{p}</Text>;
      })}
    </Text>
  );
}

function pad(s: string, w: number, align: 'left' | 'right' | 'center'): string {
  const n = w - [...s].length;
  if (n <= 0) return s;
  if (align === 'right') return ' '.repeat(n) + s;
  if (align === 'center') return ' '.repeat(Math.floor(n / 2)) + s + ' '.repeat(Math.ceil(n / 2));
  return s + ' '.repeat(n);
}

/** A table as aligned text lines with box-drawing borders. */
export function tableLines(b: Extract<Block, { type: 'table' }>): string[] {
  const cols = Math.max(b.header.length, ...b.rows.map((r) => r.length));
  const cell = (r: string[], c: number) => inlinePlain(r[c] ?? '');
  const widths = Array.from({ length: cols }, (_, c) =>
    Math.max(1, [...cell(b.header, c)].length, ...b.rows.map((r) => [...cell(r, c)].length)),
  );
  const row = (r: string[]) => '│ ' + widths.map((w, c) => pad(cell(r, c), w, b.align[c] ?? 'left')).join(' │ ') + ' │';
  const rule = (l: string, m: string, r: string) => l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r;
  return [rule('┌', '┬', '┐'), row(b.header), rule('├', '┼', '┤'), ...b.rows.map(row), rule('└', '┴', '┘')];
}

export function Markdown({ text }: { text: string }): ReactNode {
  const tint = useTint();
  const blocks = parseMarkdown(text);
  return (
    <Box flexDirection="column">
      {blocks.map((b, i) => {
        switch (b.type) {
          case 'heading':
            return (
              <Text key={i} bold color={b.level <= 2 ? tint('magenta') : undefined}>
                {inlinePlain(b.text)}
              </Text>
            );
          case 'paragraph':
            return <Inline key={i} text={b.text} />;
          case 'code':
            return (
              <Box
                key={i}
                flexDirection="column"
                borderStyle="round"
                borderColor={tint('gray')}
                paddingX={1}
                alignSelf="flex-start"
              >
                {b.lang ? <Text dimColor>{b.lang}</Text> : null}
                {(b.lines.length ? b.lines : ['']).map((l, j) => (
                  <Text key={j} color={tint('yellow')}>
                    {l === '' ? ' ' : l}
                  </Text>
                ))}
              </Box>
            );
          case 'list': {
            let n = 0;
            return (
              <Box key={i} flexDirection="column">
                {b.items.map((it, j) => {
                  const ordered = /\d/.test(it.marker);
                  n = ordered ? n + 1 : 0;
                  const bullet = ordered ? `${it.marker.replace(/[.)]$/, '')}.` : it.indent % 2 ? '◦' : '•';
                  return (
                    <Box key={j} paddingLeft={it.indent * 2}>
                      <Text>{bullet} </Text>
                      <Inline text={it.text} />
                    </Box>
                  );
                })}
              </Box>
            );
          }
          case 'table':
            return (
              <Box key={i} flexDirection="column">
                {tableLines(b).map((l, j) => (
                  <Text key={j} bold={j === 1}>
                    {l}
                  </Text>
                ))}
              </Box>
            );
          case 'quote':
            return (
              <Box key={i}>
                <Text color={tint('gray')}>│ </Text>
                <Inline text={b.text} />
              </Box>
            );
          case 'rule':
            return (
              <Text key={i} dimColor>
                {'─'.repeat(40)}
              </Text>
            );
        }
      })}
    </Box>
  );
}
