/**
 * `new`'s one way to run a program (npm, git, the node on PATH) and wait for it: its output collected (stdout, stderr,
 * and both interleaved as they came), the environment the CLI's own plus `env`, and `signal` ending it. It never
 * throws: a program that could not start (not on PATH) or was ended by the signal has `exitCode` null and `error`
 * saying why, so each step decides what a failure means.
 */
import { spawn } from 'node:child_process';

export interface RunResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr in the order they came. */
  all: string;
  /** Why the program did not run to its end: it could not start, or the signal ended it. */
  error?: string;
}

export function runProgram(
  file: string,
  args: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const out = { stdout: '', stderr: '', all: '' };
    let error: string | undefined;
    const child = spawn(file, args, {
      cwd: o.cwd,
      env: { ...process.env, ...o.env },
      signal: o.signal,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of ['stdout', 'stderr'] as const)
      child[stream].setEncoding('utf8').on('data', (d: string) => {
        out[stream] += d;
        out.all += d;
      });
    child.on('error', (e: NodeJS.ErrnoException) => {
      error = e.name === 'AbortError' ? `${file} was stopped` : `${file} could not start: ${e.message}`;
    });
    child.on('close', (code) => resolve({ exitCode: error === undefined ? code : null, ...out, error }));
  });
}
