import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { Markdown, parseMarkdown, tableLines } from '../../../src/ui/markdown.tsx';
import { ColorContext } from '../../../src/ui/theme.ts';

// eslint-disable-next-line no-control-regex
const strip = (s: string | undefined) => (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

describe('markdown for the terminal', () => {
  it('parses headings, paragraphs, lists, tables, code, quotes, rules', () => {
    const b = parseMarkdown(
      '# T\n\npara\nwraps\n\n- a\n  - b\n1. one\n\n| x | y |\n|:-:|--:|\n| 1 | 22 |\n\n```ts\nconst a = 1;\n```\n> q\n\n***',
    );
    // a blank row where the model wrote a blank line between two blocks
    expect(b.map((x) => x.type)).toEqual([
      'heading',
      'blank',
      'paragraph',
      'blank',
      'list',
      'blank',
      'table',
      'blank',
      'code',
      'quote',
      'blank',
      'rule',
    ]);
    const [heading, , para, , list, , t] = b;
    expect(heading).toMatchObject({ type: 'heading', level: 1 });
    expect(para).toEqual({ type: 'paragraph', text: 'para\nwraps' });
    expect(list).toMatchObject({
      items: [
        { indent: 0, text: 'a' },
        { indent: 1, text: 'b' },
        { marker: '1.', text: 'one' },
      ],
    });
    expect(b[8]).toEqual({ type: 'code', lang: 'ts', lines: ['const a = 1;'] });
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

  it('strike-through, reference links and autolinks are drawn; the definitions are not', () => {
    const text = [
      'Was ~~wrong~~ right, see [the guide][g] and [Docs].',
      'Also <https://a.example/x> and https://b.example/y.',
      '',
      '[g]: https://guide.example "Guide"',
      '[docs]: https://docs.example',
    ].join('\n');
    const frame = render(<Markdown text={text} width={120} />).lastFrame() ?? '';
    expect(strip(frame).trimEnd()).toBe(
      'Was wrong right, see the guide (https://guide.example) and Docs (https://docs.example).\n' +
        'Also https://a.example/x and https://b.example/y.',
    );
  });

  it('without colours, headings keep their # and inline code its backticks', () => {
    const frame = render(
      <ColorContext.Provider value={false}>
        <Markdown text={'## Title\n\nRun `npm test` **now**, see [x](https://x.y).'} width={80} />
      </ColorContext.Provider>,
    ).lastFrame();
    expect(strip(frame)).toBe('## Title\n\nRun `npm test` now, see x (https://x.y).');
  });
});
