/**
 * `new`'s one way to run a program (src/cli/scaffold/run.ts): real child processes of this test's own Node. It never
 * throws: the exit code and the output, or why the program did not run to its end.
 */
import { describe, expect, it } from 'vitest';
import { runProgram } from '../../../../src/cli/scaffold/run.ts';

const node = process.execPath;

describe('runProgram', () => {
  it('collects stdout, stderr and both in order, with the exit code, in the given folder and env', async () => {
    const r = await runProgram(
      node,
      ['-e', 'console.log(process.cwd(), process.env.OK_RUN); console.error("warn"); process.exitCode = 3'],
      { cwd: '/', env: { OK_RUN: 'yes' } },
    );
    expect(r).toEqual({ exitCode: 3, stdout: '/ yes\n', stderr: 'warn\n', all: '/ yes\nwarn\n', error: undefined });
  });

  it('a program that is not on PATH: no exit code, and why', async () => {
    const r = await runProgram('oraclekit-no-such-program', [], { env: { PATH: '/nonexistent' } });
    expect(r.exitCode).toBeNull();
    expect(r.error).toMatch(/^oraclekit-no-such-program could not start: .*ENOENT/);
  });

  it('the signal ends it: no exit code, and says it was stopped', async () => {
    const ac = new AbortController();
    const p = runProgram(node, ['-e', 'setTimeout(() => {}, 60_000)'], { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const r = await p;
    expect(r.exitCode).toBeNull();
    expect(r.error).toBe(`${node} was stopped`);
  });
});
