/**
 * `oraclekit --chat` end to end in a real terminal: the built CLI runs inside
 * tmux against a real runtime on loopback with the scripted model server;
 * keys go in with send-keys and the screen is read with capture-pane.
 * A private tmux server (-L) keeps the user's sessions untouched.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const SOCK = `oraclekit-chat-test-${process.pid}`;
const NAME = 'chat';
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCK, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', NAME, '-S', '-200');
const alive = () => spawnSync('tmux', ['-L', SOCK, 'has-session', '-t', NAME]).status === 0;

async function until(pred: () => boolean, what: string): Promise<void> {
  // a guard against hanging forever, not a latency assertion
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${alive() ? screen() : '(session gone)'}`);
}
const shows = (text: string) => () => screen().includes(text);

let h: Harness;
let home: string;
beforeAll(async () => {
  if (!hasTmux) return;
  h = await startHarness();
  home = mkdtempSync(join(tmpdir(), 'oraclekit-tmux-'));
});
afterAll(async () => {
  if (!hasTmux) return;
  spawnSync('tmux', ['-L', SOCK, 'kill-server']);
  await h?.close();
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(!hasTmux)('oraclekit --chat under tmux', () => {
  it('a conversation with a tool call, a cancelled answer, history recall and /quit', async () => {
    const cmd = `ORACLEKIT_HOME='${home}' '${process.execPath}' '${BIN}' --chat --oracle '${h.url}'`;
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', NAME, '-x', '110', '-y', '45', '-c', ROOT, cmd);
    await until(shows('Chatting with Test Oracle'), 'the banner');
    await until(shows('/help for commands'), 'the hint');

    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'c1'),
      callTool('get_current_weather', { city: 'Nairobi' }, 'c2'),
      say('Nairobi is **21.4 °C**:\n\n| city | temp |\n|---|---|\n| Nairobi | 21.4 |\n'),
    );
    tmux('send-keys', '-t', NAME, '-l', 'Weather in Nairobi?');
    await until(shows('› Weather in Nairobi?'), 'the typed line');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(shows('│ Nairobi │ 21.4 │'), 'the rendered table');
    await until(() => !screen().includes('answering — Ctrl+C to cancel'), 'the end of the turn');
    const s1 = screen();
    expect(s1).toMatch(/✓ get_current_weather .*Nairobi/);
    expect(s1).toContain('Nairobi is 21.4 °C:');

    h.model.enqueue({
      steps: [
        { type: 'text', text: 'Let me think about that at length ', chunkSize: 100 },
        { type: 'delay', ms: 20_000 },
        { type: 'text', text: 'NEVER' },
      ],
    });
    tmux('send-keys', '-t', NAME, '-l', 'tell me a long story');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(shows('Let me think about that at length'), 'the first tokens');
    tmux('send-keys', '-t', NAME, 'C-c');
    await until(shows('(cancelled)'), 'the cancel');
    await until(() => !screen().includes('cancelling…'), 'the end of the cancelled turn');
    expect(alive()).toBe(true);

    tmux('send-keys', '-t', NAME, 'Up');
    await until(() => /› tell me a long story\s*$/m.test(screen()), 'history recall');
    tmux('send-keys', '-t', NAME, 'C-u');
    tmux('send-keys', '-t', NAME, '-l', '/quit');
    tmux('send-keys', '-t', NAME, 'Enter');
    await until(() => !alive(), 'the exit');
  }, 90_000);
});
