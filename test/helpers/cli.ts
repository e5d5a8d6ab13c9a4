/** Runs the real built CLI (bin/run.js) as a child process. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/run.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: {
    input?: string;
    env?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
    /** The CLI to run: this checkout's bin/run.js unless given (e.g. an installed package's). */
    bin?: string;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}
