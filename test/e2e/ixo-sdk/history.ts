/**
 * A turn as the SDK shows it while streaming, against the
 * same session rendered from the stored history. The turn runs with the
 * history refetch held at the proxy; the streamed view is the first commit
 * with status `ready` (every SSE frame applied, nothing refetched yet). Then
 * a fresh OraclesProvider (a new page load) renders the session from
 * `GET /sessions/:id/messages`, and the first view refetches too. The
 * streamed view must have the rows the stream defines, and both stored
 * renderings must equal it, byte for byte.
 */
import { expect } from 'vitest';
import { callTool, say, type Script } from '../../helpers/scripted-model-server.ts';
import { mountChat, type Loaded } from './sdk.ts';
import type { IxoRuntime } from './runtime.ts';
import { createWallet } from './wallet.ts';

interface Row {
  type: string | null;
  id: string | null;
  reasoning?: true;
  /** The reasoning trace the row shows above its content (the message's `reasoning`), when it has one. */
  trace?: string;
  /** text rows: the text; component rows: `<component name>` */
  shows: string;
}

interface HistoryCase {
  name: string;
  steps: Script[];
  /** The rows of the streamed view; `RID` stands for the turn's request id. */
  rows: Row[];
}

const QUESTION = (name: string) => `question about ${name}`;

export const HISTORY_CASES: HistoryCase[] = [
  {
    name: 'text',
    steps: [say('A plain answer, in **markdown**.')],
    rows: [
      { type: 'human', id: null, shows: QUESTION('text') },
      { type: 'ai', id: 'RID', shows: 'A plain answer, in **markdown**.' },
    ],
  },
  {
    name: 'a tool call',
    steps: [callTool('list_capabilities', {}, 'call_caps_1'), say('I can do these things.')],
    rows: [
      { type: 'human', id: null, shows: QUESTION('a tool call') },
      { type: 'ai', id: 'RID-ToolCall-call_caps_1', shows: '<list_capabilities>' },
      { type: 'ai', id: 'RID', shows: 'I can do these things.' },
    ],
  },
  {
    // the answer row appears with the first text, above the call; the text after the call goes into it
    name: 'text before a tool call',
    steps: [
      {
        steps: [
          { type: 'text', text: 'Let me check. ' },
          { type: 'tool_call', name: 'list_capabilities', args: {}, id: 'call_caps_2' },
        ],
      },
      say('Done.'),
    ],
    rows: [
      { type: 'human', id: null, shows: QUESTION('text before a tool call') },
      { type: 'ai', id: 'RID', shows: 'Let me check. Done.' },
      { type: 'ai', id: 'RID-ToolCall-call_caps_2', shows: '<list_capabilities>' },
    ],
  },
  {
    name: 'reasoning',
    steps: [
      {
        steps: [
          { type: 'reasoning', text: 'Let me think this through.' },
          { type: 'text', text: 'Forty-two.' },
        ],
      },
    ],
    rows: [
      { type: 'human', id: null, shows: QUESTION('reasoning') },
      { type: 'ai', id: 'RID-reasoning', reasoning: true, shows: 'Let me think this through.' },
      { type: 'ai', id: 'RID', shows: 'Forty-two.' },
    ],
  },
  {
    // the stored answer carries no copy of the reasoning (no `reasoning` trace): after refetchMessages the answer
    // shows its text only, as it streamed
    name: 'reasoning and a tool call',
    steps: [
      {
        steps: [
          { type: 'reasoning', text: 'I should list what I can do.' },
          { type: 'tool_call', name: 'list_capabilities', args: {}, id: 'call_caps_3' },
        ],
      },
      say('Here is what I can do.'),
    ],
    rows: [
      { type: 'human', id: null, shows: QUESTION('reasoning and a tool call') },
      { type: 'ai', id: 'RID-reasoning', reasoning: true, shows: 'I should list what I can do.' },
      { type: 'ai', id: 'RID-ToolCall-call_caps_3', shows: '<list_capabilities>' },
      { type: 'ai', id: 'RID', shows: 'Here is what I can do.' },
    ],
  },
  {
    name: 'a failed turn',
    steps: [
      {
        steps: [
          { type: 'text', text: 'A partial ans' },
          { type: 'stream_error', message: 'the upstream model failed' },
        ],
      },
    ],
    rows: [
      { type: 'human', id: null, shows: QUESTION('a failed turn') },
      { type: 'ai', id: 'RID', shows: 'A partial ans' },
      { type: 'ai', id: 'RID-error', shows: '<Error>' },
    ],
  },
];

/** The rows of a rendered message list. */
function rowsOf(html: string): Row[] {
  const ol = document.createElement('ol');
  ol.innerHTML = html;
  return [...ol.querySelectorAll(':scope > li')].map((li) => {
    const components = [...li.querySelectorAll('[data-component]')].map((c) => `<${c.getAttribute('data-component')}>`);
    const trace = li.querySelector(':scope > [data-reasoning-trace]');
    const content = li.cloneNode(true) as HTMLElement;
    content.querySelector(':scope > [data-reasoning-trace]')?.remove();
    return {
      type: li.getAttribute('data-type'),
      id: li.getAttribute('data-id'),
      ...(li.getAttribute('data-reasoning') === 'true' ? { reasoning: true as const } : {}),
      ...(trace ? { trace: (trace.textContent ?? '').replace(/^Thinking/, '') } : {}),
      shows: components.length ? components.join('') : (content.textContent ?? ''),
    };
  });
}

async function streamedAndStored(
  l: Loaded,
  rt: IxoRuntime,
  steps: Script[],
  message: string,
): Promise<{ requestId: string; streamed: string; stored: string; refetched: string }> {
  const wallet = await createWallet({ invocationTtl: 20 });
  const sessionId = await rt.createSession(wallet);
  rt.script(message, ...steps);
  const { probe } = mountChat(l, { oracleDid: rt.oracleDid, baseUrl: rt.baseUrl, wallet, sessionId });
  await l.rtl.waitFor(() => expect(probe.chat.isLoading).toBe(false));
  // connected like a browser tab, so the socket's events reach the view during the turn
  await l.rtl.waitFor(() => expect(probe.chat.isRealTimeConnected).toBe(true));
  const mark = rt.proxy.log.length;
  const hold = rt.proxy.hold(new RegExp(`^/sessions/${sessionId}/messages`));
  const firstReady = () =>
    probe.renders.findIndex(
      (r, i) => r.status === 'ready' && probe.renders.slice(0, i).some((p) => p.status === 'streaming'),
    );
  const sent = probe.chat.sendMessage(message).catch(() => {});
  try {
    await l.rtl.waitFor(() => expect(firstReady()).toBeGreaterThan(0));
  } finally {
    hold.release();
  }
  const streamed = probe.renders[firstReady()]!.html;
  await sent;
  const post = rt.proxy.log.slice(mark).find((e) => e.method === 'POST' && e.path === `/messages/${sessionId}`);
  const requestId = String(post?.responseHeaders?.['x-request-id']);
  const fresh = mountChat(l, { oracleDid: rt.oracleDid, baseUrl: rt.baseUrl, wallet, sessionId });
  await l.rtl.waitFor(() => expect(fresh.probe.chat.isLoading).toBe(false));
  await l.rtl.waitFor(() => expect(fresh.probe.renders.at(-1)?.html).toMatch(/<li/));
  const stored = fresh.probe.renders.at(-1)!.html;
  await probe.chat.refetchMessages();
  await l.rtl.waitFor(() => expect(probe.chat.isLoading).toBe(false));
  const refetched = probe.renders.at(-1)!.html;
  return { requestId, streamed, stored, refetched };
}

export async function checkHistoryCase(l: Loaded, rt: IxoRuntime, c: HistoryCase): Promise<void> {
  const { requestId, streamed, stored, refetched } = await streamedAndStored(l, rt, c.steps, QUESTION(c.name));
  const expected = c.rows.map((r) => ({ ...r, id: r.id?.replace('RID', requestId) ?? null }));
  // what the stream showed is what the stream defines
  expect(rowsOf(streamed)).toEqual(expected);
  // a new page load shows exactly that, and so does the first view after its refetch: the same rows (an answer that
  // repeats the reasoning trace differs here, with the row named), then the same HTML byte for byte
  expect(rowsOf(stored)).toEqual(expected);
  expect(rowsOf(refetched)).toEqual(expected);
  expect(stored).toBe(streamed);
  expect(refetched).toBe(streamed);
}
