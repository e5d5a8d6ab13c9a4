/**
 * The CLI's error table (src/cli/errors.ts): every error code written in
 * src/cli and src/commands is in it (or, for errors of sampling, selection
 * and the registry that the CLI re-throws, in their area's table), with the
 * table's status; and docs/cli.md lists every code of the table.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CLI_ERRORS, cliError } from '../../../src/cli/errors.ts';
import { SAMPLING_ERRORS } from '../../../src/lib/sampling/errors.ts';
import { SELECTION_ERRORS } from '../../../src/lib/selection/errors.ts';
import { BEACON_ERRORS } from '../../../src/lib/beacon/errors.ts';
import { REGISTRY_ERRORS } from '../../../src/lib/registry/errors.ts';

const ROOT = join(import.meta.dirname, '../../..');
const AREA_TABLES: Record<string, { status: number }> = {
  ...REGISTRY_ERRORS,
  ...SELECTION_ERRORS,
  ...BEACON_ERRORS,
  ...SAMPLING_ERRORS,
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

const files = [...sources('src/cli'), ...sources('src/commands')];

describe('CLI_ERRORS', () => {
  it('every entry has an HTTP-like status and says when it applies', () => {
    for (const [code, e] of Object.entries(CLI_ERRORS)) {
      expect(code, code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(e.status >= 400 && e.status <= 599, `${code}: ${e.status}`).toBe(true);
      expect(e.when.length, code).toBeGreaterThan(10);
    }
  });

  it('every code written in src/cli and src/commands is in a table, with that status', () => {
    const problems: string[] = [];
    let seen = 0;
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const m of text.matchAll(/cliError\(\s*'([a-z0-9_]+)'/g)) {
        seen++;
        if (!(m[1]! in CLI_ERRORS)) problems.push(`${f}: cliError('${m[1]}') is not in CLI_ERRORS`);
      }
      for (const m of text.matchAll(/(?:status(?:Code)?: (\d+),\s*)?code: '([a-z0-9_]+)'/g)) {
        seen++;
        const code = m[2]!;
        const entry = (CLI_ERRORS as Record<string, { status: number }>)[code] ?? AREA_TABLES[code];
        if (!entry) problems.push(`${f}: code '${code}' is in no error table`);
        else if (m[1] && Number(m[1]) !== entry.status)
          problems.push(`${f}: code '${code}' thrown with status ${m[1]}, the table says ${entry.status}`);
      }
    }
    expect(problems).toEqual([]);
    expect(seen).toBeGreaterThan(40);
  });

  it('cliError takes the status from the table and keeps field, value and valid', () => {
    const e = cliError('invalid_service', '--service x is not id=type,url', {
      field: 'service',
      value: 'x',
      valid: 'id=type,url',
    });
    expect(e.toBody()).toEqual({
      statusCode: 400,
      code: 'invalid_service',
      message: '--service x is not id=type,url',
      field: 'service',
      details: { value: 'x', valid: 'id=type,url' },
    });
    expect(cliError('not_logged_in', 'not signed in').status).toBe(401);
  });

  it('docs/cli.md lists every code', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(Object.keys(CLI_ERRORS).filter((c) => !doc.includes(`\`${c}\``))).toEqual([]);
  });
});
