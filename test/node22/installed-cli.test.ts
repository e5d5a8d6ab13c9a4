/**
 * The CLI as a statistician installs it (`npm install -g` of its tarball, docs/install.md), on Node 22: the
 * `oraclekit` command npm linked runs, and `sample calc`, `recalc`, `select commit` / `draw`, `verify` and `report`
 * from the installed package give what they give on Node 24 — every file they load is in the tarball.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { drawFlags, sample, selectionFiles, verifyFlags } from '../helpers/sample-cli.ts';
import { commitForRealRound, QUICKNET, roundJson } from '../helpers/real-rounds.ts';
import { loadDesign } from '../../src/lib/selection/design.ts';

const { prefix, cli } = inject('node22');
const dir = mkdtempSync(join(tmpdir(), 'ok-node22-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const F = selectionFiles(dir);
const { p } = F;
const run = (command: string, flags: Parameters<typeof sample>[1], extra: string[] = []) =>
  // NODE_ENV as a user's shell has it, not vitest's "test" (under which oclif looks for TypeScript sources)
  sample(command, flags, extra, { bin: cli, cwd: dir, timeoutMs: 60_000, env: { NODE_ENV: '' } });

beforeAll(() => {
  writeFileSync(F.frame, 'household_id\n' + Array.from({ length: 400 }, (_, i) => `H${i + 1}`).join('\n') + '\n');
});

describe(`the installed CLI on Node ${process.versions.node}`, () => {
  it('`oraclekit` is on the prefix’s PATH and names this Node', () => {
    const out = execFileSync(join(prefix, 'bin/oraclekit'), ['--version'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: '' },
    });
    expect(out).toContain(`node-v${process.versions.node}`);
  });

  it('sample calc: the 95/5 design', async () => {
    const r = await run('calc', { population: '400', mean: '2.4', sd: '1.1', dropout: '0.1', json: true });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    writeFileSync(F.design, r.stdout);
    expect(JSON.parse(r.stdout).parameters).toMatchObject({ population: 400, calculatedSize: 179, adjustedSize: 199 });
  });

  it('sample recalc: from observed values', async () => {
    const r = await run('recalc', { previous: F.design, mean: '2', sd: '1.1', json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).change.total).toMatchObject({ from: 199, to: 240, direction: 'up' });
  });

  it('sample select commit names a future round of the pinned public chain', async () => {
    const r = await run('select commit', { design: F.design, frame: F.frame, out: p('future.json'), json: true });
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(readFileSync(p('future.json'), 'utf8'));
    expect(Date.parse(c.beacon.roundTime)).toBeGreaterThan(Date.now());
  });

  it('sample select draw, verify and report on a real signed round', async () => {
    const c = await commitForRealRound({
      design: loadDesign(JSON.parse(readFileSync(F.design, 'utf8'))),
      framePath: F.frame,
      out: F.commitment,
    });
    writeFileSync(F.round, roundJson(QUICKNET));
    const d = await run('select draw', drawFlags(F));
    expect(d.code, d.stderr).toBe(0);
    const roles = readFileSync(F.selection, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[2]);
    expect(roles.filter((r) => r === 'sample')).toHaveLength(199);
    const publishedAt = c.publishedAt.toISOString();
    const v = await run('verify', verifyFlags(F, { 'published-at': publishedAt }));
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const r = await run('report', {}, [
      ...['--design', F.design, '--commitment', F.commitment, '--proof', F.proof, '--selection', F.selection],
      ...['--published-at', publishedAt, '--out', p('package.html'), '--json'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(p('package.html'), 'utf8')).toContain('<section class="project"');
  }, 120_000);
});
