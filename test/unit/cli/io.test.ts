/**
 * The CLI's one "may a person be asked?" check (cli/io.ts, canPrompt), which `new`, `login`, `logout` and the guided
 * `sample calc` share: both stdin and stdout are terminals, no --json, and CI is unset or blank whatever its value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { canPrompt } from '../../../src/cli/io.ts';

const saved = { stdin: process.stdin.isTTY, stdout: process.stdout.isTTY, ci: process.env.CI };

function terminal(stdin: boolean, stdout: boolean, ci: string | undefined): void {
  Object.defineProperty(process.stdin, 'isTTY', { value: stdin, configurable: true, writable: true });
  Object.defineProperty(process.stdout, 'isTTY', { value: stdout, configurable: true, writable: true });
  if (ci === undefined) delete process.env.CI;
  else process.env.CI = ci;
}

afterEach(() => terminal(saved.stdin, saved.stdout, saved.ci));

describe('canPrompt', () => {
  it('asks only with both ends at a terminal and without --json', () => {
    terminal(true, true, undefined);
    expect(canPrompt()).toBe(true);
    expect(canPrompt(true)).toBe(false);
    terminal(false, true, undefined);
    expect(canPrompt()).toBe(false);
    terminal(true, false, undefined);
    expect(canPrompt()).toBe(false);
  });

  it('never asks in CI, whatever CI is set to; a blank CI counts as unset', () => {
    for (const ci of ['true', '1', 'yes']) {
      terminal(true, true, ci);
      expect(canPrompt(), ci).toBe(false);
    }
    terminal(true, true, '  ');
    expect(canPrompt()).toBe(true);
  });
});
