/**
 * Builds dist/ once before the suite when it is missing or older than src/,
 * so end-to-end tests always spawn the CLI of the sources under test; and gives
 * the run one temporary folder (TMPDIR, inherited by the test workers and every
 * program they start), removed when the run ends, so a test that leaves its
 * folders behind (a killed child, a failed assertion before its cleanup) does
 * not fill the machine's /tmp run after run.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): (() => void) | undefined {
  const teardown = runTmpdir();
  const manifest = join(root, 'oclif.manifest.json');
  const stale = !existsSync(manifest) || newest(join(root, 'src')) > statSync(manifest).mtimeMs;
  if (stale) {
    // the runtime, then the package @oraclekit/calls it loads when installed (a workspace: linked in node_modules)
    for (const project of ['tsconfig.build.json', 'src/calls/tsconfig.json'])
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], {
        cwd: root,
        stdio: 'inherit',
      });
    execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'manifest'], {
      cwd: root,
      stdio: 'ignore',
    });
  }
  return teardown;
}

/** The run's TMPDIR; the projects of one run share the first one made, and its maker removes it. */
function runTmpdir(): (() => void) | undefined {
  if (process.env.ORACLEKIT_TEST_TMPDIR) return undefined;
  // a short name: paths under it are shown on 80-column screens (tmux tests) and must not wrap there
  const dir = mkdtempSync(join(tmpdir(), 'okt-'));
  // searchable by other users, not listable: the PostgreSQL servers the tests start run as the postgres user
  chmodSync(dir, 0o711);
  process.env.ORACLEKIT_TEST_TMPDIR = dir;
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
