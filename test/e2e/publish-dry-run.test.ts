/**
 * Every package of the repository publishes cleanly, as its publisher will run it: `npm publish --dry-run` of the
 * root and each workspace corrects nothing in a package.json (npm's "auto-corrected" warnings), and the tarball it
 * would publish holds every file the package.json names — each `files` entry, the `bin`, every `exports` target,
 * and the oclif commands and hooks — so no path is missing from what a user installs. (The installed CLI is run on
 * Node 22 from its tarball by test/node22/.)
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

interface Published {
  name: string;
  files: { path: string }[];
}

/** Every string leaf of an `exports` (or `bin`) value. */
function targets(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v && typeof v === 'object') return Object.values(v).flatMap(targets);
  return [];
}

const clean = (p: string) => p.replace(/^\.\//, '');

describe('npm publish --dry-run of every package', () => {
  const r = spawnSync('npm', ['publish', '--dry-run', '--json', '--workspaces', '--include-workspace-root'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
    timeout: 120_000,
  });
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const dirs = ['.', ...root.workspaces];

  it('succeeds for the root and each workspace, and corrects nothing in a package.json', () => {
    expect(r.status, r.stderr).toBe(0);
    const published = JSON.parse(r.stdout) as Record<string, Published>;
    const names = dirs.map((d) => (JSON.parse(readFileSync(join(ROOT, d, 'package.json'), 'utf8')) as Published).name);
    expect(Object.keys(published).sort()).toEqual(names.sort());
    const warnings = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('npm warn') && !/requires you to be logged in/.test(l));
    expect(warnings).toEqual([]);
  }, 120_000);

  it.each(dirs)('%s: the tarball holds every file its package.json names', (dir) => {
    const published = JSON.parse(r.stdout) as Record<string, Published>;
    const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const files = published[pkg.name]!.files.map((f) => f.path);
    const has = (p: string) => files.some((f) => f === clean(p) || f.startsWith(`${clean(p).replace(/\/$/, '')}/`));
    const named = [
      ...(pkg.files ?? []),
      ...targets(pkg.bin),
      ...targets(pkg.exports).filter((t) => !t.includes('*')),
      ...(pkg.oclif ? [pkg.oclif.commands, ...targets(pkg.oclif.hooks), 'oclif.manifest.json'] : []),
    ] as string[];
    expect(named.filter((p) => !has(p))).toEqual([]);
  });
});
