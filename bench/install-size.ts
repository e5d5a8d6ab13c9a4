/**
 * What a user's install weighs, from a folder of packed tarballs (`npm run pack -- <dir>`):
 * - the CLI installed globally into an empty prefix: megabytes on disk, packages, seconds;
 * - an oracle's project as `oraclekit new` writes its package.json (templates/oracle, with @oraclekit/calls when the
 *   folder has its tarball): megabytes, packages, seconds;
 * - `oraclekit sample calc` from the global install against `node -e 0` (median of 5 runs each).
 * Installs run with --ignore-scripts, so a tree whose install step reaches outside the registry (onnxruntime-node's)
 * can be measured too; the size is the same with the step skipped.
 *
 *   node bench/install-size.ts <packs-dir> [--cold] [--scaffold] [--json]
 *
 * --cold: a fresh, empty npm cache (every package downloaded from the registry); default: npm's own cache (warm).
 * --scaffold: the oracle's project alone (no global CLI, no `sample calc` timing).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const packsDir = resolve(args.find((a) => !a.startsWith('--')) ?? 'packs');
const cold = args.includes('--cold');
const json = args.includes('--json');
const scaffoldOnly = args.includes('--scaffold');
const ROOT = join(import.meta.dirname, '..');

const tarball = (re: RegExp) => {
  const f = readdirSync(packsDir).find((n) => re.test(n));
  return f ? join(packsDir, f) : undefined;
};
const calls = tarball(/^oraclekit-calls-\d.*\.tgz$/);
const cli = tarball(/^oraclekit-\d.*\.tgz$/) ?? '';
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

function timed(file: string, argv: string[], runs = 5): number {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    execFileSync(file, argv, { stdio: 'ignore', cwd: work });
    out.push(performance.now() - t0);
  }
  return median(out);
}

/** The CLI installed globally, and `sample calc` from it against node's own start. */
function globalCli() {
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
  const sampleCalcMs = Math.round(timed(join(prefix, 'bin', 'oraclekit'), calc));
  const nodeMs = Math.round(timed(process.execPath, ['-e', '0']));
  return { global, sampleCalcMs, nodeMs };
}

/** An oracle's project: the template's package.json with the tarballs. */
function scaffoldProject() {
  const project = join(work, 'project');
  const template = JSON.parse(readFileSync(join(ROOT, 'templates', 'oracle', 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
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
  const globalInstall = scaffoldOnly ? undefined : globalCli();
  const scaffold = scaffoldProject();
  const result = { packs: packsDir, cache: cold ? 'cold' : 'warm', ...globalInstall, scaffold };
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`packs ${packsDir}; npm cache ${result.cache}; node ${process.version}`);
    if (globalInstall) {
      const { global, sampleCalcMs, nodeMs } = globalInstall;
      console.log(`global CLI: ${global.megabytes} MB, ${global.packages} packages, ${global.seconds} s`);
      console.log(
        `sample calc: ${sampleCalcMs} ms (node -e 0: ${nodeMs} ms, ${(sampleCalcMs / nodeMs).toFixed(2)}x), median of 5`,
      );
    }
    console.log(
      `scaffold${scaffold.withCalls ? ' with @oraclekit/calls' : ''}: ${scaffold.megabytes} MB, ${scaffold.packages} packages, ${scaffold.seconds} s`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
