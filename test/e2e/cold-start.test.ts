/**
 * `sample calc` must start fast: it must not load oclif, ink, react, undici,
 * execa, fastify, socket.io or anything of the daemon (bench/cold-start.ts
 * measures the time; this checks what is loaded).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from '../helpers/cli.ts';
import { SIMPLE_CALC_ARGS } from '../helpers/sampling-designs.ts';

const FORBIDDEN = [
  /node_modules\/@oclif\//,
  /node_modules\/ink\//,
  /node_modules\/react\//,
  /node_modules\/undici\//,
  /node_modules\/execa\//,
  /node_modules\/fastify\//,
  /node_modules\/socket\.io/,
  /\/dist\/daemon\//,
  /node_modules\/@inquirer\//,
  /\/dist\/cli\/sample\/guided\.js/,
];

function loaded(args: string[]): { code: number | null; urls: string[] } {
  const file = join(mkdtempSync(join(tmpdir(), 'ok-trace-')), 'imports.txt');
  const r = spawnSync(process.execPath, ['--import', join(ROOT, 'test/helpers/trace-imports.mjs'), BIN, ...args], {
    env: { ...process.env, TRACE_IMPORTS_FILE: file },
    encoding: 'utf8',
  });
  return { code: r.status, urls: readFileSync(file, 'utf8').trim().split('\n') };
}

describe('cold start of sample calc', () => {
  it('loads none of the heavy modules', () => {
    const { code, urls } = loaded(['sample', 'calc', ...SIMPLE_CALC_ARGS, '--json']);
    expect(code).toBe(0);
    expect(urls.some((u) => u.includes('/dist/lib/sampling/design.js'))).toBe(true);
    for (const re of FORBIDDEN) expect(urls.filter((u) => re.test(u))).toEqual([]);
  });
  it('an error on the fast path is still printed with its exit code', () => {
    const { code, urls } = loaded(['sample', 'calc', '-N', '60', '--mean', '1', '--sd', '0.5', '--dropout', '0.25']);
    expect(code).toBe(5);
    expect(urls.filter((u) => /@oclif/.test(u))).toEqual([]);
  });
  it('help goes through oclif (the check above can see oclif when it is loaded)', () => {
    const { urls } = loaded(['sample', 'calc', '--help']);
    expect(urls.some((u) => /node_modules\/@oclif\/core\//.test(u))).toBe(true);
  });
});
