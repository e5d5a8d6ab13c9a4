import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { Markdown, parseMarkdown, tableLines } from '../../../src/ui/markdown.tsx';

// eslint-disable-next-line no-control-regex
const strip = (s: string | undefined) => (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

describe('markdown for the terminal', () => {
  it('parses headings, paragraphs, lists, tables, code, quotes, rules', () => {
    const b = parseMarkdown(
      '# T\n\npara\nwraps\n\n- a\n  - b\n1. one\n\n| x | y |\n|:-:|--:|\n| 1 | 22 |\n\n```ts\nconst a = 1;\n```\n> q\n\n***',
    );
    expect(b.map((x) => x.type)).toEqual(['heading', 'paragraph', 'list', 'table', 'code', 'quote', 'rule']);
    expect(b[1]).toEqual({ type: 'paragraph', text: 'para\nwraps' });
    expect(b[2]).toMatchObject({
      items: [
        { indent: 0, text: 'a' },
        { indent: 1, text: 'b' },
        { marker: '1.', text: 'one' },
      ],
    });
    expect(b[4]).toEqual({ type: 'code', lang: 'ts', lines: ['const a = 1;'] });
    const t = b[3];
    if (t?.type !== 'table') throw new Error('no table');
    expect(t.align).toEqual(['center', 'right']);
    expect(tableLines(t)).toEqual(['┌───┬────┐', '│ x │  y │', '├───┼────┤', '│ 1 │ 22 │', '└───┴────┘']);
  });

  it('an unclosed fence (a stream in progress) is a code block so far', () => {
    expect(parseMarkdown('text\n```py\nprint(1)')).toEqual([
      { type: 'paragraph', text: 'text' },
      { type: 'code', lang: 'py', lines: ['print(1)'] },
    ]);
  });

  it('renders inline markup without its markers', () => {
    const out = strip(
      render(<Markdown text={'Some **bold**, *it*, `code` and [docs](https://x.y).'} width={80} />).lastFrame(),
    );
    expect(out).toBe('Some bold, it, code and docs (https://x.y).');
  });
});
