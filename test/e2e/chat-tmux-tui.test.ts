/**
 * The chat TUI as a person meets it:
 * the built CLI under tmux (test/helpers/tmux.ts) against a real runtime on
 * loopback with the scripted model server, at 60 and 120 columns. The screen
 * and the whole scroll-back are read with capture-pane; nothing here is timed
 * (the waits are guards against hanging).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say, type ChatRequestBody } from '../helpers/scripted-model-server.ts';
import { hasTmux, type Tmux } from '../helpers/tmux.ts';
import { count, gone, idle, lastUserMessage as lastSent, ready, startChat } from '../helpers/chat-tmux.ts';

let h: Harness;
let home: string;
const servers: Tmux[] = [];
beforeAll(async () => {
  if (!hasTmux) return;
  h = await startHarness();
  home = mkdtempSync(join(tmpdir(), 'oraclekit-tui-'));
});
afterAll(async () => {
  for (const t of servers) t.kill();
  await h?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

function chat(
  name: string,
  width: number,
  o: { env?: string; args?: string; url?: string; height?: number } = {},
): Tmux {
  return startChat(servers, `tui-${name}`, { url: h.url, home, width, height: 30, ...o });
}

/** The whole scroll-back and screen, wrapped rows joined. */
const all = (t: Tmux) => t.run('capture-pane', '-p', '-J', '-t', t.name, '-S', '-');
const lastUserMessage = () => lastSent(h);

/** At one width: a long tool error, a 150-line answer, a resize mid-stream (to `narrower` columns). */
async function renderingChecks(width: number, narrower: number): Promise<void> {
  const t = chat(`render-${width}`, width);
  await ready(t);

  const city = 'Atlantis of the long forgotten southern seas where nobody ever measured any temperature at all';
  h.model.enqueue(
    callTool('load_capability', { names: ['weather'] }, 'e1'),
    callTool('get_current_weather', { city }, 'e2'),
    say('No such city.'),
  );
  t.keys('-l', 'weather in Atlantis?\r');
  await t.until((s) => s.includes('No such city.'), 'the answer after the tool error');
  await idle(t);
  const s1 = t.screen();
  // the icon keeps its column, the name is whole, and no line is wider than the terminal
  expect(s1).toMatch(/^✗ get_current_weather /m);
  for (const line of s1.split('\n')) expect([...line].length).toBeLessThanOrEqual(width);
  expect(s1.replace(/\n {2}/g, ' ')).toContain('forgotten southern');

  const rows = Array.from({ length: 150 }, (_, i) => `- row ${i + 1} of the long answer`).join('\n');
  h.model.enqueue({ steps: [{ type: 'text', text: rows + '\n\nEND-OF-LONG', chunkSize: 200 }] });
  t.keys('-l', 'a long answer please\r');
  await t.until((s) => s.includes('END-OF-LONG'), 'the long answer');
  await idle(t);
  const s2 = all(t);
  for (const n of [1, 75, 150]) expect(count(s2, `row ${n} of the long answer\n`)).toBe(1);
  expect(count(s2, 'END-OF-LONG')).toBe(1);
  expect(s2).not.toContain('answering —');

  // data every 400 ms: the harness's stall time-out is 1500 ms
  h.model.enqueue({
    steps: [
      { type: 'text', text: 'PARTIAL-MARK before the resize ', chunkSize: 100 },
      ...[1, 2, 3, 4].flatMap((i) => [
        { type: 'delay' as const, ms: 400 },
        { type: 'text' as const, text: `still going ${i} ` },
      ]),
      { type: 'text', text: 'and AFTER-MARK after it.' },
    ],
  });
  t.keys('-l', 'resize while you answer\r');
  await t.until((s) => s.includes('PARTIAL-MARK'), 'the partial answer');
  t.run('resize-window', '-t', t.name, '-x', String(narrower), '-y', '30');
  await t.until((s) => s.includes('AFTER-MARK'), 'the rest of the answer');
  await idle(t);
  const s3 = all(t);
  expect(count(s3, 'PARTIAL-MARK')).toBe(1);
  expect(count(s3.replace(/\n/g, ' '), 'resize while you answer')).toBe(1);
  // the turns before the resize are still there, once, wrapped to the new width
  expect(count(s3, 'END-OF-LONG')).toBe(1);
  for (const line of s3.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(narrower);
  t.keys('-l', '/quit\r');
}

describe.skipIf(!hasTmux).each([60, 120])('oraclekit --chat at %i columns', (width) => {
  it('text and Enter in one read send it; a pasted block is one message; Alt+Enter adds a line', async () => {
    const t = chat(`input-${width}`, width);
    await ready(t);

    h.model.enqueue(say('Answer one.'));
    t.keys('-l', 'hello in one chunk\r');
    await t.until((s) => s.includes('Answer one.'), 'the answer to a one-chunk line');
    expect(lastUserMessage()).toBe('hello in one chunk');
    await idle(t);

    // a paste without bracketed-paste markers: its lines are kept, the final line break sends it
    h.model.enqueue(say('Answer two.'));
    t.keys('-l', 'line one\rline two\rline three\r');
    await t.until((s) => s.includes('Answer two.'), 'the answer to the pasted block');
    expect(lastUserMessage()).toBe('line one\nline two\nline three');
    expect(t.screen()).toMatch(/› line one\n {2}line two\n {2}line three/);
    await idle(t);

    // a bracketed paste is inserted, lines kept, and waits for Enter
    t.run('set-buffer', '-b', 'p', 'alpha\nbeta\n');
    t.run('paste-buffer', '-p', '-b', 'p', '-t', t.name);
    await t.until((s) => /› alpha\n {2}beta\s*$/.test(s.trimEnd()), 'the pasted lines in the input');
    h.model.enqueue(say('Answer three.'));
    t.keys('Enter');
    await t.until((s) => s.includes('Answer three.'), 'the answer to the bracketed paste');
    expect(lastUserMessage()).toBe('alpha\nbeta');
    await idle(t);

    // Alt+Enter adds a line; Enter alone sends
    t.keys('-l', 'first');
    t.keys('M-Enter');
    t.keys('-l', 'second');
    await t.until((s) => /› first\n {2}second/.test(s), 'two lines in the input');
    h.model.enqueue(say('Answer four.'));
    t.keys('Enter');
    await t.until((s) => s.includes('Answer four.'), 'the answer to two typed lines');
    expect(lastUserMessage()).toBe('first\nsecond');
    await idle(t);
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 90_000);

  it(
    'a long tool error wraps, a 150-line answer appears once, a resize mid-stream leaves no stale copy',
    () => renderingChecks(width, width === 60 ? 45 : 80),
    90_000,
  );

  it('NO_COLOR=1 gives no colour sequence; without it there are colours', async () => {
    // SGR sequences that set a colour (30–38, 40–48, 90–97, 100–107); tmux's resets to the default (39, 49) set none
    const colours = (s: string) =>
      // eslint-disable-next-line no-control-regex
      [...s.matchAll(/\u001b\[([0-9;]*)m/g)].filter((m) =>
        m[1]!.split(';').some((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p)),
      ).length;
    for (const env of ['NO_COLOR=1', '']) {
      const t = chat(`colour-${width}-${env ? 'no' : 'yes'}`, width, { env });
      await ready(t);
      h.model.enqueue(
        callTool('load_capability', { names: ['weather'] }, 'n1'),
        callTool('get_current_weather', { city: 'Nairobi' }, 'n2'),
        say('It is **21.4 °C** in `Nairobi`.\n\n```\ncode\n```'),
      );
      t.keys('-l', 'weather?\r');
      // without colours inline code keeps its backticks: colour was all that set it apart
      const shown = env ? '21.4 °C in `Nairobi`' : '21.4 °C in Nairobi';
      await t.until((s) => s.includes(shown), 'the answer');
      await idle(t);
      const withEscapes = t.run('capture-pane', '-p', '-e', '-t', t.name, '-S', '-');
      if (env) expect(colours(withEscapes)).toBe(0);
      else expect(colours(withEscapes)).toBeGreaterThan(0);
      t.keys('-l', '/quit\r');
    }
  }, 90_000);

  it('Esc cancels, the footer, /help, the menu completes, /copy, history in a second run, a resumed session', async () => {
    const t = chat(`features-${width}`, width);
    await ready(t);
    expect(t.screen()).toMatch(/Test Oracle · scripted-model · session new · connected/);

    h.model.enqueue({
      steps: [
        { type: 'text', text: 'A story that goes on ', chunkSize: 100 },
        { type: 'delay', ms: 20_000 },
        { type: 'text', text: 'NEVER' },
      ],
    });
    t.keys('-l', `remember me ${width}\r`);
    await t.until((s) => s.includes('A story that goes on'), 'the first tokens');
    t.keys('Escape');
    await t.until((s) => s.includes('(cancelled)'), 'the cancel by Esc');
    await idle(t);
    expect(t.screen()).not.toContain('NEVER');
    const session = /session ([0-9a-z-]{8}) · connected/.exec(t.screen())?.[1];
    expect(session).toBeTruthy();

    t.keys('-l', '/he');
    await t.until((s) => s.includes('/help') && s.includes('this help') && !s.includes('/new'), 'the menu');
    t.keys('Tab');
    await t.until((s) => /› \/help\s*$/.test(s.trimEnd()), 'the completed command');
    t.keys('Enter');
    for (const c of ['/new', '/sessions', '/clear', '/copy', '/pay', '/quit'])
      await t.until((s) => s.includes(`  ${c}`), `${c} in /help`);

    h.model.enqueue(say('Copy me, please.'));
    t.keys('-l', 'something to copy\r');
    await t.until((s) => s.includes('Copy me, please.'), 'an answer');
    await idle(t);
    t.keys('-l', '/copy\r');
    await t.until((s) => s.includes('Copied the last answer'), '/copy');
    t.keys('-l', '/quit\r');
    await gone(t);

    // a second run: Up recalls what was typed in the first
    const t2 = chat(`features2-${width}`, width, { args: `--session ${session}` });
    await ready(t2);
    await t2.until((s) => s.includes('Switched to'), 'the resumed session');
    expect(t2.screen()).toContain(`› remember me ${width}`);
    expect(t2.screen()).toContain(`session ${session}`);
    t2.keys('Up');
    await t2.until((s) => /› \/quit\s*$/.test(s.trimEnd()), 'the last line of the first run');
    t2.keys('Up');
    await t2.until((s) => /› \/copy\s*$/.test(s.trimEnd()), 'the line before it');
    t2.keys('C-u');
    h.model.enqueue(say('Welcome back.'));
    t2.keys('-l', 'and now?\r');
    await t2.until((s) => s.includes('Welcome back.'), 'an answer in the resumed session');
    const body = h.model.requests.at(-1)!.body as ChatRequestBody;
    expect(JSON.stringify(body.messages)).toContain(`remember me ${width}`);
    t2.keys('-l', '/quit\r');
  }, 90_000);
});

describe.skipIf(!hasTmux).each([
  [40, 55],
  [200, 150],
])('rendering at %i columns (resized to %i mid-stream)', (width, narrower) => {
  it('renders the same way at the ends of the 40–200 column range', () => renderingChecks(width, narrower), 90_000);
});

describe.skipIf(!hasTmux)('a paid oracle in the chat', () => {
  let paid: Harness;
  beforeAll(async () => {
    paid = await startHarness({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } });
  });
  afterAll(async () => {
    await paid?.close();
  });

  it.each([60, 120])(
    'the 402 shows the price and the claim; /pay confirms the amount, pays, and the message is answered (%i columns)',
    async (width) => {
      const t = chat(`pay-${width}`, width, { url: paid.url });
      await ready(t);
      t.keys('-l', `a paid question ${width}\r`);
      await t.until((s) => s.replace(/\n/g, ' ').includes('Pay the claims with /pay'), 'the 402 message');
      const s1 = t.screen().replace(/\n/g, ' ');
      expect(s1).toMatch(/paid per turn \(2\.5 credit\)/);
      expect(s1).toMatch(/Outstanding claim: claim-/);
      t.keys('-l', '/pay\r');
      await t.until(
        (s) => s.replace(/\n/g, ' ').includes('Pay 2.5 credit with your identity now? (y pays'),
        'the confirmation',
      );
      expect(t.screen().replace(/\n/g, ' ')).toContain('This oracle costs 2.5 credit per turn.');
      paid.model.enqueue(say('Thanks for paying.'));
      t.keys('-l', 'y\r');
      await t.until((s) => s.includes('Thanks for paying.'), 'the answer after paying');
      expect(t.screen().replace(/\n/g, ' ')).toMatch(/Paid 2\.5 credit \(payment /);
      t.keys('-l', '/quit\r');
    },
    60_000,
  );
});
