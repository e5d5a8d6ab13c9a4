/**
 * A small Matrix client-server API client (v3): whoami, sync, join, send,
 * OpenID token. Every call has a time-out (the outbound helper); a reply
 * with another status than 2xx is the helper's one upstream-error shape,
 * the homeserver's errcode in its details' upstreamCode; the access token
 * never appears in a message.
 */
import { fetchOk, upstreamError } from '../../../lib/fetch-json.ts';

export interface SyncResponse {
  next_batch: string;
  rooms?: {
    join?: Record<string, { timeline?: { events?: MatrixEvent[] }; summary?: { 'm.joined_member_count'?: number } }>;
    invite?: Record<string, { invite_state?: { events?: MatrixEvent[] } }>;
  };
}

export interface MatrixEvent {
  type: string;
  event_id?: string;
  sender: string;
  state_key?: string;
  content: Record<string, unknown>;
}

export class MatrixClient {
  readonly baseUrl: string;
  private readonly token: string;
  readonly timeoutMs: number;

  constructor(o: { baseUrl: string; token: string; timeoutMs: number }) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.token = o.token;
    this.timeoutMs = o.timeoutMs;
  }

  async call<T>(
    method: string,
    path: string,
    o: { body?: unknown; query?: Record<string, string>; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const res = await fetchOk<T>({
      method,
      url: `${this.baseUrl}/_matrix/client/v3${path}`,
      query: o.query,
      bearer: this.token,
      body: o.body,
      timeoutMs: o.timeoutMs ?? this.timeoutMs,
      signal: o.signal,
      what: `the homeserver (${method} ${path.split('?')[0]})`,
      // the caller's own abort is rethrown as it is (a stopping sync loop)
      fail: (f) => (f.reason === 'aborted' ? (f.error as Error) : upstreamError(f)),
    });
    return res.text === '' ? ({} as T) : res.body;
  }

  whoami() {
    return this.call<{ user_id: string; device_id?: string }>('GET', '/account/whoami');
  }

  sync(since: string | undefined, timeoutMs: number, signal?: AbortSignal) {
    const query: Record<string, string> = { timeout: String(timeoutMs) };
    if (since) query.since = since;
    return this.call<SyncResponse>('GET', '/sync', { query, timeoutMs: timeoutMs + this.timeoutMs, signal });
  }

  join(roomId: string) {
    return this.call<{ room_id: string }>('POST', `/join/${encodeURIComponent(roomId)}`, { body: {} });
  }

  send(roomId: string, txnId: string, content: Record<string, unknown>) {
    return this.call<{ event_id: string }>(
      'PUT',
      `/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${encodeURIComponent(txnId)}`,
      { body: content },
    );
  }

  openidToken(userId: string) {
    return this.call<{ access_token: string; token_type: string; matrix_server_name: string; expires_in: number }>(
      'POST',
      `/user/${encodeURIComponent(userId)}/openid/request_token`,
      { body: {} },
    );
  }
}
