/**
 * What an installed package's tree is made of: for each of its direct dependencies, the packages reachable through
 * it, and those reachable ONLY through it (what leaving it out would remove), with their megabytes. The tree is read
 * as Node resolves it (each package's dependencies, optional and peer dependencies, looked up through the
 * node_modules folders above it). Groups (`a,b`) count what leaving several out together would remove.
 *
 *   node bench/install-tree.ts <prefix>/lib/node_modules/oraclekit [dep[,dep…] …] [--list] [--dev]
 *
 * --list: also name the packages each group would remove.
 * --dev: count the root's devDependencies as direct dependencies too (a project as its developer installs it, such as
 *   a scaffold: its test runner and compiler are part of what `npm install` writes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
const root = resolve(args.find((a) => !a.startsWith('--')) ?? '.');
const groups = args.filter((a) => !a.startsWith('--') && resolve(a) !== root).map((g) => g.split(','));
const list = args.includes('--list');
const dev = args.includes('--dev');

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
const bytes = (dir: string) =>
  Number(execFileSync('du', ['-sb', '--exclude=node_modules', dir], { encoding: 'utf8' }).split('\t')[0]);

function resolveDep(from: string, name: string): string | undefined {
  for (let d = from; ; d = dirname(d)) {
    const c = join(d, 'node_modules', name);
    if (existsSync(join(c, 'package.json'))) return c;
    if (dirname(d) === d) return undefined;
  }
}

const edges = new Map<string, string[]>();
function depsOf(dir: string): string[] {
  let out = edges.get(dir);
  if (!out) {
    const m = manifest(dir);
    const names = new Set([
      ...Object.keys(m.dependencies ?? {}),
      ...Object.keys(m.optionalDependencies ?? {}),
      ...Object.keys(m.peerDependencies ?? {}),
    ]);
    out = [...names].map((n) => resolveDep(dir, n)).filter((d): d is string => d !== undefined);
    edges.set(dir, out);
  }
  return out;
}

function reach(starts: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...starts];
  while (stack.length) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    stack.push(...depsOf(d));
  }
  return seen;
}

const rootManifest = manifest(root);
const top = Object.keys({ ...rootManifest.dependencies, ...(dev ? rootManifest.devDependencies : {}) })
  .map((n) => [n, resolveDep(root, n)] as const)
  .filter((e): e is readonly [string, string] => e[1] !== undefined);
const all = reach(top.map(([, d]) => d));
const size = new Map([...all].map((d) => [d, bytes(d)]));
const mb = (s: Iterable<string>) => ([...s].reduce((a, d) => a + size.get(d)!, 0) / 1e6).toFixed(1);
/** The packages only the named direct dependencies reach. */
const onlyThrough = (names: string[]) => {
  const others = reach(top.filter(([n]) => !names.includes(n)).map(([, d]) => d));
  return [...all].filter((d) => !others.has(d));
};

console.log(`${root}: ${all.size} packages besides it, ${mb(all)} MB (their own files)`);
console.log('direct dependency | reaches | MB | only through it | MB');
const rows = top.map(([n, d]) => {
  const r = reach([d]);
  const only = onlyThrough([n]);
  return { n, r: r.size, rmb: mb(r), o: only.length, omb: mb(only) };
});
for (const r of rows.sort((a, b) => b.o - a.o)) console.log(`${r.n} | ${r.r} | ${r.rmb} | ${r.o} | ${r.omb}`);
for (const g of groups) {
  const only = onlyThrough(g);
  console.log(`leaving out ${g.join(' + ')}: ${only.length} packages, ${mb(only)} MB`);
  if (list) console.log('  ' + only.map((d) => d.slice(d.lastIndexOf('node_modules/') + 13)).join(' '));
}
