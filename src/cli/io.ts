import { isBlank } from '../lib/env.ts';

/**
 * Whether the CLI may ask a person (a prompt, the guided `sample calc`, `new`'s questions, `logout`'s confirmation):
 * stdin and stdout are terminals, and neither --json nor CI (set to anything not blank) says a machine is reading.
 */
export function canPrompt(json = false): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY) && !json && isBlank(process.env.CI);
}

/** Where a command's output goes (the oclif command, or the fast path's stdout). */
export interface Io {
  out(text: string): void;
  outJson(value: unknown): void;
}

export const stdoutIo: Io = {
  out(text) {
    process.stdout.write(text.endsWith('\n') ? text : text + '\n');
  },
  outJson(value) {
    process.stdout.write(JSON.stringify(value, null, 2) + '\n');
  },
};
