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
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
    execFileSync(process.execPath, [join(root, 'node_modules/oclif/bin/run.js'), 'manifest'], {
      cwd: root,
      stdio: 'ignore',
    });
  }
}
