/**
 * The realtime channel against the runtime's own socket.io server: handshake
 * auth, per-session events, browser tool and action answers settled through
 * the runtime's pending-result mechanism (the one the portal and ag-ui
 * plugins use).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OracleClient, connectRealtime, generateSigner } from '../../src/client/index.ts';
import type { WrappedEvent } from '../../src/lib/protocol/index.ts';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('connectRealtime', () => {
  it('answers browser tool calls and actions, reports errors, receives the session events', async () => {
    const c = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const { sessionId } = await c.createSession();
    const wrapped: WrappedEvent[] = [];
    const rt = connectRealtime({
      wsUrl: c.wsUrl,
      sessionId,
      auth: await c.auth(),
      tools: {
        get_location: (args) => ({ lat: 1, lon: 2, echo: args }),
        broken: () => {
          throw new Error('no GPS');
        },
      },
      actions: { show_chart: (args) => ({ shown: true, args }) },
      onWrapped: (e) => wrapped.push(e),
    });
    await rt.ready;
    expect(rt.connected).toBe(true);
    const sock = h.app.socket()!;
    const room = sock.io.to(`session:${sessionId}`);

    const p1 = sock.awaitResult(sessionId, 'tc1', 5000);
    room.emit('browser_tool_call', {
      sessionId,
      requestId: 'q',
      toolCallId: 'tc1',
      toolName: 'get_location',
      args: { precise: true },
    });
    expect(await p1).toEqual({ lat: 1, lon: 2, echo: { precise: true } });

    const p2 = sock.awaitResult(sessionId, 'tc2', 5000);
    room.emit('browser_tool_call', { sessionId, requestId: 'q', toolCallId: 'tc2', toolName: 'broken', args: {} });
    await expect(p2).rejects.toThrow('no GPS');

    const p3 = sock.awaitResult(sessionId, 'tc3', 5000);
    room.emit('browser_tool_call', {
      sessionId,
      requestId: 'q',
      toolCallId: 'tc3',
      toolName: 'unknown_tool',
      args: {},
    });
    await expect(p3).rejects.toThrow(/no browser tool named unknown_tool/);

    const p4 = sock.awaitResult(sessionId, 'ac1', 5000);
    room.emit('action_call', { sessionId, requestId: 'q', toolCallId: 'ac1', toolName: 'show_chart', args: { n: 3 } });
    expect(await p4).toEqual({ shown: true, args: { n: 3 } });

    h.model.enqueue(say('hello'));
    await c.send(sessionId, 'hi').result;
    // message_cache_invalidation follows the run's done frame on the socket
    for (let i = 0; i < 200 && !wrapped.some((e) => e.eventName === 'message_cache_invalidation'); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(wrapped.map((e) => e.eventName)).toContain('message_cache_invalidation');
    rt.close();
  });

  it('a refused handshake (session of another user) rejects ready with the 4xx body', async () => {
    const a = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const b = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const { sessionId } = await a.createSession();
    const rt = connectRealtime({ wsUrl: b.wsUrl, sessionId, auth: await b.auth() });
    await expect(rt.ready).rejects.toMatchObject({ statusCode: 404, code: 'session_not_found' });
    rt.close();
  });
});
