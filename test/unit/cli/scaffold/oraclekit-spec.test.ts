import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultOraclekitSpec } from '../../../../src/cli/scaffold/new.ts';

describe("the scaffolded project's oraclekit dependency", () => {
  it('points at the checkout when the CLI runs from a source checkout (not yet published)', () => {
    const root = mkdtempSync(join(tmpdir(), 'ok-checkout-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'package.json'), '{}');
    expect(defaultOraclekitSpec('0.1.0', root)).toBe(`file:${root}`);
  });
  it('is a caret range of this version when the CLI is an installed package', () => {
    const root = mkdtempSync(join(tmpdir(), 'ok-installed-'));
    const pkg = join(root, 'node_modules', 'oraclekit');
    mkdirSync(join(pkg, 'src'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{}');
    expect(defaultOraclekitSpec('0.1.0', pkg + '/')).toBe('^0.1.0');
    expect(defaultOraclekitSpec('2.3.4', mkdtempSync(join(tmpdir(), 'ok-dist-only-')))).toBe('^2.3.4');
  });
  it('from this repository it is file: of the repository root', () => {
    expect(defaultOraclekitSpec('0.1.0')).toBe(`file:${join(import.meta.dirname, '../../../..')}`);
  });
});
