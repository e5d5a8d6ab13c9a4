/**
 * `npm run lint` is the gate for the layout and the format: it runs ESLint (the
 * layer rule of eslint-rules/layers.js, the one-home checks) and Prettier's check. These tests run
 * the real script in a scratch copy of the project's lint configuration, with
 * one offending file each, so a change to the script or the configs that lets
 * either kind of file through fails here.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const CONFIGS = [
  'package.json',
  'eslint.config.js',
  'eslint-rules',
  '.prettierrc.json',
  '.prettierignore',
  'scripts/check-issue-numbers.mjs',
];
const dirs: string[] = [];

/** A scratch project with the real lint configuration and the given source files. */
function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-lint-'));
  dirs.push(dir);
  for (const name of CONFIGS) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function lint(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'lint'], { cwd: dir });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('npm run lint', () => {
  const low = 'export const answer = 42;\n';

  it('passes a formatted project whose imports point down', async () => {
    const dir = scratch({
      'src/lib/answer.ts': low,
      'src/cli/show.ts': "import { answer } from '../lib/answer.ts';\n\nexport const shown = String(answer);\n",
    });
    expect(await lint(dir)).toMatchObject({ code: 0 });
  }, 60_000);

  it('fails on an upward import (src/lib importing src/cli)', async () => {
    const dir = scratch({
      'src/cli/show.ts': 'export const shown = 1;\n',
      'src/lib/answer.ts': "import { shown } from '../cli/show.ts';\n\nexport const answer = shown + 41;\n",
    });
    const result = await lint(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('lib may not import cli');
  }, 60_000);

  it('fails on a file made 0600 outside the secret-file writer, and passes the named private files', async () => {
    const byHand =
      "import { chmodSync, writeFileSync } from 'node:fs';\n\n" +
      'export function save(path: string, text: string): void {\n' +
      '  writeFileSync(path, text, { mode: 0o600 });\n' +
      '  chmodSync(path, 0o600);\n' +
      '}\n';
    const dir = scratch({ 'src/cli/keys.ts': byHand, 'src/cli/chat/history.ts': byHand });
    const result = await lint(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('src/cli/keys.ts');
    expect(result.output.match(/a file that holds a key is written through src\/lib\/secret-file\.ts/g)).toHaveLength(
      2,
    );
    expect(result.output).not.toContain('history.ts');
  }, 60_000);

  it('fails on a file Prettier would reformat', async () => {
    const dir = scratch({ 'src/lib/answer.ts': 'export const answer   =   42\n' });
    const result = await lint(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('src/lib/answer.ts');
  }, 60_000);
});
