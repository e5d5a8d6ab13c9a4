/**
 * The tarballs a user installs, as `npm run pack` (scripts/pack.sh) writes them: one per package of this repository,
 * from the build the suite already made (global-setup.ts).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Packs every package into `dir`; returns each package's tarball by its name (oraclekit, @oraclekit/calls, …). */
export function packAll(dir: string): Record<string, string> {
  const out = execFileSync('bash', [join(ROOT, 'scripts', 'pack.sh'), dir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PACK_SKIP_BUILD: '1', npm_config_update_notifier: 'false' },
  });
  const packs: Record<string, string> = {};
  for (const line of out.trim().split('\n')) {
    const [name, path] = line.split(' ');
    if (name && path) packs[name] = path;
  }
  return packs;
}
