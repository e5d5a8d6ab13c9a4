/**
 * What a user's install weighs, from a folder of packed tarballs (`npm run pack -- <dir>`):
 * - the CLI installed globally into an empty prefix: megabytes on disk, packages, seconds;
 * - an oracle's project as `oraclekit new` writes its package.json (templates/oracle as packed in the CLI's tarball,
 *   with @oraclekit/calls when the folder has its tarball): megabytes, packages, seconds;
 * - `oraclekit sample calc` from the global install against `node -e 0`: 11 runs of each in turn (A B A B …, so a
 *   drift of the machine's speed hits both), medians and the median of the pairs' ratios.
 * Installs run with --ignore-scripts, so a tree whose install step reaches outside the registry (onnxruntime-node's)
 * can be measured too; the size is the same with the step skipped.
 *
 *   node bench/install-size.ts <packs-dir> [--cold] [--cli] [--json]
 *
 * --cold: a fresh, empty npm cache (every package downloaded from the registry); default: npm's own cache (warm).
 * --cli: the global CLI and `sample calc` only (no scaffold).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const packsDir = resolve(args.find((a) => !a.startsWith('--')) ?? 'packs');
const cold = args.includes('--cold');
const json = args.includes('--json');
const cliOnly = args.includes('--cli');

const tarball = (re: RegExp) => {
  const f = readdirSync(packsDir).find((n) => re.test(n));
  return f ? join(packsDir, f) : undefined;
};
const cli = tarball(/^oraclekit-\d.*\.tgz$/);
const calls = tarball(/^oraclekit-calls-\d.*\.tgz$/);
if (!cli) throw new Error(`no oraclekit-<version>.tgz in ${packsDir}: run npm run pack -- ${packsDir}`);

const work = mkdtempSync(join(tmpdir(), 'ok-install-size-'));
const cache = cold ? join(work, 'cache') : undefined;

function npmInstall(extra: string[], cwd: string): number {
  const t0 = performance.now();
  execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...extra], {
    cwd,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, npm_config_update_notifier: 'false', ...(cache ? { npm_config_cache: cache } : {}) },
  });
  return (performance.now() - t0) / 1000;
}

const megabytes = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]) / 1e6;

/** Package folders in a node_modules tree, nested ones included. */
function packages(nm: string): number {
  let n = 0;
  let entries: string[];
  try {
    entries = readdirSync(nm);
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.startsWith('.')) continue;
    for (const p of e.startsWith('@') ? readdirSync(join(nm, e)).map((s) => join(e, s)) : [e]) {
      n += 1 + packages(join(nm, p, 'node_modules'));
    }
  }
  return n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Runs a and b in turn `runs` times; their medians (ms) and the median of the pairs' ratios a/b. */
function timedPairs(a: [string, string[]], b: [string, string[]], runs = 11): { a: number; b: number; ratio: number } {
  const time = ([file, argv]: [string, string[]]) => {
    const t0 = performance.now();
    execFileSync(file, argv, { stdio: 'ignore', cwd: work });
    return performance.now() - t0;
  };
  time(a); // warm-up: the first run reads the files from disk
  time(b);
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(time(a));
    bs.push(time(b));
  }
  return { a: median(as), b: median(bs), ratio: median(as.map((x, i) => x / bs[i]!)) };
}

function measureScaffold() {
  const project = join(work, 'project');
  // the template packed in the CLI's tarball: what `oraclekit new` of that build writes, whichever checkout runs this
  const template = JSON.parse(
    execFileSync('tar', ['-xzOf', cli!, 'package/templates/oracle/package.json'], { encoding: 'utf8' }),
  ) as { dependencies: Record<string, string> };
  const deps: Record<string, string> = { ...template.dependencies, oraclekit: `file:${cli}` };
  if (calls) deps['@oraclekit/calls'] = `file:${calls}`;
  else delete deps['@oraclekit/calls'];
  execFileSync('mkdir', ['-p', project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ ...template, name: 'bench-oracle', description: 'bench', dependencies: deps }, null, 2),
  );
  const scaffoldSeconds = npmInstall([], project);
  return {
    withCalls: calls !== undefined,
    megabytes: Math.round(megabytes(join(project, 'node_modules'))),
    packages: packages(join(project, 'node_modules')),
    seconds: Math.round(scaffoldSeconds),
  };
}

try {
  // the global CLI
  const prefix = join(work, 'global');
  const globalSeconds = npmInstall(['-g', '--prefix', prefix, cli], work);
  const globalTree = join(prefix, 'lib', 'node_modules');
  const global = {
    megabytes: Math.round(megabytes(prefix)),
    packages: packages(globalTree),
    seconds: Math.round(globalSeconds),
  };
  // sample calc from it, against node's own start
  const calc = ['sample', 'calc', '--population', '8000', '--mean', '3.1', '--sd', '1.7', '--dropout', '0.1'];
  const t = timedPairs([join(prefix, 'bin', 'oraclekit'), calc], [process.execPath, ['-e', '0']]);
  const sampleCalcMs = Math.round(t.a);
  const nodeMs = Math.round(t.b);
  const ratio = Math.round(t.ratio * 100) / 100;

  // a scaffold: the template's package.json with the tarballs
  const scaffold = cliOnly ? undefined : measureScaffold();
  const result = { packs: packsDir, cache: cold ? 'cold' : 'warm', global, sampleCalcMs, nodeMs, ratio, scaffold };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`packs ${packsDir}; npm cache ${result.cache}; node ${process.version}`);
    console.log(`global CLI: ${global.megabytes} MB, ${global.packages} packages, ${global.seconds} s`);
    console.log(`sample calc: ${sampleCalcMs} ms (node -e 0: ${nodeMs} ms, ${ratio}x), medians of 11 in turn`);
    if (scaffold)
      console.log(
        `scaffold${scaffold.withCalls ? ' with @oraclekit/calls' : ''}: ${scaffold.megabytes} MB, ${scaffold.packages} packages, ${scaffold.seconds} s`,
      );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
