/**
 * The headless oracle client (`oraclekit/client`): speaks protocol.md and
 * nothing else. Works in Node ≥ 24 and browsers: fetch + ReadableStream for
 * SSE, socket.io-client (src/client/realtime.ts) for the realtime channel.
 *
 * - Every authenticated request carries a fresh UCAN invocation (they are
 *   single-use) and the cached user → oracle delegation; a 401 is retried
 *   once with a new invocation, then once more with a new delegation.
 * - `send()` streams a turn: typed events (AnyEvent), the accumulated text, a
 *   result promise. A stream that drops before its `done` frame is rejoined
 *   from the last event id (`GET /runs/:runId?after=N`); events already seen
 *   are not delivered twice. `abort()` asks the runtime to abort the run; the
 *   stream then ends with `done {status:'aborted'}`.
 */
import * as P from '../lib/protocol/index.ts';
import {
  initialTurn,
  reduceTurn,
  type AnyEvent,
  type DoneStatus,
  type Message,
  type Session,
  type TurnState,
} from '../lib/protocol/index.ts';
import { UcanAuth, type AuthOptions, type AuthSource } from './auth.ts';
import { OracleClientError, OracleUnreachableError, errorFromResponse } from './errors.ts';
import { OracleEventParser } from '../lib/protocol/sse.ts';
import { backoffMs } from '../lib/backoff.ts';

export interface OracleClientOptions extends AuthSource {
  /** The oracle's API URL (its `#api` service). */
  baseUrl: string;
  /** The socket.io URL (its `#ws` service); default baseUrl. */
  wsUrl?: string;
  /** The oracle's DID (audience of every UCAN); default: read from GET /health. */
  oracleDid?: string;
  auth?: AuthOptions;
  /** A shared credential cache (the React provider shares one per user and oracle). */
  ucanAuth?: UcanAuth;
  fetch?: typeof fetch;
  /** How many times a dropped stream is rejoined (default 5). */
  rejoinAttempts?: number;
  /** Base delay between rejoin attempts, ms (default 100, doubled each time). */
  rejoinDelayMs?: number;
}

export interface BrowserToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  schema: unknown;
}
export interface AgActionSpec extends BrowserToolSpec {
  hasRender?: boolean;
}

export interface SendOptions {
  model?: string;
  metadata?: Record<string, unknown>;
  timezone?: string;
  tools?: BrowserToolSpec[];
  agActions?: AgActionSpec[];
  /** Called for every event, in order, before it is yielded, with the turn so far (the events folded by reduceTurn). */
  onEvent?: OnTurnEvent;
  /** Stops reading (does not abort the run on the server; see ChatStream.abort). */
  signal?: AbortSignal;
}

export type { ToolCallState, TurnState } from '../lib/protocol/index.ts';

/** A stream's event and the turn after it. */
export type OnTurnEvent = (e: AnyEvent, turn: TurnState) => void;

/** A streamed turn once its `done` frame arrived: the events folded by reduceTurn. */
export interface TurnResult extends Omit<TurnState, 'status'> {
  status: DoneStatus;
  /** How many times the stream was rejoined. */
  rejoins: number;
}

export interface ChatStream extends AsyncIterable<AnyEvent> {
  readonly sessionId: string;
  /** Resolves once the reply headers arrived (x-run-id, X-Request-Id). */
  readonly started: Promise<{ runId: string; requestId: string }>;
  /** Resolves after the `done` frame (or rejects on a failure that rejoin could not fix). */
  readonly result: Promise<TurnResult>;
  /** Asks the runtime to abort this run (POST /messages/abort); the stream ends with done {status:'aborted'}. */
  abort(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const trimSlash = (u: string) => u.replace(/\/+$/, '');

export class OracleClient {
  readonly baseUrl: string;
  readonly wsUrl: string;
  private did: string | undefined;
  private authImpl: UcanAuth | undefined;
  private readonly opts: OracleClientOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: OracleClientOptions) {
    this.opts = opts;
    this.baseUrl = trimSlash(opts.baseUrl);
    this.wsUrl = trimSlash(opts.wsUrl ?? opts.baseUrl);
    this.did = opts.oracleDid ?? opts.ucanAuth?.oracleDid;
    this.authImpl = opts.ucanAuth;
    this.fetchImpl = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  }

  /**
   * Creates a client and resolves the oracle DID from /health when not given.
   * @example
   * const client = await OracleClient.connect({ baseUrl: 'http://localhost:3000', signer: await generateSigner() });
   * const { sessionId } = await client.createSession('weather');
   */
  static async connect(opts: OracleClientOptions): Promise<OracleClient> {
    const c = new OracleClient(opts);
    await c.oracleDid();
    return c;
  }

  async oracleDid(): Promise<string> {
    if (!this.did) this.did = (await this.health()).oracleDid;
    return this.did;
  }

  async auth(): Promise<UcanAuth> {
    if (!this.authImpl) this.authImpl = new UcanAuth(await this.oracleDid(), this.opts, this.opts.auth);
    return this.authImpl;
  }

  get userDid(): string | undefined {
    return this.opts.did ?? this.opts.signer?.did() ?? this.authImpl?.userDid;
  }

  // ---- transport ----------------------------------------------------------
  private async rawFetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetchImpl(this.baseUrl + path, init);
    } catch (e) {
      if ((init.signal as AbortSignal | undefined)?.aborted) throw e;
      throw new OracleUnreachableError(this.baseUrl, e);
    }
  }

  /** An authenticated request; 401 → new invocation, then new delegation; other errors thrown as OracleClientError. */
  async request(
    method: string,
    path: string,
    body?: unknown,
    init: { signal?: AbortSignal; accept?: string } = {},
  ): Promise<Response> {
    const auth = await this.auth();
    let last: OracleClientError | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const headers: Record<string, string> = { ...(await auth.headers()) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (init.accept) headers.accept = init.accept;
      const res = await this.rawFetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: init.signal,
      });
      if (res.ok) return res;
      last = await errorFromResponse(res);
      if (res.status !== 401) throw last;
      auth.renew(attempt);
    }
    throw last!;
  }

  /**
   * An authenticated JSON call to any route of the oracle (a plugin's too): `body` sent as JSON, the reply parsed
   * and, given a `schema` (zod, or anything with `parse`), checked by it. Errors as `request`'s.
   * @example
   * const ledger = await client.json<{ owed: number }>('GET', '/credits/ledger');
   * const { call } = await client.json('GET', `/calls/${callId}`, CallResponseSchema);
   * await client.json('POST', '/credits/contract', undefined, {});
   */
  async json<T = unknown>(method: string, path: string, schema?: { parse(v: unknown): T }, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    const value: unknown = await res.json();
    return schema ? schema.parse(value) : (value as T);
  }

  private async publicJson<T>(path: string, schema: { parse(v: unknown): T }): Promise<T> {
    const res = await this.rawFetch(path, { headers: { accept: 'application/json' } });
    if (!res.ok) throw await errorFromResponse(res);
    return schema.parse(await res.json());
  }

  // ---- public routes ------------------------------------------------------
  health(): Promise<P.HealthResponse> {
    return this.publicJson('/health', P.HealthResponseSchema);
  }
  async ready(): Promise<{ status: number; body: unknown }> {
    const res = await this.rawFetch('/ready', { headers: { accept: 'application/json' } });
    return { status: res.status, body: await res.json().catch(() => null) };
  }
  models(): Promise<P.ModelsResponse> {
    return this.publicJson('/models', P.ModelsResponseSchema);
  }

  // ---- sessions -----------------------------------------------------------
  createSession(title?: string): Promise<Session> {
    return this.json('POST', '/sessions', P.CreateSessionResponseSchema, title === undefined ? {} : { title });
  }
  listSessions(page: { limit?: number; offset?: number } = {}): Promise<P.ListSessionsResponse> {
    const q = new URLSearchParams();
    if (page.limit !== undefined) q.set('limit', String(page.limit));
    if (page.offset !== undefined) q.set('offset', String(page.offset));
    const qs = q.toString();
    return this.json('GET', `/sessions${qs ? `?${qs}` : ''}`, P.ListSessionsResponseSchema);
  }
  deleteSession(id: string): Promise<{ message: string }> {
    return this.json('DELETE', `/sessions/${encodeURIComponent(id)}`, P.MessageResponseSchema);
  }
  activeRun(sessionId: string): Promise<P.SessionRunResponse> {
    return this.json('GET', `/sessions/${encodeURIComponent(sessionId)}/run`, P.SessionRunResponseSchema);
  }

  // ---- history ------------------------------------------------------------
  async history(sessionId: string): Promise<Message[]> {
    return (await this.json('GET', `/messages/${encodeURIComponent(sessionId)}`, P.HistoryResponseSchema)).messages;
  }
  historyPage(
    sessionId: string,
    page: { limit?: number; before?: string; after?: string } = {},
  ): Promise<P.PagedHistoryResponse> {
    const q = new URLSearchParams();
    if (page.limit !== undefined) q.set('limit', String(page.limit));
    if (page.before) q.set('before', page.before);
    if (page.after) q.set('after', page.after);
    const qs = q.toString();
    return this.json(
      'GET',
      `/sessions/${encodeURIComponent(sessionId)}/messages${qs ? `?${qs}` : ''}`,
      P.PagedHistoryResponseSchema,
    );
  }

  // ---- delegation ---------------------------------------------------------
  /** Stores the user's current delegation on the oracle (POST /delegation). */
  async storeDelegation(): Promise<{ ok: true; expiration: number | null }> {
    const d = await (await this.auth()).currentDelegation();
    if (!d)
      throw new OracleClientError(
        400,
        'no_delegation',
        'this client has no signer or createDelegation to mint a delegation',
      );
    return this.json('POST', '/delegation', P.PostDelegationResponseSchema, { raw: d.token, expiration: d.expiration });
  }
  delegationStatus(): Promise<{ authorized: boolean; expiration?: number }> {
    return this.json('GET', '/delegation', P.GetDelegationResponseSchema);
  }
  revokeDelegation(): Promise<{ ok: true }> {
    return this.json('DELETE', '/delegation', P.OkResponseSchema);
  }

  // ---- messages -----------------------------------------------------------
  /** Sends without streaming: waits for the whole answer. */
  async sendAndWait(
    sessionId: string,
    message: string,
    o: Omit<SendOptions, 'onEvent' | 'signal'> = {},
  ): Promise<P.SendMessageResponse> {
    return this.json('POST', `/messages/${encodeURIComponent(sessionId)}`, P.SendMessageResponseSchema, {
      message,
      stream: false,
      ...o,
    });
  }

  async abort(sessionId: string): Promise<P.AbortResponse> {
    return this.json('POST', '/messages/abort', P.AbortResponseSchema, { sessionId });
  }

  /** Rejoins a run's stream from event id `after` (GET /runs/:runId?after=N). */
  rejoin(
    runId: string,
    after: number,
    o: { sessionId?: string; onEvent?: OnTurnEvent; signal?: AbortSignal } = {},
  ): ChatStream {
    return this.stream(o.sessionId ?? '', { kind: 'rejoin', runId, after }, o);
  }

  /**
   * Sends a message and streams the turn: iterate the events, or await `result` for the folded turn.
   * @example
   * const stream = client.send(sessionId, 'Weather in Oslo?');
   * for await (const e of stream) if (e.event === 'message') process.stdout.write(e.data.content);
   * const { status, text } = await stream.result;
   */
  send(sessionId: string, message: string, o: SendOptions = {}): ChatStream {
    const body: P.SendMessageBody = { message, stream: true };
    if (o.model) body.model = o.model;
    if (o.metadata) body.metadata = o.metadata;
    if (o.timezone) body.timezone = o.timezone;
    if (o.tools?.length) body.tools = o.tools;
    if (o.agActions?.length) body.agActions = o.agActions;
    return this.stream(sessionId, { kind: 'send', body }, o);
  }

  private stream(
    sessionId: string,
    start: StreamStart,
    o: { onEvent?: OnTurnEvent; signal?: AbortSignal },
  ): ChatStream {
    const queue = eventQueue<AnyEvent>();
    let resolveStarted!: (v: { runId: string; requestId: string }) => void;
    let rejectStarted!: (e: unknown) => void;
    const started = new Promise<{ runId: string; requestId: string }>(
      (a, b) => ((resolveStarted = a), (rejectStarted = b)),
    );
    started.catch(() => {});
    const result = this.follow(sessionId, start, o, queue.push, resolveStarted).then(
      (r) => {
        queue.end();
        return r;
      },
      (e: unknown) => {
        rejectStarted(e);
        queue.end(e);
        throw e;
      },
    );
    result.catch(() => {});
    return {
      sessionId,
      started,
      result,
      abort: () => this.abortStarted(sessionId, started),
      [Symbol.asyncIterator]: queue.iterate,
    };
  }

  /**
   * Reads a turn's events until its `done` frame, folding them with reduceTurn; a stream that ends without it is
   * rejoined from the last event id (at most rejoinAttempts times, with backoff).
   */
  private async follow(
    sessionId: string,
    start: StreamStart,
    o: { onEvent?: OnTurnEvent; signal?: AbortSignal },
    push: (e: AnyEvent) => void,
    onStarted: (ids: { runId: string; requestId: string }) => void,
  ): Promise<TurnResult> {
    let res =
      start.kind === 'send'
        ? await this.openEvents('POST', `/messages/${encodeURIComponent(sessionId)}`, start.body, o.signal)
        : await this.openEvents(
            'GET',
            `/runs/${encodeURIComponent(start.runId)}?after=${start.after}`,
            undefined,
            o.signal,
          );
    const ids = {
      runId: res.headers.get('x-run-id') ?? (start.kind === 'rejoin' ? start.runId : ''),
      requestId: res.headers.get('x-request-id') ?? '',
    };
    let turn = initialTurn(ids);
    onStarted(ids);
    let lastId = start.kind === 'rejoin' ? start.after : 0;
    let rejoins = 0;
    for (;;) {
      let sawDone = false;
      let dropped: unknown;
      try {
        sawDone = await this.readEvents(res, o.signal, (e) => {
          if (e.event !== 'run' && e.id <= lastId) return; // already delivered before a rejoin
          if (e.event !== 'run') lastId = e.id;
          turn = reduceTurn(turn, e);
          o.onEvent?.(e, turn);
          push(e);
        });
      } catch (e) {
        if (o.signal?.aborted) throw e;
        dropped = e;
      }
      if (sawDone) break;
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      // the stream ended without `done`: rejoin from the last event id
      if (!turn.runId || rejoins >= (this.opts.rejoinAttempts ?? 5)) {
        throw dropped ?? new OracleClientError(0, 'stream_dropped', 'the stream ended before its done frame');
      }
      await sleep(backoffMs(rejoins, { baseMs: this.opts.rejoinDelayMs ?? 100, maxMs: Infinity }));
      rejoins++;
      try {
        res = await this.openEvents(
          'GET',
          `/runs/${encodeURIComponent(turn.runId)}?after=${lastId}`,
          undefined,
          o.signal,
        );
      } catch (e) {
        if (OracleClientError.isInstance(e) && e.status >= 400 && e.status < 500) throw e;
        res = new Response(''); // unreachable for now: retry with the next attempt
      }
    }
    return { ...turn, status: turn.status === 'streaming' ? 'failed' : turn.status, rejoins };
  }

  private openEvents(method: 'GET' | 'POST', path: string, body: unknown, signal: AbortSignal | undefined) {
    return this.request(method, path, body, { signal, accept: 'text/event-stream' });
  }

  /** Aborts a streamed run once it started; a run that finished meanwhile is not an error. */
  private async abortStarted(sessionId: string, started: Promise<unknown>): Promise<void> {
    if (!sessionId)
      throw new OracleClientError(
        400,
        'no_session',
        'abort needs the session id of the run (a rejoined stream has none)',
      );
    await started;
    await this.abort(sessionId).catch((e: unknown) => {
      if (!(OracleClientError.isInstance(e) && e.code === 'no_active_run')) throw e;
    });
  }

  /** Reads one SSE response; true when the `done` frame arrived. */
  private async readEvents(
    res: Response,
    signal: AbortSignal | undefined,
    on: (e: AnyEvent) => void,
  ): Promise<boolean> {
    if (!res.body) return false;
    const parser = new OracleEventParser();
    const reader = res.body.getReader();
    const onAbort = () => void reader.cancel().catch(() => {});
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        const events = done ? parser.end() : parser.push(value);
        for (const e of events) {
          on(e);
          if (e.event === 'done') {
            void reader.cancel().catch(() => {});
            return true;
          }
        }
        if (done) return false;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

type StreamStart = { kind: 'send'; body: P.SendMessageBody } | { kind: 'rejoin'; runId: string; after: number };

/** Events queued for async iteration: the reader pushes, a `for await` pulls; end() finishes it, with a failure or not. */
function eventQueue<T>() {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: unknown;
  return {
    push(e: T) {
      items.push(e);
      wake?.();
    },
    end(err?: unknown) {
      ended = true;
      failure = err;
      wake?.();
    },
    async *iterate(): AsyncGenerator<T> {
      for (;;) {
        if (items.length) {
          yield items.shift()!;
          continue;
        }
        if (ended) {
          if (failure) throw failure;
          return;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    },
  };
}
