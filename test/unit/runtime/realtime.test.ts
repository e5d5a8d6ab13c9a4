/** The runtime's realtime events: host services raise them, transports subscribe and settle the clients' answers. */
import { describe, expect, it } from 'vitest';
import { RealtimeHub } from '../../../src/runtime/realtime.ts';

describe('RealtimeHub', () => {
  it('an event reaches nobody until a transport subscribes; true once one delivers it', () => {
    const hub = new RealtimeHub();
    expect(hub.emit('s1', 'x', {})).toBe(false);
    const seen: unknown[] = [];
    const off = hub.subscribe(
      (sessionId, event, payload) => (seen.push([sessionId, event, payload]), sessionId === 's1'),
    );
    expect(hub.emit('s1', 'browser_tool_call', { a: 1 })).toBe(true);
    expect(hub.emit('s2', 'browser_tool_call', { a: 2 })).toBe(false); // no client of s2
    expect(seen).toEqual([
      ['s1', 'browser_tool_call', { a: 1 }],
      ['s2', 'browser_tool_call', { a: 2 }],
    ]);
    off();
    expect(hub.emit('s1', 'x', {})).toBe(false);
  });

  it("a client's answer settles the awaited call of its own session only; errors reject; no transport rejects at once", async () => {
    const hub = new RealtimeHub();
    await expect(hub.awaitResult('s1', 't0', 1000)).rejects.toThrow(
      'no realtime channel: the client must connect over socket.io',
    );
    hub.subscribe(() => true);
    const p = hub.awaitResult('s1', 't1', 5000);
    expect(hub.settle('s2', 't1', { result: 'from another session' })).toBe(false);
    expect(hub.settle('s1', 't1', { result: { ok: 1 } })).toBe(true);
    expect(await p).toEqual({ ok: 1 });
    expect(hub.settle('s1', 't1', { result: 'late' })).toBe(false);
    const q = hub.awaitResult('s1', 't2', 5000);
    hub.settle('s1', 't2', { error: 'user denied' });
    await expect(q).rejects.toThrow('user denied');
    await expect(hub.awaitResult('s1', 't3', 20)).rejects.toThrow('no result for t3 within 20 ms');
  });
});
