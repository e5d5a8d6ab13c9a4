/**
 * The terminal chat a person chooses: the built CLI under tmux against real
 * runtimes on loopback (scripted model server), at 80x24 and 200x50. Each
 * test is one behaviour area: editing, text as written, wide content, usage,
 * resume, pastes and tool output, commands and errors, and the loose ends.
 * The screen and scroll-back are read with capture-pane; every wait is on a
 * screen state (the deadlines guard against hanging, they time nothing).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { callTool, say } from '../helpers/scripted-model-server.ts';
import { hasTmux, Tmux } from '../helpers/tmux.ts';
import {
  count,
  everything,
  gone,
  idle,
  lastUserMessage,
  ready,
  startChat,
  widest,
  type ChatOptions,
} from '../helpers/chat-tmux.ts';
import { generateMnemonic, signerFromMnemonic } from '../../src/lib/keys/index.ts';

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
  home = mkdtempSync(join(tmpdir(), 'oraclekit-items-'));
});
afterAll(async () => {
  for (const t of servers) t.kill();
  await Promise.all([h?.close(), paid?.close()]);
  if (home) rmSync(home, { recursive: true, force: true });
});

const visible = (t: Tmux) => t.run('capture-pane', '-p', '-t', t.name);
const oneLine = (s: string) => s.replace(/\n/g, ' ');

describe.skipIf(!hasTmux).each([
  [80, 24],
  [200, 50],
])('oraclekit --chat at %ix%i', (width, height) => {
  const chat = (name: string, o: Partial<ChatOptions> = {}) =>
    startChat(servers, `${name}-${width}`, { url: h.url, home, width, height, ...o });

  it('1: readline editing inside a line and across lines; Ctrl+X Ctrl+E and /edit open $EDITOR', async () => {
    const t = chat('edit', { env: `EDITOR='sed -i s/draft/EDITED-IN-EDITOR/'` });
    await ready(t);

    // type, move left, insert; Home, insert
    t.keys('-l', 'hello world');
    t.keys('Left', 'Left', 'Left', 'Left', 'Left');
    t.keys('-l', 'big ');
    t.keys('Home');
    t.keys('-l', '>> ');
    await t.until((s) => s.includes('› >> hello big world'), 'the edited line');
    h.model.enqueue(say('Edited one.'));
    t.keys('Enter');
    await t.until((s) => s.includes('Edited one.'), 'the answer');
    expect(lastUserMessage(h)).toBe('>> hello big world');
    await idle(t);

    // Ctrl+W, Alt+B, Ctrl+K, Ctrl+A, Ctrl+E, Delete
    t.keys('-l', 'one two three');
    t.keys('C-w');
    t.keys('-l', 'THREE');
    t.keys('M-b');
    t.keys('C-k');
    t.keys('C-a');
    t.keys('Delete');
    t.keys('C-e');
    t.keys('-l', '!');
    await t.until((s) => /› ne two !\s*$/.test(s.trimEnd() + ' '), 'the killed words');
    h.model.enqueue(say('Edited two.'));
    t.keys('Enter');
    await t.until((s) => s.includes('Edited two.'), 'the answer');
    expect(lastUserMessage(h)).toBe('ne two !');
    await idle(t);

    // a multi-line input: Up moves to the line above (the cursor keeps its column), Down back
    t.keys('-l', 'first');
    t.keys('M-Enter');
    t.keys('-l', 'second');
    t.keys('Up');
    t.keys('-l', '!');
    t.keys('Down');
    t.keys('-l', '?');
    await t.until((s) => /› first!\n {2}second\?/.test(s), 'both lines edited');
    h.model.enqueue(say('Edited three.'));
    t.keys('Enter');
    await t.until((s) => s.includes('Edited three.'), 'the answer');
    expect(lastUserMessage(h)).toBe('first!\nsecond?');
    await idle(t);
    // Up on an empty input recalls it (history), Down returns to the empty draft
    t.keys('Up');
    await t.until((s) => /› first!\n {2}second\?\s*$/.test(s.trimEnd()), 'the recalled message');
    t.keys('Down');
    await t.until((s) => /connected\s*\n›\s*$/.test(s.trimEnd()), 'the empty draft');

    // $EDITOR through Ctrl+X Ctrl+E, then /edit
    t.keys('-l', 'a draft');
    t.keys('C-x', 'C-e');
    await t.until((s) => s.includes('› a EDITED-IN-EDITOR'), 'the text from the editor');
    h.model.enqueue(say('From the editor.'));
    t.keys('Enter');
    await t.until((s) => s.includes('From the editor.'), 'the answer');
    expect(lastUserMessage(h)).toBe('a EDITED-IN-EDITOR');
    await idle(t);
    t.keys('-l', '/edit\r');
    await t.until((s) => /connected\s*\n›\s*$/.test(s.trimEnd()), 'the editor run by /edit');
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 120_000);

  it('2: a 300-line answer keeps its single line breaks, appears once, and wrapped rows start flush left', async () => {
    const t = chat('lines');
    await ready(t);
    const words = Array.from({ length: 70 }, (_, i) => `w${i}`).join(' ');
    const lines = Array.from({ length: 300 }, (_, i) => `answer line ${i + 1}`).join('\n');
    h.model.enqueue({ steps: [{ type: 'text', text: `${words}\n${lines}\nEND-OF-LINES`, chunkSize: 400 }] });
    t.keys('-l', 'three hundred lines please\r');
    await t.until((s) => s.includes('END-OF-LINES'), 'the end of the answer');
    await idle(t);
    const s = everything(t);
    for (const n of [1, 2, 150, 299, 300]) {
      expect(count(s, `answer line ${n}\n`)).toBe(1);
      expect(s).toMatch(new RegExp(`^answer line ${n}$`, 'm'));
    }
    expect(count(s, 'END-OF-LINES')).toBe(1);
    // the long first line wraps; no row of it starts with the breaking space
    const rows = s.split('\n').filter((r) => /\bw\d+\b/.test(r));
    expect(rows.length).toBeGreaterThan(width === 80 ? 2 : 1);
    for (const r of rows) expect(r).toMatch(/^w\d/);
    expect(widest(s)).toBeLessThanOrEqual(width);
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 90_000);

  it('3: a 6-column table and a 110-character code line fit the width; /copy 1 copies the code as written', async () => {
    const t = chat('wide');
    await ready(t);
    const table = [
      '| City | Country | Population | Area (km²) | Capital of | Notes |',
      '|---|---|--:|--:|---|---|',
      '| Nairobi | Kenya | 4397073 | 696 | Kenya | The largest city in East Africa, on the Nairobi River |',
      '| Kampala | Uganda | 1680600 | 189 | Uganda | Built on hills by Lake Victoria, near the source of the Nile |',
    ].join('\n');
    const code = [
      'const a = 1;',
      `const long = ${JSON.stringify('x'.repeat(110 - 'const long = "";'.length))};`,
      '  indented(a, long);',
    ].join('\n');
    expect(code.split('\n')[1]!.length).toBe(110);
    h.model.enqueue(say(`Here:\n\n${table}\n\n\`\`\`ts\n${code}\n\`\`\`\nDONE-WIDE`, 200));
    t.keys('-l', 'a table and code\r');
    await t.until((s) => s.includes('DONE-WIDE'), 'the answer');
    await idle(t);
    const s = everything(t);
    expect(widest(s)).toBeLessThanOrEqual(width);
    expect(s).toContain('Nairobi');
    expect(s).toMatch(/┌─+┬/);
    // every row of the table is the same width: borders line up
    const tableRows = s.split('\n').filter((r) => /^[┌├│└]/.test(r));
    expect(new Set(tableRows.map((r) => [...r].length)).size).toBe(1);
    expect(oneLine(s)).toContain('Victoria');
    if (width === 80) expect(s).toContain('↩');
    else expect(s).toContain(code.split('\n')[1]);
    // no side border on code: the first line is the code itself
    expect(s).toMatch(/^const a = 1;$/m);

    t.keys('-l', '/copy 1\r');
    await t.until((x) => x.includes('Copied code block 1'), '/copy 1');
    expect(t.run('show-buffer')).toBe(code);
    t.keys('-l', '/copy\r');
    await t.until((x) => x.includes('Copied the last answer'), '/copy');
    expect(t.run('show-buffer')).toContain(table);
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 90_000);

  it('4: the usage the model reported is shown after the turn and summed in the footer; the done event carries it', async () => {
    const t = chat('usage');
    await ready(t);
    h.model.enqueue(
      { ...callTool('load_capability', { names: ['weather'] }, 'u1'), usage: { inputTokens: 111, outputTokens: 7 } },
      { ...callTool('get_current_weather', { city: 'Nairobi' }, 'u2'), usage: { inputTokens: 222, outputTokens: 8 } },
      { ...say('Warm.'), usage: { inputTokens: 333, outputTokens: 9 } },
    );
    t.keys('-l', 'usage?\r');
    await t.until((s) => s.includes('Warm.'), 'the answer');
    await idle(t);
    expect(t.screen()).toContain('666 in · 24 out tokens');
    expect(t.screen()).toMatch(/session [0-9a-f]{8} · 690 tokens · connected/);
    h.model.enqueue({ ...say('Again.'), usage: { inputTokens: 10, outputTokens: 5 } });
    t.keys('-l', 'again\r');
    await t.until((s) => s.includes('Again.'), 'the second answer');
    await idle(t);
    expect(t.screen()).toContain('10 in · 5 out tokens');
    expect(t.screen()).toMatch(/705 tokens · connected/);
    t.keys('-l', '/quit\r');
    await gone(t);

    // the protocol: done {status, usage}
    const u = await h.user();
    h.model.enqueue({ ...say('Raw.'), usage: { inputTokens: 42, outputTokens: 4 } });
    const { events } = await u.stream(await u.newSession(), 'raw');
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { status: 'finished', usage: { inputTokens: 42, outputTokens: 4 } },
    });
  }, 90_000);

  it('5: a resumed session is drawn as it was live (usage, cancelled marker, footer); quitting says what it cost and how to resume', async () => {
    const t = chat('resume1', { keep: true });
    await ready(t);
    h.model.enqueue(
      { ...callTool('load_capability', { names: ['weather'] }, 'r1'), usage: { inputTokens: 100, outputTokens: 1 } },
      { ...callTool('get_current_weather', { city: 'Nairobi' }, 'r2'), usage: { inputTokens: 200, outputTokens: 2 } },
      {
        ...say(`It is **warm** in Nairobi ${width}:\n\n| city | temp |\n|---|---|\n| Nairobi | 21.4 |`),
        usage: { inputTokens: 300, outputTokens: 3 },
      },
    );
    t.keys('-l', `resume me ${width}\r`);
    await t.until((s) => s.includes(`warm in Nairobi ${width}`), 'the answer');
    await idle(t);
    expect(t.screen()).toContain('600 in · 6 out tokens');
    // a second turn, cancelled after its first words
    h.model.enqueue({
      steps: [
        { type: 'text', text: `Half an answer ${width}`, chunkSize: 100 },
        { type: 'delay', ms: 5000 },
        { type: 'text', text: ' never shown' },
      ],
    });
    t.keys('-l', `cancel me ${width}\r`);
    await t.until((s) => s.includes(`Half an answer ${width}`), 'the first words');
    t.keys('Escape');
    await t.until((s) => s.includes('(cancelled)'), 'the cancel');
    await idle(t);
    const footer = /session [0-9a-f]{8} · (\d+) tokens · connected/.exec(t.screen());
    expect(footer, t.screen()).toBeTruthy();
    t.keys('-l', '/quit\r');
    await t.until((s) => s.includes('EXITED 0'), 'the exit');
    const end = t.run('capture-pane', '-p', '-J', '-t', t.name, '-S', '-');
    const m =
      /2 turns · \d+ in · \d+ out tokens\. Resume with: oraclekit chat --oracle \S+ --session ([0-9a-f-]{36})/.exec(
        oneLine(end).replace(/ {2,}/g, ' '),
      );
    expect(m, end).toBeTruthy();

    const t2 = chat('resume2', { args: `--session ${m![1]}` });
    await ready(t2);
    // the footer's totals are the resumed session's, as they were when it was left
    const s = await t2.until((x) => x.includes(`session ${m![1]!.slice(0, 8)} · ${footer![1]} tokens`), 'the totals');
    expect(s).toContain(`› resume me ${width}`);
    expect(s).toMatch(/✓ get_current_weather/);
    expect(s).toContain(`It is warm in Nairobi ${width}:`);
    expect(s).not.toContain('**');
    expect(s).toContain('│ Nairobi │ 21.4 │');
    expect(s).toContain('600 in · 6 out tokens');
    expect(s).toMatch(new RegExp(`› cancel me ${width}\\s+Half an answer ${width}\\s+\\(cancelled\\)`));
    expect(s).not.toContain('never shown');
    expect(s).not.toContain('you: ');
    t2.keys('-l', '/quit\r');
    await gone(t2);
  }, 90_000);

  it('6: a 30-line paste is collapsed and sent whole; the live region fits the screen; /tool shows a whole output', async () => {
    const t = chat('paste');
    await ready(t);
    const thirty = Array.from({ length: 30 }, (_, i) => `pasted row ${i + 1}`).join('\n');
    t.run('set-buffer', '-b', 'p', thirty + '\n');
    t.run('paste-buffer', '-p', '-b', 'p', '-t', t.name);
    await t.until((s) => s.includes('› [pasted 30 lines #1]'), 'the collapsed paste');
    t.keys('-l', ' and a question');
    // an answer long enough to overflow the screen, streamed slowly
    const long = Array.from({ length: 80 }, (_, i) => `long answer row ${i + 1}`).join('\n');
    h.model.enqueue({
      steps: [
        { type: 'text', text: long, chunkSize: 400 },
        { type: 'delay', ms: 1000 },
        { type: 'text', text: '\nPASTE-DONE' },
      ],
    });
    t.keys('Enter');
    await t.until((s) => s.includes('long answer row 80'), 'the long answer streaming');
    // while it streams: the footer and the input are still on the screen
    const during = visible(t);
    expect(during).toMatch(/· streaming\s*\n›/);
    expect(during.trimEnd().split('\n').length).toBeLessThanOrEqual(height);
    await t.until((s) => s.includes('PASTE-DONE'), 'the end of the answer');
    await idle(t);
    expect(lastUserMessage(h)).toBe(`${thirty} and a question`);
    const s = everything(t);
    expect(s).toContain('› [pasted 30 lines #1] and a question');
    expect(count(s, 'long answer row 40\n')).toBe(1);
    expect(count(s, 'PASTE-DONE')).toBe(1);

    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 't1'),
      callTool('get_current_weather', { city: 'Nairobi' }, 't2'),
      say('Tool done.'),
    );
    t.keys('-l', 'weather\r');
    await t.until((x) => x.includes('Tool done.'), 'the answer');
    await idle(t);
    const row = t
      .screen()
      .split('\n')
      .find((r) => r.startsWith('✓ get_current_weather'))!;
    expect([...row].length).toBeLessThanOrEqual(width);
    if (width === 200) expect(row).toContain('"conditions"');
    else expect(row).toMatch(/…$/);
    t.keys('-l', '/tool\r');
    await t.until((x) => x.includes('"longitude"'), '/tool');
    expect(t.screen()).toContain('"temp_c": 21.4');
    t.keys('-l', '/quit\r');
    await gone(t);
  }, 90_000);

  it('7: the slash menu; a 500 retried once; /retry; the load-first message; /pay <amount>; the DID whoami shows', async () => {
    // a QR sign-in: the wallet's DID is who you are; the local key signs
    const qrHome = mkdtempSync(join(tmpdir(), 'oraclekit-qr-'));
    const mnemonic = generateMnemonic();
    const key = (await signerFromMnemonic(mnemonic)).did();
    const wallet = (await signerFromMnemonic(generateMnemonic())).did();
    mkdirSync(join(qrHome, 'config'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(qrHome, 'config', 'identity.json'),
      JSON.stringify({
        did: key,
        mnemonic,
        createdAt: new Date().toISOString(),
        wallet: { did: wallet, signedInAt: new Date().toISOString() },
      }),
      { mode: 0o600 },
    );
    const who = JSON.parse((await runCli(['whoami', '--json'], { env: { ORACLEKIT_HOME: qrHome } })).stdout) as {
      did: string;
    };
    expect(who.did).toBe(wallet);

    const t = chat('commands', { home: qrHome });
    await ready(t);
    expect(oneLine(t.screen()).replace(/ {2,}/g, ' ')).toContain(`You are ${who.did} (local key ${key})`);

    // the menu: every command with its description, filtered as you type
    t.keys('-l', '/');
    await t.until((s) => s.includes('/new') && s.includes('start a new session') && s.includes('/quit'), 'the menu');
    t.keys('-l', 'co');
    await t.until((s) => s.includes('/copy') && !s.includes('start a new session'), 'the filtered menu');
    t.keys('BSpace', 'BSpace', 'BSpace');
    await t.until((s) => !s.includes('/copy [n]'), 'the menu closed');

    // a provider 500 is retried once
    const before = h.model.requests.length;
    h.model.enqueue(
      { steps: [{ type: 'http_error', status: 500, body: { error: { message: 'upstream exploded' } } }] },
      say('Recovered after a retry.'),
    );
    t.keys('-l', 'flaky?\r');
    await t.until((s) => s.includes('Recovered after a retry.'), 'the retried answer');
    expect(oneLine(t.screen())).toContain('Trying once more');
    expect(h.model.requests.length - before).toBe(2);
    await idle(t);

    // /retry sends the last message again
    h.model.enqueue(say('Answered again.'));
    t.keys('-l', '/retry\r');
    await t.until((s) => s.includes('Answered again.'), '/retry');
    expect(lastUserMessage(h)).toBe('flaky?');
    await idle(t);

    // a tool called before its capability is loaded: the runtime's own message
    h.model.enqueue(callTool('get_current_weather', { city: 'Nairobi' }, 'nl1'), say('Let me load it.'));
    t.keys('-l', 'weather without loading\r');
    await t.until((s) => s.includes('Let me load it.'), 'the answer');
    const s = oneLine(t.screen()).replace(/ {2,}/g, ' ');
    expect(s).toContain("Call load_capability(['weather']) first");
    expect(s).not.toContain('AI_NoSuchToolError');
    expect(s).not.toContain('unavailable tool');
    t.keys('-l', '/quit\r');
    await gone(t);

    // /pay <amount> pays and sends the refused message again
    const p = chat('pay', { url: paid.url, home: qrHome });
    await ready(p);
    expect(oneLine(p.screen())).toContain('This oracle costs 2.5 credit per turn');
    p.keys('-l', `a paid question ${width}\r`);
    await p.until((x) => oneLine(x).includes('Pay the claims with /pay'), 'the 402');
    paid.model.enqueue({ ...say('Thanks for paying.'), usage: { inputTokens: 3, outputTokens: 2 } });
    p.keys('-l', '/pay 2.5\r');
    await p.until((x) => x.includes('Thanks for paying.'), 'the answer after paying');
    await idle(p);
    expect(oneLine(p.screen())).toMatch(/Paid 2\.5 credit \(payment /);
    expect(p.screen()).toContain('3 in · 2 out tokens · 2.5 credit');
    expect(oneLine(p.screen())).toMatch(/5 tokens · 2\.5 credit spent · connected/);
    p.keys('-l', '/quit\r');
    await gone(p);
    rmSync(qrHome, { recursive: true, force: true });
  }, 120_000);

  it('8: host:port is http; /help keeps its hanging indent; no-model said once in one wording; piped Ctrl+C ends the line', async () => {
    const port = new URL(h.url).port;
    const t = chat('help', { url: `127.0.0.1:${port}` });
    await ready(t);
    t.keys('-l', '/help\r');
    await t.until((s) => s.includes('/quit'), '/help');
    const rows = t.screen().split('\n');
    const i = rows.findIndex((r) => r.startsWith('  /sessions [n|id]'));
    expect(i).toBeGreaterThanOrEqual(0);
    if (width === 80) expect(rows[i + 1]).toMatch(/^ {20}\S/);
    else expect(rows[i]).toContain('switch to it');
    t.keys('-l', '/quit\r');
    await gone(t);

    const bare = await startHarness({ config: { name: 'Bare Oracle', model: undefined } });
    try {
      const b = chat('nomodel', { url: bare.url });
      await ready(b);
      b.keys('-l', 'hello?\r');
      await b.until((s) => count(oneLine(s), 'no model configured') >= 2, 'the failed turn');
      await idle(b);
      const words = oneLine(b.screen()).replace(/ {2,}/g, ' ');
      // one wording: the banner's, repeated by the refused turn, never a second text
      const sentences = new Set(words.match(/\S+ oracle has no model configured: [^.]*\./g));
      expect(sentences.size).toBe(1);
      b.keys('-l', '/quit\r');
      await gone(b);
    } finally {
      await bare.close();
    }

    // a piped chat interrupted by Ctrl+C ends its output with a newline
    const dir = mkdtempSync(join(tmpdir(), 'oraclekit-piped-'));
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'A partial answer', chunkSize: 100 },
        { type: 'delay', ms: 20_000 },
        { type: 'text', text: ' NEVER' },
      ],
    });
    const out = join(dir, 'out.txt');
    const piped = new Tmux(`oraclekit-chat-${process.pid}-piped-${width}`, 'chat');
    servers.push(piped);
    piped.start(
      `(echo 'tell me'; sleep 600) | ORACLEKIT_HOME='${home}' '${process.execPath}' '${BIN}' chat --oracle '${h.url}' > '${out}' 2> '${join(dir, 'err.txt')}'`,
      { cwd: ROOT, width, height },
    );
    await piped.until(
      () => existsSync(out) && readFileSync(out, 'utf8').includes('A partial answer'),
      'the partial answer',
    );
    piped.keys('C-c');
    await gone(piped);
    expect(readFileSync(out, 'utf8')).toBe('A partial answer\n');
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
