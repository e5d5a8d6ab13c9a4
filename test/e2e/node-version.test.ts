/**
 * bin/run.js on a Node.js older than oraclekit needs (the system Node of these machines, /usr/bin/node, 20.x):
 * one line on stderr naming the version found, the versions needed and how to get one, exit 1 — from an installed
 * package it names no file the user lacks; from a source checkout it names scripts/setup.sh, which installs Node.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeSupported, nodeTooOld } from '../../src/lib/node-support.ts';

const ROOT = join(import.meta.dirname, '../..');
const OLD = '/usr/bin/node';
const oldVersion = existsSync(OLD)
  ? execFileSync(OLD, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : '';

/** bin/run.js and the module it checks with, laid out as npm installs the package (plus `extra` files). */
function layout(extra: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'ok-node-gate-'));
  mkdirSync(join(dir, 'dist/lib'), { recursive: true });
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist/lib/node-support.js'), join(dir, 'dist/lib/node-support.js'));
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  for (const f of extra) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), '');
  }
  return dir;
}

describe.skipIf(!oldVersion || nodeSupported(oldVersion))(`bin/run.js under Node ${oldVersion || '(none)'}`, () => {
  it('an installed package: one line, no file the user lacks, exit 1', () => {
    const r = spawnSync(OLD, [join(layout(), 'bin/run.js'), 'sample', 'calc', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${nodeTooOld(oldVersion)}\n`);
    expect(r.stderr).not.toMatch(/scripts\/|setup/);
  });

  it('a source checkout without .tools/node: one line naming scripts/setup.sh', () => {
    const r = spawnSync(OLD, [join(layout(['scripts/setup.sh']), 'bin/run.js'), '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${nodeTooOld(oldVersion, 'run bash scripts/setup.sh, which installs Node.js 24 into .tools/')}\n`,
    );
  });
});
