/**
 * docs/sampling.md and docs/selection.md are read by users who have only the repository: every path they name
 * exists in it, and they point to nothing outside it (no specification beside the project, no parent folders).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../../..');

describe.each(['docs/sampling.md', 'docs/selection.md'])('%s stands alone', (doc) => {
  const text = readFileSync(join(ROOT, doc), 'utf8');

  it('points to nothing outside the repository', () => {
    expect(text).not.toMatch(/shared\/specs|\bspecs\/sampling\.md|\.\.\//);
    // no citation of a section of a document the user does not have ("sampling.md chain 4")
    expect(text).not.toMatch(/sampling\.md,? (chain|step|section) \d/i);
  });

  it('every repository path it names exists', () => {
    const named = [...text.matchAll(/`((?:src|test|docs|scripts|bench)\/[^`\s*]*)/g)].map((m) => m[1]!);
    const linked = [...text.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)].map((m) => join('docs', m[1]!));
    expect(named.length).toBeGreaterThan(5);
    const missing = [...named, ...linked].filter((p) => !existsSync(join(ROOT, p)));
    expect(missing).toEqual([]);
  });
});
