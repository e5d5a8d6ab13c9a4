/**
 * Builds dist/ once before the suite when it is missing or older than src/,
 * so end-to-end tests always spawn the CLI of the sources under test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

export default function setup(): void {
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
}
