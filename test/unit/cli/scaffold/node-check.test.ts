/**
 * `new` warns about the Node.js on PATH (which runs the scaffold's npm test and npm start) when it is missing or older
 * than the project runs on, naming the version found, the versions needed and how to get one. Real Node binaries on
 * a PATH of one folder: the Node running this test, and the system's older one (/usr/bin/node) where it is older.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathNodeWarning } from '../../../../src/cli/scaffold/node-check.ts';
import { nodeSupported } from '../../../../src/lib/node-support.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A PATH of one folder holding `node` (a link to the given binary), or nothing. */
function pathWith(node?: string): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'ok-path-node-'));
  dirs.push(dir);
  if (node) symlinkSync(node, join(dir, 'node'));
  return { PATH: dir };
}

const OLD = '/usr/bin/node';
const oldVersion = existsSync(OLD)
  ? execFileSync(OLD, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : '';
const signal = new AbortController().signal;

describe("the Node.js on PATH, for the scaffold's commands", () => {
  it('none when it is one the project runs on (this test’s own Node)', async () => {
    expect(nodeSupported(process.versions.node)).toBe(true);
    expect(await pathNodeWarning(signal, pathWith(process.execPath))).toBeUndefined();
  });

  it.skipIf(!oldVersion || nodeSupported(oldVersion))(
    `an older one (${oldVersion}): what it is, what is needed, how`,
    async () => {
      expect(await pathNodeWarning(signal, pathWith(OLD))).toBe(
        `the Node.js on PATH is ${oldVersion}; this project's npm test and npm start need Node.js 22 (22.22.2 or later) or 24 (24.15 or later): install Node.js 24 LTS from https://nodejs.org or with a version manager (nvm install 24)`,
      );
    },
  );

  it('no node at all', async () => {
    expect(await pathNodeWarning(signal, pathWith())).toMatch(/^no Node\.js on PATH; this project's npm test/);
  });
});
