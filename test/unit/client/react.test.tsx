// @vitest-environment jsdom
/**
 * The React SDK rendered in jsdom against a real runtime on loopback
 * (scripted model server): provider errors and shared minting, useChat status
 * transitions (submitted → streaming → ready, error frame → error, abort →
 * ready, 402 → onPaymentRequiredError), history replacement with the stream
 * ids, browser tools advertised with their JSON Schema, sessions, config from
 * the registry's domain record, OpenID tokens from a Matrix-shaped server.
 */
import { act, cleanup, render, renderHook, waitFor } from '@testing-library/react';
import Fastify, { type FastifyInstance } from 'fastify';
import { useEffect, type ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import {
  OraclesProvider,
  getOpenIdToken,
  renderMessageContent,
  useAgAction,
  useChat,
  useContractOracle,
  useGetOpenIdToken,
  useMemoryEngine,
  useOracleSessions,
  useOraclesConfig,
  type ChatMessage,
  useOraclesContext,
  type ChatStatus,
  type OraclesWallet,
  type OraclesProviderProps,
} from '../../../src/client/react/index.ts';
import { generateSigner, type Signer } from '../../../src/lib/keys/keys.ts';
import { mintDelegation, mintInvocation } from '../../../src/lib/ucan/ucan.ts';
import { startHarness, type Harness } from '../../helpers/runtime-harness.ts';
import { say } from '../../helpers/scripted-model-server.ts';

let h: Harness;
let side: FastifyInstance;
let sideUrl: string;
beforeAll(async () => {
  h = await startHarness();
  // a registry (domain record), a Matrix homeserver (OpenID) and a paid oracle's 402, on one loopback server
  side = Fastify();
  side.get<{ Params: { did: string } }>('/public/v1/domains/:did', async (req, reply) => {
    if (req.params.did !== h.oracleDid)
      return reply.status(404).send({ statusCode: 404, code: 'domain_not_found', message: 'no such domain' });
    return {
      did: h.oracleDid,
      services: [
        { id: '#api', type: 'oracleService', serviceEndpoint: h.url },
        { id: '#ws', type: 'oracleService', serviceEndpoint: h.url },
      ],
    };
  });
  side.post<{ Params: { userId: string } }>(
    '/_matrix/client/v3/user/:userId/openid/request_token',
    async (req, reply) => {
      if (req.headers.authorization !== 'Bearer mx-secret')
        return reply.status(401).send({ errcode: 'M_UNKNOWN_TOKEN', error: 'bad token' });
      return {
        access_token: `oid-${req.params.userId}`,
        token_type: 'Bearer',
        matrix_server_name: 'matrix.test',
        expires_in: 3600,
      };
    },
  );
  side.get('/paid/health', async () => ({ status: 'ok', name: 'Paid', oracleDid: h.oracleDid, version: '1.0.0' }));
  side.get('/paid/models', async () => ({ models: [{ id: 'm', name: 'm' }], default: 'm' }));
  side.get('/paid/messages/:id', async () => ({ messages: [] }));
  side.post('/paid/messages/:id', async (_req, reply) =>
    reply.status(402).send({
      statusCode: 402,
      code: 'payment_required',
      message: 'pay first',
      claims: ['claim-1', 'claim-2'],
      outstandingClaims: [{ id: 'claim-1' }, { id: 'claim-2' }],
    }),
  );
  sideUrl = await side.listen({ port: 0, host: '127.0.0.1' });
});
// Testing Library unmounts after each test only where afterEach is a global (vitest has none here): without this, a
// hook still mounted when the file ends gets its last reply after jsdom is gone and React throws "window is not defined".
afterEach(cleanup);

afterAll(async () => {
  await h?.close();
  await side?.close();
});

async function walletProps(signer?: Signer) {
  const s = signer ?? (await generateSigner());
  const wallet: OraclesWallet = {
    did: s.did(),
    signer: s,
    matrix: { baseUrl: '', userId: '@u:matrix.test', accessToken: 'mx-secret' },
  };
  return { initialWallet: wallet, transactSignX: async () => ({ code: 0 }), registryUrl: sideUrl };
}

function wrapperOf(props: Omit<OraclesProviderProps, 'children'>) {
  return ({ children }: { children: ReactNode }) => <OraclesProvider {...props}>{children}</OraclesProvider>;
}

const overrides = () => ({ baseUrl: h.url });

describe('OraclesProvider', () => {
  it('a hook outside it throws', () => {
    expect(() => renderHook(() => useOraclesContext())).toThrow(
      'useOraclesContext must be used within a OraclesProvider',
    );
    expect(() => renderHook(() => useChat({ oracleDid: h.oracleDid, sessionId: undefined }))).toThrow(
      'useOraclesContext must be used within a OraclesProvider',
    );
  });

  it('mints the delegation once when many hooks ask at once', async () => {
    const signer = await generateSigner();
    let delegations = 0;
    let invocations = 0;
    const props = {
      ...(await walletProps(signer)),
      createDelegation: async ({ oracleDid }: { oracleDid: string; ttlSeconds: number }) => {
        delegations++;
        const d = await mintDelegation({ issuer: signer, audience: oracleDid, nonce: crypto.randomUUID() });
        return { token: d.token, expiration: d.delegation.expiration };
      },
      createInvocation: async ({ oracleDid }: { oracleDid: string; ttlSeconds: number }) => (
        invocations++,
        mintInvocation({ issuer: signer, audience: oracleDid })
      ),
    };
    const { result } = renderHook(
      () => [
        useOracleSessions(h.oracleDid, overrides()),
        useOracleSessions(h.oracleDid, overrides()),
        useOracleSessions(h.oracleDid, overrides()),
        useOracleSessions(h.oracleDid, overrides()),
      ],
      { wrapper: wrapperOf(props) },
    );
    // what is counted is mints, not time: a loaded machine gets more than waitFor's default second
    await waitFor(() => expect(result.current.every((r) => !r.isLoading && r.error === undefined)).toBe(true), {
      timeout: 10_000,
    });
    expect(delegations).toBe(1);
    expect(invocations).toBeGreaterThanOrEqual(4);
  });
});

describe('useOraclesConfig', () => {
  it('resolves the API URL from the registry’s public domain record (#api/#ws) and the model from /models', async () => {
    const { result } = renderHook(() => useOraclesConfig(h.oracleDid), { wrapper: wrapperOf(await walletProps()) });
    await waitFor(() => expect(result.current.isReady).toBe(true));
    expect(result.current.config).toMatchObject({
      apiUrl: h.url,
      wsUrl: h.url,
      model: 'scripted-model',
      source: 'registry',
    });
  });

  it('overrides win and skip the lookup', async () => {
    const { result } = renderHook(
      () => useOraclesConfig('did:key:z6Mknotinregistrynotinregistrynotinregistry1234', { baseUrl: h.url }),
      { wrapper: wrapperOf(await walletProps()) },
    );
    await waitFor(() => expect(result.current.isReady).toBe(true));
    expect(result.current.config).toMatchObject({ apiUrl: h.url, source: 'overrides' });
  });
});

describe('useOracleSessions', () => {
  it('lists, creates and deletes the user’s sessions', async () => {
    const { result } = renderHook(() => useOracleSessions(h.oracleDid), { wrapper: wrapperOf(await walletProps()) });
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    expect(result.current.sessions).toEqual([]);
    let id = '';
    await act(async () => {
      id = (await result.current.createSession('hello')).sessionId;
    });
    expect(result.current.sessions.map((s) => s.sessionId)).toEqual([id]);
    await act(async () => {
      await result.current.deleteSession(id);
    });
    expect(result.current.total).toBe(0);
  });
});

function useChatRecorder(opts: Parameters<typeof useChat>[0]) {
  const chat = useChat(opts);
  const statuses = (useChatRecorder as unknown as { log: ChatStatus[] }).log;
  const ids = (useChatRecorder as unknown as { ids?: Set<string> }).ids;
  useEffect(() => {
    if (statuses.at(-1) !== chat.status) statuses.push(chat.status);
  }, [chat.status, statuses]);
  useEffect(() => {
    if (chat.status === 'streaming') for (const m of chat.messages) if (m.type === 'ai') ids?.add(m.id);
  }, [chat.messages, chat.status, ids]);
  return chat;
}

async function newSession(props: Awaited<ReturnType<typeof walletProps>>): Promise<string> {
  const { result } = renderHook(() => useOracleSessions(h.oracleDid, overrides()), { wrapper: wrapperOf(props) });
  await waitFor(() => expect(result.current.isLoading).toBe(false));
  let id = '';
  await act(async () => {
    id = (await result.current.createSession()).sessionId;
  });
  return id;
}

describe('useChat', () => {
  it('submitted → streaming → ready; the history replaces the streamed view with the same ids; browser tools over a live socket', async () => {
    const props = await walletProps();
    const sessionId = await newSession(props);
    const log: ChatStatus[] = [];
    (useChatRecorder as unknown as { log: ChatStatus[] }).log = log;
    (useChatRecorder as unknown as { ids: Set<string> }).ids = new Set();
    const browserTools = [
      {
        toolName: 'get_location',
        description: 'where the user is (zod 4)',
        schema: z.object({ precise: z.boolean() }),
        fn: () => ({ lat: 1 }),
      },
      {
        toolName: 'pick_color',
        description: 'a color (zod 3)',
        schema: z3.object({ palette: z3.enum(['warm', 'cold']) }),
        fn: () => 'red',
      },
    ];
    const { result } = renderHook(
      () =>
        useChatRecorder({
          oracleDid: h.oracleDid,
          sessionId,
          overrides: overrides(),
          browserTools,
          streamingMode: 'immediate',
        }),
      { wrapper: wrapperOf(props) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    await waitFor(() => expect(result.current.isRealTimeConnected).toBe(true));
    h.model.enqueue(say('Hello **there**.', 3));
    // observe (not replace) what goes over the wire to the real runtime
    const bodies: { tools?: { name: string; schema: { properties?: object } }[] }[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      if (init?.method === 'POST' && String(input).includes('/messages/')) bodies.push(JSON.parse(String(init.body)));
      return realFetch(input, init);
    };
    let sent!: Promise<void>;
    try {
      act(() => {
        sent = result.current.sendMessage('hi');
      });
      await waitFor(() => expect(log.at(-1)).toBe('ready'));
      await act(async () => {
        await sent;
      });
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(bodies[0]?.tools?.map((t) => t.name)).toEqual(['get_location', 'pick_color']);
    expect(bodies[0]?.tools?.[0]?.schema).toMatchObject({
      type: 'object',
      properties: { precise: { type: 'boolean' } },
    });
    expect(bodies[0]?.tools?.[1]?.schema).toMatchObject({
      type: 'object',
      properties: { palette: { type: 'string', enum: ['warm', 'cold'] } },
    });
    expect(log).toEqual(['ready', 'submitted', 'streaming', 'ready']);
    expect(result.current.isSending).toBe(false);
    const msgs = result.current.messages;
    expect(msgs.map((m) => [m.type, m.content])).toEqual([
      ['human', 'hi'],
      ['ai', 'Hello **there**.'],
    ]);
    // the ids seen while streaming are the ids of the history that replaced the view
    const streamed = [...(useChatRecorder as unknown as { ids: Set<string> }).ids];
    expect(streamed).toEqual([msgs[1]!.id]);
    // a browser tool call from the runtime is answered over the socket with the tool's fn
    const sock = h.app.socket()!;
    const pending = sock.awaitResult(sessionId, 'bt1', 5000);
    sock.io.to(`session:${sessionId}`).emit('browser_tool_call', {
      sessionId,
      requestId: 'q',
      toolCallId: 'bt1',
      toolName: 'get_location',
      args: { precise: true },
    });
    expect(await pending).toEqual({ lat: 1 });
    expect(result.current.error).toBeUndefined();
    expect(renderToText(renderMessageContent(msgs[1]!.content))).toBe('Hello **there**.');
  });

  it('an SSE error frame → error', async () => {
    const props = await walletProps();
    const sessionId = await newSession(props);
    const log: ChatStatus[] = [];
    (useChatRecorder as unknown as { log: ChatStatus[] }).log = log;
    const { result } = renderHook(
      () => useChatRecorder({ oracleDid: h.oracleDid, sessionId, overrides: overrides() }),
      { wrapper: wrapperOf(props) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    h.model.enqueue({ steps: [{ type: 'http_error', status: 500 }] });
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.sendMessage('fail');
    });
    await waitFor(() => expect(log.at(-1)).toBe('error'));
    await act(async () => {
      await sent;
    });
    expect(log).toEqual(['ready', 'submitted', 'streaming', 'error']);
    expect(result.current.error).toMatchObject({ kind: 'provider' });
  });

  it('abort → ready', async () => {
    const props = await walletProps();
    const sessionId = await newSession(props);
    const log: ChatStatus[] = [];
    (useChatRecorder as unknown as { log: ChatStatus[] }).log = log;
    const { result } = renderHook(
      () => useChatRecorder({ oracleDid: h.oracleDid, sessionId, overrides: overrides(), streamingMode: 'batched' }),
      { wrapper: wrapperOf(props) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    h.model.enqueue({
      steps: [
        { type: 'text', text: 'partial ', chunkSize: 100 },
        { type: 'delay', ms: 10_000 },
        { type: 'text', text: 'never' },
      ],
    });
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.sendMessage('long');
    });
    await waitFor(() =>
      expect(result.current.messages.some((m) => m.type === 'ai' && m.content === 'partial ')).toBe(true),
    );
    expect(result.current.status).toBe('streaming');
    await act(async () => {
      await result.current.abortStream();
      await sent;
    });
    expect(log).toEqual(['ready', 'submitted', 'streaming', 'ready']);
  });

  it('payment required → onPaymentRequiredError with the claim ids', async () => {
    const props = await walletProps();
    const claims: string[][] = [];
    const { result } = renderHook(
      () =>
        useChat({
          oracleDid: h.oracleDid,
          sessionId: 's1',
          overrides: { baseUrl: `${sideUrl}/paid` },
          onPaymentRequiredError: (c) => claims.push(c),
        }),
      { wrapper: wrapperOf(props) },
    );
    await waitFor(() => expect(result.current.isConfigReady).toBe(true));
    await act(async () => {
      await result.current.sendMessage('hi');
    });
    expect(claims).toEqual([['claim-1', 'claim-2']]);
    expect(result.current.status).toBe('error');
    expect(result.current.sendMessageError).toMatchObject({ status: 402, claims: ['claim-1', 'claim-2'] });
  });
});

describe('useChat without a sessionId, and history after a refetch', () => {
  /** What a row shows: its id, whether it is the reasoning, and its rendered text (default rows included). */
  const shown = (ms: ChatMessage[]) =>
    ms
      .filter((m) => m.type === 'ai')
      .map((m) => ({
        id: m.id,
        reasoning: m.isReasoning === true,
        text: renderToText(renderMessageContent(m.content)),
      }));

  it('creates a session on the first message and reuses it on the next mount; the refetched history shows what the stream showed', async () => {
    const props = await walletProps();
    const views: ChatMessage[][] = [];
    const { result } = renderHook(
      () => {
        const chat = useChat({ oracleDid: h.oracleDid, overrides: overrides(), streamingMode: 'immediate' });
        if (chat.status === 'streaming') views.push(chat.messages);
        return chat;
      },
      { wrapper: wrapperOf(props) },
    );
    // a message sent before the config resolved waits for it (sendMessage never rejects)
    expect(result.current.sessionId).toBeUndefined();
    h.model.enqueue(
      {
        steps: [
          { type: 'reasoning', text: 'I should list what I can do.' },
          { type: 'tool_call', name: 'list_capabilities', args: {}, id: 'call_caps_r' },
        ],
      },
      say('Here is what I can do.'),
    );
    let sent!: Promise<void>;
    act(() => {
      sent = result.current.sendMessage('what can you do?');
    });
    await waitFor(() => expect(result.current.status).toBe('ready'), { timeout: 10_000 });
    await act(() => sent);
    expect(result.current.error).toBeUndefined();
    const sessionId = result.current.sessionId!;
    expect(sessionId).toBeTruthy();
    // the streamed view: the last one before the turn ended (then the history replaced it)
    const streamed = views.at(-1)!;
    expect(streamed.map((m) => m.id)).toEqual(result.current.messages.map((m) => m.id));
    const history = result.current.messages;
    expect(shown(streamed)).toEqual(shown(history));
    expect(shown(history)).toMatchObject([
      { reasoning: true, text: 'I should list what I can do.' },
      { id: expect.stringContaining('-ToolCall-call_caps_r'), text: 'list_capabilities: done' },
      { reasoning: false, text: 'Here is what I can do.' },
    ]);
    await act(async () => {
      await result.current.refetchMessages();
    });
    expect(shown(result.current.messages)).toEqual(shown(streamed));

    // a model error: a visible error row (the default Error row), while streaming and after the refetch
    h.model.enqueue({ steps: [{ type: 'stream_error', message: 'the upstream model failed' }] });
    views.length = 0;
    act(() => {
      sent = result.current.sendMessage('and now?');
    });
    await waitFor(() => expect(result.current.status).toBe('error'), { timeout: 10_000 });
    await act(() => sent);
    const failed = views.at(-1)!;
    expect(shown(failed).at(-1)).toMatchObject({ id: expect.stringMatching(/-error$/) });
    expect(shown(failed).at(-1)!.text).toContain('the upstream model failed');
    expect(shown(result.current.messages).slice(-1)).toEqual(shown(failed).slice(-1));

    // the next mount (a page load) without a sessionId shows the same session
    const again = renderHook(() => useChat({ oracleDid: h.oracleDid, overrides: overrides() }), {
      wrapper: wrapperOf(props),
    });
    await waitFor(() => expect(again.result.current.sessionId).toBe(sessionId));
    await waitFor(() => expect(shown(again.result.current.messages)).toEqual(shown(result.current.messages)));
  });
});

function renderToText(n: ReactNode): string {
  const { container } = render(<>{n}</>);
  return container.textContent ?? '';
}

describe('renderMessageContent and useAgAction', () => {
  it('renders strings, ui components and action renders of component records', async () => {
    const Weather = (p: Record<string, unknown>) => (
      <b>
        weather {String((p.args as { city: string }).city)} {String(p.status)}
      </b>
    );
    expect(
      renderToText(
        renderMessageContent(
          ['a ', { name: 'get_current_weather', props: { id: '1', args: { city: 'Oslo' }, status: 'done' } }],
          { get_current_weather: Weather },
        ),
      ),
    ).toBe('a weather Oslo done');
    const props = await walletProps();
    const Comp = () => {
      useAgAction({
        name: 'show_chart',
        description: 'chart',
        parameters: z.object({ n: z.number() }),
        handler: () => 'ok',
        render: ({ status, args }) => (
          <i>
            chart {String((args as { n: number }).n)} {status}
          </i>
        ),
      });
      return <span>mounted</span>;
    };
    const r = render(
      <OraclesProvider {...props}>
        <Comp />
      </OraclesProvider>,
    );
    await waitFor(() => expect(r.container.textContent).toBe('mounted'));
    expect(
      renderToText(
        renderMessageContent({ name: 'show_chart', props: { id: '2', args: { n: 3 }, status: 'isRunning' } }),
      ),
    ).toBe('chart 3 isRunning');
    // defaults: a tool call nobody renders shows its name and status, a turn's error its message; other records nothing
    expect(
      renderToText(
        renderMessageContent({ name: 'unknown', props: { id: '3', args: {}, status: 'done', isToolCall: true } }),
      ),
    ).toBe('unknown: done');
    expect(
      renderToText(
        renderMessageContent({
          name: 'dice',
          props: { id: '4', args: {}, status: 'error', isToolCall: true, payload: { error: 'no dice' } },
        }),
      ),
    ).toBe('dice: failed: no dice');
    expect(
      renderToText(
        renderMessageContent({ name: 'Error', props: { id: 'error', args: {}, status: 'done', output: 'model down' } }),
      ),
    ).toBe('model down');
    expect(renderToText(renderMessageContent({ name: 'Card', props: { id: '5', args: {}, status: 'done' } }))).toBe('');
  });
});

describe('useContractOracle, useMemoryEngine, OpenID', () => {
  it('contractOracle stores the delegation (and signs the messages), revoke removes it', async () => {
    const signed: unknown[] = [];
    const props = {
      ...(await walletProps()),
      transactSignX: async (m: unknown) => (signed.push(m), { code: 0, txHash: 'ABC' }),
    };
    const { result } = renderHook(() => useContractOracle(), { wrapper: wrapperOf(props) });
    let r: { expiration: number | null; tx?: unknown } | undefined;
    await act(async () => {
      r = await result.current.contractOracle({
        oracleDid: h.oracleDid,
        messages: [{ typeUrl: '/test.Msg', value: { a: 1 } }],
      });
    });
    expect(r).toMatchObject({ tx: { txHash: 'ABC' } });
    expect(signed).toHaveLength(1);
    expect(result.current.isAuthorized).toBe(true);
    await act(async () => {
      expect(await result.current.checkAuthorization({ oracleDid: h.oracleDid })).toBe(true);
      await result.current.revoke({ oracleDid: h.oracleDid });
    });
    expect(result.current.isAuthorized).toBe(false);
  });

  it('useMemoryEngine reports whether the memory capability is loaded', async () => {
    const { result } = renderHook(() => useMemoryEngine(h.oracleDid, overrides()), {
      wrapper: wrapperOf(await walletProps()),
    });
    await waitFor(() => expect(result.current.isLoading).toBe(false));
    expect(result.current).toMatchObject({ isEnabled: false, error: undefined });
  });

  it('getOpenIdToken and useGetOpenIdToken ask the Matrix homeserver', async () => {
    expect(
      await getOpenIdToken({ baseUrl: sideUrl, userId: '@u:matrix.test', accessToken: 'mx-secret' }),
    ).toMatchObject({ access_token: 'oid-@u:matrix.test', matrix_server_name: 'matrix.test' });
    await expect(
      getOpenIdToken({ baseUrl: sideUrl, userId: '@u:matrix.test', accessToken: 'nope' }),
    ).rejects.toMatchObject({ status: 401 });
    const props = await walletProps();
    props.initialWallet.matrix = { baseUrl: sideUrl, userId: '@u:matrix.test', accessToken: 'mx-secret' };
    const { result } = renderHook(() => useGetOpenIdToken(), { wrapper: wrapperOf(props) });
    await act(async () => {
      await result.current.getOpenIdToken();
    });
    expect(result.current.token?.access_token).toBe('oid-@u:matrix.test');
  });
});
