/**
 * Once per Node 22 pass: the tarball of every package (scripts/pack.sh, what a user installs before anything is
 * published) and the CLI's installed from its tarball into an empty global prefix, by npm on this Node, as
 * docs/install.md says. The tests get the paths through `inject('node22')`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface Node22Install {
  /** Package name → its tarball. */
  tarballs: Record<string, string>;
  /** The global prefix the CLI is installed into (bin/oraclekit, lib/node_modules/oraclekit). */
  prefix: string;
  /** The installed CLI's entry, for runCli's `bin`. */
  cli: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    node22: Node22Install;
  }
}

const ROOT = join(import.meta.dirname, '../..');
/** The Node this pass tests: the oldest users may run (scripts/node-env.sh with ORACLEKIT_NODE_LINE=22). */
export const NODE22 = '22.22.2';

export default function setup(project: TestProject): () => void {
  if (process.versions.node !== NODE22)
    throw new Error(
      `the Node 22 pass runs on Node ${NODE22} (ORACLEKIT_NODE_LINE=22 source scripts/node-env.sh); this is ${process.versions.node}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'ok-node22-'));
  const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true' };
  const packed = execFileSync('bash', [join(ROOT, 'scripts/pack.sh'), join(dir, 'packs')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...npmEnv, PACK_SKIP_BUILD: '1' },
  });
  const tarballs = Object.fromEntries(
    packed
      .trim()
      .split('\n')
      .map((l) => l.split(' ') as [string, string]),
  );
  const prefix = join(dir, 'prefix');
  // install scripts are left off: the offline install test runs them; here the question is whether the files a
  // user gets run on Node 22
  execFileSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', tarballs.oraclekit!],
    { env: npmEnv, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  project.provide('node22', { tarballs, prefix, cli: join(prefix, 'lib/node_modules/oraclekit/bin/run.js') });
  return () => rmSync(dir, { recursive: true, force: true });
}
