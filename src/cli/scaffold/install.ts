/**
 * `new`'s last steps: `npm install` (a failure is a warning: the project is complete) and `git init` with a first
 * commit (a warning when the user's git identity does not allow one).
 */
import { runProgram } from './run.ts';

export async function npmInstall(dir: string, signal: AbortSignal): Promise<{ installed: boolean; warning?: string }> {
  const r = await runProgram('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, signal });
  if (r.exitCode === 0) return { installed: true };
  const tail = (r.error ? `${r.all}\n${r.error}` : r.all).split('\n').slice(-10).join('\n');
  return {
    installed: false,
    warning: `npm install failed (${r.error ?? `exit ${r.exitCode}`}); the project is complete — run \`npm install\` in ${dir} yourself:\n${tail}`,
  };
}

export async function gitInit(dir: string, message: string): Promise<{ git: boolean; warning?: string }> {
  const r = await runProgram('git', ['init', '-q'], { cwd: dir });
  if (r.exitCode !== 0) return { git: false, warning: `git init failed: ${r.error ?? r.stderr.trim()}` };
  await runProgram('git', ['add', '-A'], { cwd: dir });
  const c = await runProgram('git', ['commit', '-q', '-m', message], { cwd: dir });
  if (c.exitCode !== 0)
    return { git: true, warning: 'git: initialised and staged; the first commit needs your git user.name/user.email' };
  return { git: true };
}
