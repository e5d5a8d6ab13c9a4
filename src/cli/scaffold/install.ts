/**
 * `new`'s last steps: `npm install` (a failure is a warning: the project is complete) and `git init` with a first
 * commit (a warning when the user's git identity does not allow one).
 */
export async function npmInstall(dir: string, signal: AbortSignal): Promise<{ installed: boolean; warning?: string }> {
  const { execa } = await import('execa');
  const r = await execa('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    reject: false,
    cancelSignal: signal,
    all: true,
  });
  if (r.exitCode === 0) return { installed: true };
  const tail = String(r.all ?? '')
    .split('\n')
    .slice(-10)
    .join('\n');
  return {
    installed: false,
    warning: `npm install failed (exit ${r.exitCode}); the project is complete — run \`npm install\` in ${dir} yourself:\n${tail}`,
  };
}

export async function gitInit(dir: string, message: string): Promise<{ git: boolean; warning?: string }> {
  const { execa } = await import('execa');
  const r = await execa('git', ['init', '-q'], { cwd: dir, reject: false });
  if (r.exitCode !== 0) return { git: false, warning: `git init failed: ${r.stderr || r.message}` };
  await execa('git', ['add', '-A'], { cwd: dir, reject: false });
  const c = await execa('git', ['commit', '-q', '-m', message], { cwd: dir, reject: false });
  if (c.exitCode !== 0)
    return { git: true, warning: 'git: initialised and staged; the first commit needs your git user.name/user.email' };
  return { git: true };
}
