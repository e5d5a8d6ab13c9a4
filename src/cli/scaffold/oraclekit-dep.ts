/**
 * The project's dependency on oraclekit. A teammate must be able to install the project from its repository, so it
 * never names an absolute path: a toolkit that is not on the registry is packed into the project as
 * vendor/<tarball> (committed with it) and named by a relative `file:vendor/…`.
 *
 * - default, this CLI an installed package: `^<version>` from the registry;
 * - default, this CLI run from a source checkout (oraclekit unpublished): `npm pack` of the checkout into vendor/;
 * - `--oraclekit-version file:<tarball>`: the tarball copied into vendor/ (a missing one is kept as given, so
 *   `npm install` says what is wrong);
 * - `--oraclekit-version file:<directory>`: that directory packed into vendor/;
 * - any other spec (a range, a tag, a git URL): as given.
 *
 * The project's dependency on @oraclekit/calls (live calls, a package of its own) follows it (callsSource): the
 * checkout's src/calls packed, the `oraclekit-calls-*.tgz` beside a given tarball (`npm run pack` writes both into one
 * folder), else `^<version>` from the registry.
 *
 * A pack of the checkout is kept in the state directory, named by a digest of the packed files' sizes and times, so
 * only the first project after a build or an edit of the templates pays for `npm pack` (about 1.5 s).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stateDir } from '../../lib/paths.ts';
import { createSha256 } from '../../lib/hash.ts';
import { runProgram } from './run.ts';

const CHECKOUT = fileURLToPath(new URL('../../../', import.meta.url));

/** What the project depends on: a spec as is, a tarball to copy into vendor/, or a folder to pack there. */
export type OraclekitSource = { spec: string } | { tarball: string } | { pack: string };

/** The default: this checkout packed when the CLI runs from a source checkout, else `^<version>`. */
export function defaultOraclekitSource(version: string, root = CHECKOUT): OraclekitSource {
  const fromCheckout =
    !root.includes(`${'/'}node_modules${'/'}`) &&
    existsSync(join(root, 'src')) &&
    existsSync(join(root, 'package.json'));
  return fromCheckout ? { pack: resolve(root) } : { spec: `^${version}` };
}

/** The source of a given spec: a local tarball or folder is vendored, anything else is kept. */
export function givenOraclekitSource(spec: string, cwd: string): OraclekitSource {
  if (!spec.startsWith('file:')) return { spec };
  const path = resolve(cwd, spec.slice('file:'.length));
  if (!existsSync(path)) return { spec };
  return statSync(path).isDirectory() ? { pack: path } : { tarball: path };
}

/** Where the project's @oraclekit/calls comes from, given where its oraclekit does. */
export function callsSource(oraclekit: OraclekitSource, version: string): OraclekitSource {
  if ('pack' in oraclekit) {
    const folder = join(oraclekit.pack, 'src', 'calls');
    if (existsSync(join(folder, 'package.json'))) return { pack: folder };
  } else if ('tarball' in oraclekit) {
    const dir = dirname(oraclekit.tarball);
    const sibling = readdirSync(dir)
      .filter((f) => /^oraclekit-calls-.+\.tgz$/.test(f))
      .sort()
      .at(-1);
    if (sibling) return { tarball: join(dir, sibling) };
  }
  return { spec: `^${version}` };
}

function walkStats(dir: string, h: ReturnType<typeof createSha256>): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walkStats(p, h);
    else if (e.isFile()) {
      const s = statSync(p);
      h.update(`${p}\0${s.size}\0${s.mtimeMs}\n`);
    }
  }
}

/**
 * `npm pack` of a folder, cached under the state directory by a digest of the sizes and times of what it packs: every
 * file of bin/, templates/ and docs/, and of dist/ the files a build always rewrites (tsc emits every file on each
 * build), so a digest costs a few dozen stat calls rather than a walk of dist/.
 */
async function packed(folder: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string> {
  const h = createSha256();
  for (const top of ['bin', 'templates', 'docs']) if (existsSync(join(folder, top))) walkStats(join(folder, top), h);
  for (const file of ['package.json', 'oclif.manifest.json', 'README.md', 'dist/index.js', 'dist/index.d.ts']) {
    const p = join(folder, file);
    if (existsSync(p)) h.update(`${p}\0${statSync(p).size}\0${statSync(p).mtimeMs}\n`);
  }
  const cache = join(stateDir(env), 'packs', h.digest('hex').slice(0, 16));
  const done = existsSync(cache) ? readdirSync(cache).find((f) => f.endsWith('.tgz')) : undefined;
  if (done) return join(cache, done);
  // packed beside the cache and renamed into it whole, so a concurrent `new` never copies a half-written tarball
  mkdirSync(dirname(cache), { recursive: true });
  const tmp = mkdtempSync(`${cache}.tmp-`);
  const r = await runProgram('npm', ['pack', folder, '--pack-destination', tmp, '--silent'], {
    signal,
    env: { npm_config_update_notifier: 'false' },
  });
  if (r.exitCode !== 0)
    throw new Error(`npm pack ${folder} failed (${r.error ?? `exit ${r.exitCode}`}): ${r.stderr.trim().slice(-800)}`);
  const name = r.stdout.trim().split('\n').at(-1)!;
  try {
    renameSync(tmp, cache);
    return join(cache, name);
  } catch {
    return join(tmp, name); // another run won the rename: this run's own pack is as good
  }
}

/** The spec to write into package.json (oraclekit's or @oraclekit/calls'); a tarball is copied into <dir>/vendor/ first. */
export async function oraclekitDependency(
  dir: string,
  source: OraclekitSource,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<{ spec: string; vendored?: string }> {
  if ('spec' in source) return { spec: source.spec };
  const tarball = 'pack' in source ? await packed(source.pack, env, signal) : source.tarball;
  const vendored = `vendor/${basename(tarball)}`;
  mkdirSync(join(dir, 'vendor'), { recursive: true });
  copyFileSync(tarball, join(dir, vendored));
  return { spec: `file:${vendored}`, vendored };
}
