/**
 * The chat under tmux (test/helpers/tmux.ts): the built CLI in a private tmux
 * server against a runtime on loopback, and the waits the chat's tests share
 * (ready, idle, gone). The waits are guards against hanging, never timings.
 */
import { BIN, ROOT } from './cli.ts';
import type { Harness } from './runtime-harness.ts';
import type { ChatRequestBody } from './scripted-model-server.ts';
import { Tmux } from './tmux.ts';

export interface ChatOptions {
  url: string;
  home: string;
  width: number;
  height: number;
  env?: string;
  args?: string;
  /** Keep the pane after the chat exits, with `EXITED <code>` under its output. */
  keep?: boolean;
}

export function startChat(servers: Tmux[], name: string, o: ChatOptions): Tmux {
  const t = new Tmux(`oraclekit-chat-${process.pid}-${name}`, 'chat');
  servers.push(t);
  const cli = `${o.env ?? ''} ORACLEKIT_HOME='${o.home}' '${process.execPath}' '${BIN}' --chat --oracle '${o.url}' ${o.args ?? ''}`;
  const cmd = o.keep ? `sh -c "${cli.replace(/"/g, '\\"')}; echo EXITED \\$?; sleep 600"` : cli;
  t.start(cmd, { cwd: ROOT, width: o.width, height: o.height });
  // OSC 52 from the chat (/copy) sets a tmux buffer
  t.run('set-option', '-g', 'set-clipboard', 'on');
  return t;
}

/** The whole scroll-back and screen, wrapped rows kept as they are drawn. */
export const everything = (t: Tmux) => t.run('capture-pane', '-p', '-t', t.name, '-S', '-');
export const count = (s: string, needle: string) => s.split(needle).length - 1;
export const ready = (t: Tmux) => t.until((s) => /connected\s*\n›/.test(s), 'the chat to be ready');
export const idle = (t: Tmux) =>
  t.until((s) => /\bconnected\s*\n› \s*$/.test(s.trimEnd() + ' '), 'the end of the turn');

/** Waits for the chat to exit (Tmux.until only looks at a live session). */
export async function gone(t: Tmux): Promise<void> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
    if (!t.alive()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the chat did not exit; screen:\n${t.screen()}`);
}

/** The last user message the model was sent. */
export function lastUserMessage(h: Harness): string {
  const body = h.model.requests.at(-1)!.body as ChatRequestBody;
  const m = [...body.messages].reverse().find((x) => x.role === 'user')!;
  return typeof m.content === 'string'
    ? m.content
    : (m.content as { text?: string }[]).map((p) => p.text ?? '').join('');
}

/** Every row of the pane is at most `width` columns. */
export function widest(screen: string): number {
  return Math.max(...screen.split('\n').map((l) => [...l].length));
}
