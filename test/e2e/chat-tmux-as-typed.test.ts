/**
 * The terminal chat as a person types into it, at 80x24 under tmux (the built
 * CLI against real runtimes on loopback, a scripted model server): nothing
 * typed is lost when an answer is cancelled; newlines as terminals send them
 * (Shift+Enter as CSI-u and as modifyOtherKeys, `\` then Enter) and the kitty
 * keyboard protocol asked for and given back; text as the model wrote it
 * (blank lines, strike-through, reference links, autolinks, NO_COLOR, a
 * resumed failed tool call, the input's wrapping, graphemes); and failures in
 * words a person understands. Every wait is on a screen state; the deadlines
 * guard against hanging.
 */
/* eslint-disable no-control-regex -- the screen is read with its escape sequences */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { hasTmux, type Tmux } from '../helpers/tmux.ts';
import { gone, idle, lastUserMessage, ready, startChat, type ChatOptions } from '../helpers/chat-tmux.ts';

const WIDTH = 80;
const HEIGHT = 24;

let h: Harness;
let paid: Harness;
let home: string;
const servers: Tmux[] = [];
beforeAll(async () => {
  if (!hasTmux) return;
  [h, paid] = await Promise.all([
    startHarness(),
    startHarness({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } }),
  ]);
  home = mkdtempSync(join(tmpdir(), 'oraclekit-typed-'));
});
afterAll(async () => {
  for (const t of servers) t.kill();
  await Promise.all([h?.close(), paid?.close()]);
  if (home) rmSync(home, { recursive: true, force: true });
});

const chat = (name: string, o: Partial<ChatOptions> = {}) =>
  startChat(servers, name, { url: h.url, home, width: WIDTH, height: HEIGHT, ...o });
const visible = (t: Tmux) => t.run('capture-pane', '-p', '-t', t.name);
/** The screen with its styles as SGR sequences. */
const styled = (t: Tmux) => t.run('capture-pane', '-p', '-e', '-t', t.name, '-S', '-');
const oneLine = (s: string) => s.replace(/\n/g, ' ').replace(/ {2,}/g, ' ');
/** Bytes as a terminal sends them (send-keys -H: hex, nothing interpreted by tmux). */
const bytes = (t: Tmux, s: string) => t.keys('-H', ...Buffer.from(s, 'utf8').toString('hex').match(/../g)!);
/** An answer that shows its first words, then waits (to be cancelled). */
const slow = (first: string) => ({
  steps: [
    { type: 'text' as const, text: first, chunkSize: 100 },
    { type: 'delay' as const, ms: 20_000 },
    { type: 'text' as const, text: ' NEVER SHOWN' },
  ],
});

describe.skipIf(!hasTmux)('oraclekit --chat at 80x24, as typed', () => {
  it('messages queued behind an answer come back to the input and to Up when it is cancelled (Esc, Ctrl+C)', async () => {
    const t = chat('queue');
    await ready(t);
    for (const [n, cancelKey] of [
      [1, 'Escape'],
      [2, 'C-c'],
    ] as const) {
      h.model.enqueue(slow(`Slow answer ${n}`));
      t.keys('-l', `ask ${n}\r`);
      await t.until((s) => s.includes(`Slow answer ${n}`), 'the first words');
      t.keys('-l', `queued one ${n}\r`);
      t.keys('-l', `queued two ${n}\r`);
      await t.until((s) => s.includes(`queued: queued two ${n}`), 'both messages queued');
      const requests = h.model.requests.length;
      t.keys(cancelKey);
      // both are back in the input, in order, and nothing was sent
      await t.until(
        (s) => new RegExp(`connected\\s*\\n› queued one ${n}\\n {2}queued two ${n}\\s*$`).test(s.trimEnd()),
        'the queued messages back in the input',
      );
      expect(visible(t)).not.toContain('queued: ');
      expect(h.model.requests.length).toBe(requests);
      // emptied, Up recalls them one by one, newest first
      t.keys('C-u', 'C-u', 'C-u');
      await t.until((s) => /connected\s*\n›\s*$/.test(s.trimEnd()), 'the empty input');
      t.keys('Up');
      await t.until((s) => new RegExp(`› queued two ${n}\\s*$`).test(s.trimEnd()), 'the newest queued message');
      t.keys('Up');
      await t.until((s) => new RegExp(`› queued one ${n}\\s*$`).test(s.trimEnd()), 'the oldest queued message');
      t.keys('C-u');
    }
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 90_000);

  it('Shift+Enter as CSI-u and as modifyOtherKeys, and \\ then Enter, add a line; the kitty protocol is asked for and given back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-kitty-'));
    try {
      const log = join(dir, 'plain.out');
      const t = chat('newlines');
      t.run('pipe-pane', '-o', '-t', t.name, `cat >> '${log}'`);
      await ready(t);
      t.keys('-l', 'one');
      bytes(t, '\u001b[13;2u');
      t.keys('-l', 'two');
      bytes(t, '\u001b[27;2;13~');
      t.keys('-l', 'three\\');
      // Enter once the backslash shows (keys read in one chunk are a paste, kept as they are)
      await t.until((s) => s.includes('three\\'), 'the backslash');
      t.keys('Enter');
      t.keys('-l', 'four');
      await t.until((s) => /› one\n {2}two\n {2}three\n {2}four\s*$/.test(s.trimEnd()), 'four lines in the input');
      h.model.enqueue(say('Four lines read.'));
      t.keys('Enter');
      await t.until((s) => s.includes('Four lines read.'), 'the answer');
      expect(lastUserMessage(h)).toBe('one\ntwo\nthree\nfour');
      await idle(t);
      // a terminal not known to speak the protocol (tmux) is asked, and nothing is pushed without its answer
      expect(readFileSync(log, 'latin1')).toContain('\u001b[?u');
      expect(readFileSync(log, 'latin1')).not.toContain('\u001b[>1u');
      t.keys('-l', '/quit\r');
      await gone(t);

      // a terminal known to speak it: pushed at start, popped on quit (Ctrl+C twice) and when the chat is killed
      for (const [name, end] of [
        ['kitty-quit', 'ctrl-c'],
        ['kitty-killed', 'SIGTERM'],
      ] as const) {
        const out = join(dir, `${name}.out`);
        const k = chat(name, { env: 'env -u TMUX TERM_PROGRAM=WezTerm' });
        k.run('pipe-pane', '-o', '-t', k.name, `cat >> '${out}'`);
        await ready(k);
        await k.until(() => existsSync(out) && readFileSync(out, 'latin1').includes('\u001b[>1u'), 'the push');
        expect(readFileSync(out, 'latin1')).not.toContain('\u001b[<u');
        if (end === 'ctrl-c') {
          k.keys('C-c');
          await k.until((s) => s.includes('Press Ctrl+C again to quit.'), 'the first Ctrl+C');
          k.keys('C-c');
        } else process.kill(-Number(k.run('display-message', '-p', '-t', k.name, '#{pane_pid}').trim()), 'SIGTERM');
        await gone(k);
        const written = readFileSync(out, 'latin1');
        expect(written.lastIndexOf('\u001b[<u'), `${end}: the pop after the push`).toBeGreaterThan(
          written.indexOf('\u001b[>1u'),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('text as the model wrote it; NO_COLOR keeps bold, underline and the markers; a resumed failed call; the input wraps at words; Backspace takes a grapheme', async () => {
    const t = chat('text', { keep: true });
    await ready(t);
    h.model.enqueue(
      say(
        'First paragraph.\n\nSecond with ~~old~~ news, [the ref][r] and <https://auto.example/x>.\n\n' +
          '[r]: https://ref.example/page',
        200,
      ),
    );
    t.keys('-l', 'blank lines?\r');
    await t.until((s) => s.includes('Second with'), 'the answer');
    await idle(t);
    const s = visible(t);
    expect(s).toMatch(
      /First paragraph\.\n\nSecond with old news, the ref \(https:\/\/ref\.example\/page\) and\s+https:\/\/auto\.example\/x\./,
    );
    expect(s).not.toContain('[r]:');
    expect(s).not.toContain('~~');
    expect(styled(t)).toMatch(/\u001b\[9mold/);

    // a failed tool call, then resumed: its reason as it was shown live
    h.model.enqueue(callTool('get_current_weather', { city: 'Nairobi' }, 'f1'), say('Could not.'));
    t.keys('-l', 'weather unloaded\r');
    await t.until((x) => x.includes('Could not.'), 'the answer');
    await idle(t);
    const live = oneLine(visible(t));
    expect(live).toMatch(/✗ get_current_weather \{"city":"Nairobi"\} Tool get_current_weather is not loaded/);

    // the input: words move whole to the next row; a long input says how many lines are above
    const words = Array.from({ length: 24 }, (_, i) => `word${String(i).padStart(2, '0')}`).join(' ');
    t.keys('-l', words);
    await t.until((x) => x.includes('word23'), 'the long input');
    const rows = visible(t).trimEnd().split('\n').slice(-3);
    expect(rows[0]).toMatch(/^› word00/);
    for (const r of rows) expect(r.trim()).toMatch(/^(› )?(word\d\d ?)+$/);
    t.keys('C-u');
    for (let i = 1; i <= 12; i++) {
      t.keys('-l', `line ${i}`);
      if (i < 12) t.keys('M-Enter');
    }
    await t.until((x) => /↑ \d+ more lines above/.test(x) && x.includes('line 12'), 'the lines above');
    // twelve lines: each Ctrl+U takes a line's text, then the line break before it
    for (let i = 0; i < 23; i++) t.keys('C-u');
    await t.until((x) => /connected\s*\n›\s*$/.test(x.trimEnd()), 'the empty input');

    // Backspace takes an emoji with its skin tone, and a ZWJ family, whole
    t.keys('-l', 'ok 👍🏽👨‍👩‍👧‍👦');
    t.keys('BSpace', 'BSpace');
    t.keys('-l', 'done');
    h.model.enqueue(say('Graphemes.'));
    t.keys('Enter');
    await t.until((x) => x.includes('Graphemes.'), 'the answer');
    expect(lastUserMessage(h)).toBe('ok done');
    t.keys('-l', '/quit\r');
    await t.until((x) => x.includes('EXITED 0'), 'the exit');
    const id = /--session ([0-9a-f-]{36})/.exec(oneLine(t.run('capture-pane', '-p', '-J', '-t', t.name, '-S', '-')))!;

    const r = chat('text-resumed', { args: `--session ${id[1]}` });
    await ready(r);
    expect(oneLine(visible(r) + r.screen())).toMatch(
      /✗ get_current_weather \{"city":"Nairobi"\} Tool get_current_weather is not loaded/,
    );
    r.keys('-l', '/quit\r');
    await gone(r);

    // NO_COLOR: no colour at all, and what only colour told apart keeps its markers
    const n = chat('nocolor', { env: 'NO_COLOR=1' });
    await ready(n);
    h.model.enqueue(say('## A heading\n\nSome **bold**, `a code` and [a link](https://l.example).', 200));
    n.keys('-l', 'no colour\r');
    await n.until((x) => x.includes('a link'), 'the answer');
    await idle(n);
    const plain = visible(n);
    expect(plain).toContain('## A heading');
    expect(plain).toContain('Some bold, `a code` and a link (https://l.example).');
    const sgr = styled(n);
    expect(sgr).toMatch(/\u001b\[1m(\u001b\[[0-9;]*m)*bold/);
    expect(sgr).toMatch(/\u001b\[4m(\u001b\[[0-9;]*m)*a link/);
    // no foreground or background colour anywhere (30-37, 38;…, 39 aside, 40-47, 48;…, 90-97, 100-107)
    const colours = [...sgr.matchAll(/\u001b\[([0-9;]*)m/g)].flatMap((m) => m[1]!.split(';').map(Number));
    expect(colours.filter((c) => (c >= 30 && c <= 38) || (c >= 40 && c <= 48) || c >= 90)).toEqual([]);
    n.keys('-l', '/quit\r');
    await gone(n);
  }, 120_000);

  it('failures in words: a provider that stops mid-answer, an oracle that goes away, a rate limit; /pay, /new, /copy 1', async () => {
    const t = chat('words');
    await ready(t);
    // the provider accepted the request, then its stream failed
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'Half of it', chunkSize: 100 },
        { type: 'stream_error', message: 'overloaded' },
      ],
    });
    t.keys('-l', 'mid answer\r');
    await t.until((s) => s.includes('stopped mid-answer'), 'the mid-answer failure');
    await idle(t);
    expect(oneLine(visible(t))).toContain('The model provider stopped mid-answer');
    expect(visible(t)).not.toContain('HTTP 200');

    // a provider's Retry-After: the automatic retry waits as long as it asks, and says so
    h.model.enqueue(
      {
        steps: [
          {
            type: 'http_error',
            status: 429,
            headers: { 'retry-after': '3' },
            body: { error: { message: 'slow down' } },
          },
        ],
      },
      say('After the wait.'),
    );
    t.keys('-l', 'a busy provider\r');
    await t.until((s) => oneLine(s).includes('Trying once more in 3.0 s, as the model provider asked'), 'the retry');
    const noted = Date.now();
    await t.until((s) => s.includes('After the wait.'), 'the retried answer');
    expect(Date.now() - noted).toBeGreaterThan(2000);
    await idle(t);

    // /copy 1 of a one-line block, and /new resets the footer's tokens
    h.model.enqueue({ ...say('```sh\nls -la\n```', 200), usage: { inputTokens: 40, outputTokens: 2 } });
    t.keys('-l', 'a command\r');
    await t.until((s) => s.includes('ls -la'), 'the answer');
    await idle(t);
    t.keys('-l', '/copy 1\r');
    await t.until((s) => s.includes('Copied code block 1'), '/copy 1');
    expect(oneLine(visible(t))).toContain('Copied code block 1 of the last answer (1 line)');
    expect(visible(t)).toMatch(/\d+ tokens · connected/);
    t.keys('-l', '/new\r');
    await t.until((s) => /New session [0-9a-f-]{36}/.test(s), '/new');
    await t.until((s) => /session [0-9a-f]{8} · connected\s*\n›/.test(s), 'the footer without tokens');
    t.keys('-l', '/quit\r');
    await gone(t);

    // the oracle goes away in the middle of an answer
    const doomed = await startHarness();
    const d = chat('gone', { url: doomed.url });
    await ready(d);
    doomed.model.enqueue(slow('The start of it'));
    d.keys('-l', 'then die\r');
    await d.until((s) => s.includes('The start of it'), 'the first words');
    await doomed.close();
    await d.until((s) => s.includes('The oracle went away'), 'the failure', 30_000);
    const after = visible(d);
    expect(oneLine(after)).not.toContain('done frame');
    expect(after).toMatch(/· unreachable ●?\s*\n›/);
    expect(after).not.toMatch(/· connected\s*\n›/);
    d.keys('-l', '/quit\r');
    await gone(d);

    // the oracle's own turn limit: the wait, not the setting's name
    const limited = await startHarness({ env: { ORACLE_USER_TURNS_PER_MINUTE: '1' } });
    try {
      const l = chat('limited', { url: limited.url });
      await ready(l);
      limited.model.enqueue(say('One is fine.'));
      l.keys('-l', 'one\r');
      await l.until((s) => s.includes('One is fine.'), 'the first answer');
      await idle(l);
      l.keys('-l', 'two\r');
      await l.until((s) => /wait \d+ seconds?/.test(oneLine(s)), 'the rate limit');
      expect(oneLine(visible(l))).not.toContain('ORACLE_USER_TURNS_PER_MINUTE');
      // the oracle stops while the chat is idle: the footer says so
      await limited.close();
      await l.until((s) => /· unreachable ●?\s*\n›/.test(s), 'the footer without the oracle', 30_000);
      l.keys('-l', '/quit\r');
      await gone(l);
    } finally {
      await limited.close();
    }

    // /pay: its words say what it does, and y answers without Enter
    const p = chat('pay', { url: paid.url });
    await ready(p);
    p.keys('-l', 'a paid question\r');
    await p.until((s) => oneLine(s).includes('sends your message again'), 'the 402');
    p.keys('-l', '/pay\r');
    await p.until((s) => oneLine(s).includes('Pay 2.5 credit with your identity now?'), 'the question');
    paid.model.enqueue(say('Thanks for paying.'));
    p.keys('-l', 'y');
    await p.until((s) => s.includes('Thanks for paying.'), 'the answer after paying');
    expect(oneLine(visible(p))).toMatch(/Paid 2\.5 credit \(payment /);
    p.keys('-l', '/quit\r');
    await gone(p);
  }, 120_000);
});
