/**
 * What the runtime's host services tell a session's realtime clients, and
 * what those clients answer. Host services (PluginHost: postMessage,
 * emitToSession, awaitClientResult) raise events here; a transport (socket.ts,
 * socket.io) subscribes to them and hands the clients' answers back with
 * settle(). The runtime holds no pointer to any transport: with none
 * subscribed, an event reaches nobody and a client result cannot be awaited.
 */

/** Delivers a raw event to a session's clients; true when at least one client got it. */
type SessionEventListener = (sessionId: string, event: string, payload: unknown) => boolean;

interface Pending {
  sessionId: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

const pendingKey = (sessionId: string, toolCallId: string) => `${sessionId}\u0000${toolCallId}`;

export class RealtimeHub {
  private readonly listeners = new Set<SessionEventListener>();
  private readonly revocations = new Set<(cid: string) => void>();
  private readonly pending = new Map<string, Pending>();

  /** A transport subscribes to revocations (it ends the connections a revoked token authenticated). */
  onRevoke(l: (cid: string) => void): () => void {
    this.revocations.add(l);
    return () => this.revocations.delete(l);
  }

  /** A UCAN was revoked (DELETE /delegation): every connection it authenticated ends. */
  revoked(cid: string): void {
    for (const l of this.revocations) l(cid);
  }

  /** A transport subscribes; returns the unsubscribe. */
  subscribe(l: SessionEventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Raises an event for a session's clients; true when a subscribed transport delivered it. */
  emit(sessionId: string, event: string, payload: unknown): boolean {
    let sent = false;
    for (const l of this.listeners) if (l(sessionId, event, payload)) sent = true;
    return sent;
  }

  /** Waits for a client's answer to a call (tool_result / action_call_result); rejects after timeoutMs. */
  awaitResult(sessionId: string, toolCallId: string, timeoutMs: number): Promise<unknown> {
    if (this.listeners.size === 0)
      return Promise.reject(new Error('no realtime channel: the client must connect over socket.io'));
    return new Promise((resolve, reject) => {
      // keyed by session and call: providers number calls per response (call_0), so ids repeat across sessions
      const key = pendingKey(sessionId, toolCallId);
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new Error(`no result for ${toolCallId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(key, { sessionId, resolve, reject, timer });
    });
  }

  /** A client's answer, from a transport: settles the awaited call when it belongs to the same session. */
  settle(sessionId: string, toolCallId: string, answer: { result?: unknown; error?: string }): boolean {
    const key = pendingKey(sessionId, toolCallId);
    const p = this.pending.get(key);
    if (!p) return false;
    this.pending.delete(key);
    clearTimeout(p.timer);
    if (answer.error) p.reject(new Error(answer.error));
    else p.resolve(answer.result);
    return true;
  }
}
