/**
 * The SDK's own reconnect. The proxy destroys the turn's
 * SSE connection right after its second `message` frame while the model is
 * still generating (it pauses before the rest); the SDK's run-stream logic
 * waits 500 ms and rejoins with `GET /runs/:runId?after=<last id>`, re-sending
 * the headers of the turn's POST. The turn must finish in the same AI row
 * with no gap and no duplicate tokens.
 */
import { expect } from 'vitest';
import { mountChat, type Loaded } from './sdk.ts';
import type { IxoRuntime } from './runtime.ts';
import { createWallet } from './wallet.ts';

const FIRST = 'one two three four ';
const REST = 'five six seven eight nine ten.';
const FULL = FIRST + REST;

/**
 * `freshRejoinCredential`: the proxy replaces the rejoin's Authorization with
 * a new invocation from the same wallet (a diagnostic: everything but the
 * credential reuse, which the bearer replay mode settles).
 */
export async function dropAndRejoin(l: Loaded, rt: IxoRuntime, o: { freshRejoinCredential: boolean }): Promise<void> {
  // short-lived invocations: the SDK mints one per request, so only the rejoin reuses one
  const wallet = await createWallet({ invocationTtl: 20 });
  const sessionId = await rt.createSession(wallet);
  const message = `count to ten (${o.freshRejoinCredential ? 'fresh' : 'same'} credential)`;
  // the pause keeps the run live across the SDK's 500 ms back-off (were it shorter, the rejoin would replay a finished
  // run: also correct)
  rt.script(message, {
    steps: [
      { type: 'text', text: FIRST, chunkSize: 4 },
      { type: 'delay', ms: 1500 },
      { type: 'text', text: REST, chunkSize: 4 },
    ],
  });
  const { probe } = mountChat(l, { oracleDid: rt.oracleDid, baseUrl: rt.baseUrl, wallet, sessionId });
  await l.rtl.waitFor(() => expect(probe.chat.isLoading).toBe(false));
  const mark = rt.proxy.log.length;
  rt.proxy.dropNextStream(2);
  if (o.freshRejoinCredential)
    rt.proxy.reauthorize(/^\/runs\//, async () => (await wallet.createInvocation(rt.oracleDid)).serialized);
  let settled = false;
  const sent = probe.chat.sendMessage(message).finally(() => (settled = true));
  try {
    const log = () => rt.proxy.log.slice(mark);
    const turn = () => log().find((e) => e.method === 'POST' && e.path === `/messages/${sessionId}`);
    await l.rtl.waitFor(() => expect(turn()?.dropped).toBe(true));
    const runId = String(turn()?.responseHeaders?.['x-run-id']);
    const requestId = String(turn()?.responseHeaders?.['x-request-id']);
    const rejoins = () => log().filter((e) => e.path.startsWith(`/runs/${runId}?after=`) && e.status !== 0);
    // the SDK rejoins from the last event id it saw, and the runtime lets it
    await l.rtl.waitFor(() => expect(rejoins().length).toBeGreaterThan(0));
    expect(rejoins().map((e) => `GET ${e.path} → ${e.status}${e.code ? ` ${e.code}` : ''}`)).toEqual([
      expect.stringMatching(/^GET \/runs\/\S+\?after=[1-9]\d* → 200$/),
    ]);
    await sent;
    expect(probe.chat.run).toMatchObject({ runId, requestId, ended: 'done', resumed: 1 });
    // every text the AI row showed while streaming is a prefix of the answer (no duplicate token), and it reached the
    // whole answer (no gap)
    const shown = probe.renders
      .filter((r) => r.status === 'streaming')
      .map(
        (r) =>
          new DOMParser().parseFromString(`<ol>${r.html}</ol>`, 'text/html').querySelector(`li[data-id="${requestId}"]`)
            ?.textContent,
      )
      .filter((t): t is string => typeof t === 'string');
    expect(shown.filter((t) => !FULL.startsWith(t))).toEqual([]);
    expect(shown.at(-1)).toBe(FULL);
    await l.rtl.waitFor(() =>
      expect(probe.chat.messages.map((m: { content: unknown }) => m.content)).toEqual([message, FULL]),
    );
  } finally {
    rt.proxy.reauthorize(/$^/, async () => '');
    // a refused rejoin is retried 12 times over about a minute: stop the SDK's loop (its own abort) rather than wait
    // for it
    if (!settled) await probe.chat.abortStream();
    await sent.catch(() => {});
  }
}
