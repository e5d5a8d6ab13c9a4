/**
 * Driving a real terminal with tmux: a private server (-L) so the user's
 * sessions stay untouched, keys in with send-keys, the screen read with
 * capture-pane (escape codes stripped). The pattern of chat-tmux.test.ts, for
 * the tests that need a TTY (the guided `sample calc`).
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export class Tmux {
  readonly socket: string;
  readonly name: string;

  constructor(socket: string, name: string) {
    this.socket = socket;
    this.name = name;
  }

  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** A detached session running `command` (a shell command line) in `cwd`. */
  start(command: string, opts: { cwd: string; width?: number; height?: number }): void {
    this.run(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(opts.width ?? 150),
      '-y',
      String(opts.height ?? 50),
      '-c',
      opts.cwd,
      command,
    );
  }

  /** The screen and its scroll-back, without escape codes. */
  screen(): string {
    return this.run('capture-pane', '-p', '-t', this.name, '-S', '-400');
  }

  alive(): boolean {
    return spawnSync('tmux', ['-L', this.socket, 'has-session', '-t', this.name]).status === 0;
  }

  /** Types text literally, then presses Enter. */
  line(text: string): void {
    if (text !== '') this.run('send-keys', '-t', this.name, '-l', text);
    this.run('send-keys', '-t', this.name, 'Enter');
  }

  keys(...keys: string[]): void {
    this.run('send-keys', '-t', this.name, ...keys);
  }

  /** Waits until pred holds; the deadline guards against hanging, it is not a latency assertion. */
  async until(pred: (screen: string) => boolean, what: string, guardMs = 15_000): Promise<string> {
    const deadline = Date.now() + guardMs;
    while (Date.now() < deadline) {
      if (this.alive()) {
        const s = this.screen();
        if (pred(s)) return s;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`timed out waiting for ${what}; screen:\n${this.alive() ? this.screen() : '(session gone)'}`);
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
