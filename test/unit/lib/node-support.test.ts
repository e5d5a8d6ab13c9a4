/**
 * The Node.js versions oraclekit runs on are one rule (src/lib/node-support.ts): the engines of every package.json
 * we ship and of the scaffold say exactly it, and the versions on either side of each floor fall where they should.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_NEEDED, NODE_RANGE, nodeSupported, nodeTooOld } from '../../../src/lib/node-support.ts';

const ROOT = join(import.meta.dirname, '../../..');
const engines = (path: string) =>
  (JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as { engines?: { node?: string } }).engines?.node;

describe('the Node.js versions oraclekit runs on', () => {
  it('22 from 22.22.2, 24 from 24.15, and every later major; never 23 or older', () => {
    for (const v of ['22.22.2', 'v22.22.3', '22.23.0', '24.15.0', 'v24.22.3', '25.0.0', '26.1.0'])
      expect(nodeSupported(v), v).toBe(true);
    for (const v of ['18.20.8', '20.20.2', 'v22.18.0', '22.22.1', '22.9.0', '23.11.0', '24.0.0', '24.14.9'])
      expect(nodeSupported(v), v).toBe(false);
  });

  it('is what engines says in the CLI, the client package and the scaffold', () => {
    for (const p of ['package.json', 'src/client/package.json', 'templates/oracle/package.json'])
      expect(engines(p), p).toBe(NODE_RANGE);
  });

  it("the scaffold's README names the versions", () => {
    expect(readFileSync(join(ROOT, 'templates/oracle/README.md'), 'utf8')).toContain(NODE_NEEDED);
  });

  it('an older Node gets one line: the version found, the versions needed, how to get one', () => {
    const line = nodeTooOld('v20.20.2');
    expect(line).toBe(
      'oraclekit needs Node.js 22 (22.22.2 or later) or 24 (24.15 or later); this is Node.js 20.20.2: install Node.js 24 LTS from https://nodejs.org or with a version manager (nvm install 24).',
    );
    expect(line).not.toContain('\n');
  });
});
