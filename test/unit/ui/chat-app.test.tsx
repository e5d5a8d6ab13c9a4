/**
 * The Ink chat app, scripted with ink-testing-library against a real runtime
 * on loopback (scripted model server): a conversation with a tool call and
 * markdown, a cancelled answer, input history, slash commands, Ctrl+C twice.
 */
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatApp } from '../../../src/ui/ChatApp.tsx';
import { ChatController } from '../../../src/ui/chat-controller.ts';
import { OracleClient } from '../../../src/client/client.ts';
import { generateSigner } from '../../../src/lib/keys/keys.ts';
import { startHarness, type Harness } from '../../helpers/runtime-harness.ts';
import { callTool, say } from '../../helpers/scripted-model-server.ts';

// eslint-disable-next-line no-control-regex
const strip = (s: string | undefined) => (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ENTER = '\r';
const UP = '\u001b[A';
const DOWN = '\u001b[B';
const CTRL_C = '\u0003';

async function type(stdin: { write(s: string): void }, text: string) {
  for (const ch of text) stdin.write(ch);
  await new Promise((r) => setTimeout(r, 20));
}

describe('ChatApp', () => {
  it('a scripted conversation: tool call, markdown, cancel, history, commands, quit', async () => {
    const client = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const controller = new ChatController(client);
    let exited = false;
    const app = render(
      <ChatApp
        controller={controller}
        banner={['Chatting with Test Oracle']}
        spinnerMs={0}
        onExit={() => (exited = true)}
      />,
    );
    const all = () => strip(app.frames.join('\n'));
    const last = () => strip(app.lastFrame());
    await until(() => last().includes('Chatting with Test Oracle'), 'banner');

    // 1. a turn with a tool call and a markdown answer
    h.model.enqueue(
      callTool('load_capability', { names: ['weather'] }, 'c1'),
      callTool('get_current_weather', { city: 'Kampala' }, 'c2'),
      say(
        '## Kampala\n\n- **24.1 °C**\n- rain\n\n| city | temp |\n|---|--:|\n| Kampala | 24.1 |\n\n```sh\necho ok\n```\n',
        12,
      ),
    );
    await type(app.stdin, 'Weather in Kampala?');
    await until(() => last().includes('› Weather in Kampala?'), 'typed input');
    app.stdin.write(ENTER);
    await until(() => controller.streaming === false && last().includes('│ Kampala │ 24.1 │'), 'the finished answer');
    const f = last();
    expect(all()).toMatch(/get_current_weather.*Kampala/);
    expect(f).toMatch(/✓ get_current_weather/);
    expect(f).toContain('• 24.1 °C');
    expect(f).toContain('┌─────────┬──────┐');
    expect(f).toContain('echo ok');
    expect(f).not.toContain('**');

    // 2. a long answer cancelled with Ctrl+C
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'Counting slowly: one ', chunkSize: 100 },
        { type: 'delay', ms: 10_000 },
        { type: 'text', text: 'never shown' },
      ],
    });
    await type(app.stdin, 'count to ten');
    app.stdin.write(ENTER);
    await until(() => last().includes('Counting slowly'), 'first token');
    app.stdin.write(CTRL_C);
    await until(() => !controller.streaming && last().includes('(cancelled)'), 'cancelled');
    expect(last()).not.toContain('never shown');
    expect((await client.activeRun(controller.sessionId!)).run?.status).toBe('aborted');

    // 3. a message typed while an answer streams is queued and sent after it
    h.model.enqueue(
      {
        steps: [
          { type: 'text', text: 'Slow ', chunkSize: 100 },
          { type: 'delay', ms: 300 },
          { type: 'text', text: 'answer.', chunkSize: 100 },
        ],
      },
      say('Queued answer.'),
    );
    await type(app.stdin, 'slow please');
    app.stdin.write(ENTER);
    await until(() => last().includes('Slow'), 'the slow answer starts');
    await type(app.stdin, 'and then this');
    app.stdin.write(ENTER);
    await until(() => last().includes('queued: and then this'), 'queued');
    await until(
      () => !controller.streaming && last().includes('Queued answer.') && !last().includes('queued:'),
      'the queued turn',
    );
    expect(last()).toMatch(/Slow answer\.[\s\S]*› and then this[\s\S]*Queued answer\./);

    // 4. input history: Up recalls, Down returns to the draft
    await type(app.stdin, 'draft');
    app.stdin.write(UP);
    await until(() => /› and then this\s*$/.test(last()), 'history up');
    app.stdin.write(UP);
    await until(() => /› slow please\s*$/.test(last()), 'history up twice');
    app.stdin.write(DOWN);
    app.stdin.write(DOWN);
    await until(() => /› draft\s*$/.test(last()), 'back to the draft');
    for (let i = 0; i < 5; i++) app.stdin.write('\u007f');
    await new Promise((r) => setTimeout(r, 20));

    // 5. commands
    await type(app.stdin, '/help');
    app.stdin.write(ENTER);
    await until(() => last().includes('/switch <id>'), 'help');
    await type(app.stdin, '/sessions');
    app.stdin.write(ENTER);
    await until(() => last().includes('1 session:'), 'sessions');
    const first = controller.sessionId!;
    await type(app.stdin, '/new');
    app.stdin.write(ENTER);
    await until(() => last().includes('New session'), 'new');
    expect(controller.sessionId).not.toBe(first);
    await type(app.stdin, `/switch ${first.slice(0, 8)}`);
    app.stdin.write(ENTER);
    await until(() => last().includes(`Switched to ${first}`), 'switch');
    // the session is drawn as it looked live: the message, the tool calls, the markdown answer
    expect(last()).toContain('› Weather in Kampala?');
    expect(last()).toMatch(/✓ get_current_weather/);
    expect(last()).toContain('│ Kampala │ 24.1 │');
    await type(app.stdin, '/model');
    app.stdin.write(ENTER);
    await until(() => last().includes('Model: scripted-model'), 'model');
    // text and Enter read in one chunk (tmux send-keys on a loaded machine) still send
    const helps = () => (all().match(/Commands:/g) ?? []).length;
    const helpsBefore = helps();
    app.stdin.write('/help' + ENTER);
    await until(() => helps() > helpsBefore && /›\s*$/.test(last()), 'help from one chunk');
    // and Ctrl+U inside a chunk still clears what was typed before it
    await type(app.stdin, 'not this');
    app.stdin.write('\u0015/help' + ENTER);
    await until(() => helps() > helpsBefore + 1 && /›\s*$/.test(last()), 'Ctrl+U and help from one chunk');

    // 6. Ctrl+C twice quits
    app.stdin.write(CTRL_C);
    await until(() => last().includes('Press Ctrl+C again to quit.'), 'armed');
    app.stdin.write(CTRL_C);
    await until(() => exited, 'exit');
    app.unmount();
  });

  it("tells a turn's first text as the typed event firstText, once a turn, before the screen gets it", async () => {
    const client = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const controller = new ChatController(client);
    // per turn: how many of its events with text the caller had seen when firstText was told
    const told: number[] = [];
    let texts = 0;
    controller.on('firstText', () => told.push(texts));
    for (const answer of ['Stoves save wood.', 'And time.']) {
      texts = 0;
      h.model.enqueue(say(answer, 3));
      const r = await controller.send('tell me', (_e, turn) => void (turn.text && texts++));
      expect(r.text).toBe(answer);
      expect(texts).toBeGreaterThan(1);
    }
    expect(told).toEqual([0, 0]);
  });

  it('shows a model provider error and an unreachable oracle clearly', async () => {
    const client = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const controller = new ChatController(client);
    const app = render(<ChatApp controller={controller} spinnerMs={0} />);
    const last = () => strip(app.lastFrame());
    h.model.enqueue({
      steps: [{ type: 'http_error', status: 401, body: { error: { message: 'Invalid API key', type: 'auth' } } }],
    });
    await type(app.stdin, 'hello');
    app.stdin.write(ENTER);
    await until(() => last().includes("refused the oracle's key"), 'key error');
    app.unmount();

    const gone = new ChatController(
      new OracleClient({ baseUrl: 'http://127.0.0.1:9', oracleDid: h.oracleDid, signer: await generateSigner() }),
    );
    const app2 = render(<ChatApp controller={gone} spinnerMs={0} />);
    await type(app2.stdin, 'hello');
    app2.stdin.write(ENTER);
    await until(() => strip(app2.lastFrame()).includes('Cannot reach the oracle at http://127.0.0.1:9'), 'unreachable');
    app2.unmount();
  });
});
