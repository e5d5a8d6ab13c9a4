/**
 * Several instances serving one oracle (docs/scaling.md): what they share
 * through one Redis (ORACLE_REDIS_URL). Loaded only when that setting is
 * present (runtime.ts imports this module lazily, and this module imports
 * `redis` and the socket.io adapter lazily), so a single instance loads none
 * of it.
 *
 * Keys (P = oraclekit:rt:<oracle DID>):
 *   P:instance:<id>        an instance's lease (PX ORACLE_INSTANCE_LEASE_MS), renewed every third of it
 *   P:owned                HASH runId → instance id: the running turns and who runs them
 *   P:run:<runId>          LIST of the run's events (JSON), index = event id - 1
 *   P:run:<runId>:meta     HASH userDid, sessionId, requestId, owner
 *   P:session:<id>:active  the session's running run id (abort through any instance)
 *   P:used:<cid>           a used invocation (ORACLE_UCAN_REPLAY=strict), until its expiry
 * Channels:
 *   P:run:<runId>          each event of the run as it is appended (after its RPUSH, on the same connection)
 *   P:control              abort a run, settle a client's tool result, where the turn runs
 *
 * A follower on another instance subscribes to the run's channel first,
 * then reads the list: every event is in the list or arrives on the channel
 * after the subscription, so a resume from `after=N` has no gap; events are
 * taken by id, so none is repeated. An instance whose lease lapsed (kill -9,
 * a lost machine) has its running turns ended by whichever instance sees it
 * first: an `error` and a `done` with status failed appended to their event
 * list, their row marked failed in the shared database. A Redis that
 * restarts empty is filled again by each owner's next heartbeat (its runs,
 * their whole event lists), and followers read what they missed from the list.
 */
import { randomUUID } from 'node:crypto';
import type { createClient } from 'redis';
import { initialTurn, reduceTurn, type AnyEvent, type AnyEventInput } from '../../lib/protocol/index.ts';
import { runtimeError } from '../../lib/protocol/errors.ts';
import { Run } from '../runs.ts';

type Client = ReturnType<typeof createClient>;

/** What a run's owner must do on behalf of another instance, and what a reaper writes. */
export interface ClusterHandlers {
  /** A run of this instance is to be aborted (POST /messages/abort or a deleted session on another instance). */
  abort(runId: string, reason: string): void;
  /** A client connected to another instance answered a call awaited here. */
  settle(sessionId: string, toolCallId: string, answer: { result?: unknown; error?: string }): void;
  /** A dead instance's run ended failed with these events: store them (the run's row) and tell the session's clients. */
  reaped(run: { runId: string; sessionId: string; requestId: string }, events: AnyEvent[]): void;
}

export interface ClusterOptions {
  url: string;
  oracleDid: string;
  leaseMs: number;
  /** How long a finished run's events stay in Redis (they are in the database too). */
  retainMs?: number;
  /** How long the first connection may take before the boot fails. */
  connectTimeoutMs?: number;
}

type Control =
  | { type: 'abort'; runId: string; owner: string; reason: string }
  | { type: 'settle'; sessionId: string; toolCallId: string; answer: { result?: unknown; error?: string } };

/** A run of another instance, followed through Redis: a Run fed by the bus that stops following when nobody listens. */
export class RemoteRun extends Run {
  private subscribers = 0;
  onIdle: () => void = () => {};

  override subscribe(after: number, l: (e: AnyEvent) => void): () => void {
    const off = super.subscribe(after, l);
    this.subscribers++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      off();
      if (--this.subscribers === 0) this.onIdle();
    };
  }
}

/** Redis errors become 503 redis_unavailable (the client reconnects by itself). */
function unavailable(e: unknown): never {
  throw runtimeError('redis_unavailable', `the shared Redis (ORACLE_REDIS_URL) does not answer: ${(e as Error).message}; retry shortly`);
}

export class Cluster {
  readonly instanceId = randomUUID();
  readonly leaseMs: number;
  private readonly retainMs: number;
  private readonly p: string;
  private readonly client: Client;
  private readonly sub: Client;
  private readonly adapterSub: Client;
  private handlers: ClusterHandlers | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** This instance's runs, until their event list in Redis is known whole after they ended. */
  private readonly local = new Map<string, Run>();
  private readonly adapterFactory: unknown;

  private constructor(o: ClusterOptions, clients: { client: Client; sub: Client; adapterSub: Client }, adapterFactory: unknown) {
    this.leaseMs = o.leaseMs;
    this.retainMs = o.retainMs ?? 60_000;
    this.p = `oraclekit:rt:${o.oracleDid || 'oracle'}`;
    this.client = clients.client;
    this.sub = clients.sub;
    this.adapterSub = clients.adapterSub;
    this.adapterFactory = adapterFactory;
  }

  /** Connects (three connections: commands, subscriptions, socket.io's adapter); fails the boot when Redis is not there within connectTimeoutMs. */
  static async connect(o: ClusterOptions): Promise<Cluster> {
    const { createClient } = await import('redis');
    const { createAdapter } = await import('@socket.io/redis-adapter');
    let connected = false;
    const make = () => {
      const c = createClient({
        url: o.url,
        disableOfflineQueue: true,
        // at boot: a few tries (about 3 s), then the boot error below; once connected: reconnect for ever
        socket: { connectTimeout: 2000, reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(50 * 2 ** retries, 1000) : retries >= 30 ? cause : 100) },
      }) as unknown as Client;
      c.on('error', () => {}); // surfaced per request as 503 redis_unavailable
      return c;
    };
    const client = make();
    const sub = make();
    const adapterSub = make();
    const timeout = o.connectTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all([client.connect(), sub.connect(), adapterSub.connect()]),
        new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`no answer within ${timeout} ms`)), timeout))),
      ]);
      connected = true;
    } catch (e) {
      for (const c of [client, sub, adapterSub]) c.destroy();
      throw new Error(`ORACLE_REDIS_URL: Redis at ${o.url.replace(/\/\/[^@/]*@/, '//…@')} is unreachable (${(e as Error).message})`, { cause: e });
    } finally {
      clearTimeout(timer);
    }
    // the adapter publishes without catching: while Redis is away each emit would be an unhandled rejection (a crash)
    const pub = new Proxy(client, {
      get(target, prop) {
        if (prop === 'publish') return (...args: Parameters<Client['publish']>) => target.publish(...args).catch(() => 0);
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const cluster = new Cluster(o, { client, sub, adapterSub }, createAdapter(pub, adapterSub, { key: `oraclekit:rt:${o.oracleDid || 'oracle'}:socket.io` }));
    await cluster.sub.subscribe(cluster.k('control'), (m) => cluster.onControl(m));
    await cluster.heartbeat();
    return cluster;
  }

  private k(...parts: string[]): string {
    return [this.p, ...parts].join(':');
  }

  /** Whether Redis answers now (a turn is refused with 503 redis_unavailable when not). */
  get ready(): boolean {
    return this.client.isReady && this.sub.isReady;
  }

  assertReady(): void {
    if (!this.ready) throw runtimeError('redis_unavailable', 'the shared Redis (ORACLE_REDIS_URL) does not answer; retry shortly');
  }

  /** socket.io's Redis adapter: an event emitted to a session's room on any instance reaches its clients on every instance. */
  get socketAdapter(): unknown {
    return this.adapterFactory;
  }

  /** Starts the lease and the reaper; the handlers act for other instances. */
  start(h: ClusterHandlers): void {
    this.handlers = h;
    const tick = () => {
      if (this.closed) return;
      void this.heartbeat()
        .then(() => this.reap())
        .catch(() => {})
        .finally(() => {
          if (!this.closed) this.timer = setTimeout(tick, Math.max(100, Math.floor(this.leaseMs / 3)));
        });
    };
    this.timer = setTimeout(tick, Math.max(100, Math.floor(this.leaseMs / 3)));
  }

  private async heartbeat(): Promise<void> {
    await this.client.set(this.k('instance', this.instanceId), String(Date.now()), { expiration: { type: 'PX', value: this.leaseMs } });
    await this.reannounce();
  }

  /**
   * After Redis lost what this instance wrote (a restart: nothing is
   * persisted, or writes refused while it was away), each of its runs is
   * announced again and its event list rewritten whole, so followers fill
   * their gap from it. A run that ended leaves `local` once its list is
   * known to be whole.
   */
  private async reannounce(): Promise<void> {
    const runs = [...this.local.values()];
    if (runs.length === 0) return;
    const running = runs.filter((r) => !r.finished);
    if (running.length > 0) await this.client.hSet(this.k('owned'), Object.fromEntries(running.map((r) => [r.runId, this.instanceId])));
    // every event counted here had its RPUSH sent before this LLEN, on the same connection
    const checks = await Promise.all(runs.map((r) => ((n) => this.client.lLen(this.k('run', r.runId)).then((len) => ({ r, whole: len === n })))(r.events.length)));
    for (const { r, whole } of checks) {
      if (!whole) {
        const list = this.k('run', r.runId);
        await this.client.eval(REPAIR, { keys: [list], arguments: r.events.map((e) => JSON.stringify(e)) });
        const meta = this.k('run', r.runId, 'meta');
        await this.client.hSet(meta, { userDid: r.userDid, sessionId: r.sessionId, requestId: r.requestId, owner: this.instanceId });
        const ttl = r.finished ? Math.max(1, Math.ceil(this.retainMs / 1000)) : 86_400;
        await this.client.expire(list, ttl);
        await this.client.expire(meta, ttl);
        if (!r.finished) await this.client.set(this.k('session', r.sessionId, 'active'), r.runId, { expiration: { type: 'EX', value: 86_400 } });
      }
      if (r.finished) {
        // what its end wrote may have been refused too (a Redis that kept its data across the restart would keep the run owned and its session busy)
        await this.client.hDel(this.k('owned'), r.runId);
        await this.client.eval(DEL_IF, { keys: [this.k('session', r.sessionId, 'active')], arguments: [r.runId] });
        if (whole) this.local.delete(r.runId);
      }
    }
  }

  // ---- the run-event bus (owner side) ------------------------------------

  /**
   * A run started here: it is announced (owner, session's active run) and
   * each of its events appended and published. Resolves once the
   * announcement is in Redis (never rejects): the stream's reply waits for
   * it, so a client that resumes on another instance at once finds the run.
   */
  own(run: Run): Promise<void> {
    const c = this.client;
    const list = this.k('run', run.runId);
    const meta = this.k('run', run.runId, 'meta');
    const active = this.k('session', run.sessionId, 'active');
    const ignore = () => {}; // Redis down mid-turn: the local stream goes on; the heartbeat rewrites the list once Redis is back
    this.local.set(run.runId, run);
    const announced = Promise.all([
      c.hSet(this.k('owned'), run.runId, this.instanceId),
      c.hSet(meta, { userDid: run.userDid, sessionId: run.sessionId, requestId: run.requestId, owner: this.instanceId }),
    ]).then(ignore, ignore);
    // a safety net: a run's keys never outlive a day, whatever happens to it
    void c.expire(meta, 86_400).catch(ignore);
    void c.set(active, run.runId, { expiration: { type: 'EX', value: 86_400 } }).catch(ignore);
    run.subscribe(0, (e) => {
      const json = JSON.stringify(e);
      void c.rPush(list, json).catch(ignore);
      void c.publish(list, json).catch(ignore);
      if (e.id === 1) void c.expire(list, 86_400).catch(ignore);
      if (e.event === 'done') {
        const s = Math.max(1, Math.ceil(this.retainMs / 1000));
        void c.expire(list, s).catch(ignore);
        void c.expire(meta, s).catch(ignore);
        void c.hDel(this.k('owned'), run.runId).catch(ignore);
        void c.eval(DEL_IF, { keys: [active], arguments: [run.runId] }).catch(ignore);
      }
    });
    return announced;
  }

  // ---- the run-event bus (follower side) ---------------------------------

  /**
   * A run of another instance (or a finished one still in Redis), for GET
   * /runs/:id on this one: undefined when Redis does not know it or it is
   * another user's. Follows it live until its `done` or until nobody listens.
   */
  async follow(runId: string, userDid: string): Promise<RemoteRun | undefined> {
    try {
      const meta = await this.client.hGetAll(this.k('run', runId, 'meta'));
      if (!meta.userDid || meta.userDid !== userDid) return undefined;
      const run = new RemoteRun({ runId, requestId: meta.requestId, sessionId: meta.sessionId!, userDid });
      run.status = 'running';
      const channel = this.k('run', runId);
      const early: AnyEvent[] = [];
      let backfilled = false;
      const take = (e: AnyEvent) => {
        if (e.id !== run.events.length + 1) return; // already taken (or a gap that the list fills)
        const { id: _id, ...input } = e;
        run.emit(input as AnyEventInput);
        if (e.event === 'done') stop();
      };
      const listener = (m: string) => {
        const e = JSON.parse(m) as AnyEvent;
        if (backfilled) take(e);
        else early.push(e);
      };
      let stopped = false;
      let refill: NodeJS.Timeout | undefined;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        clearInterval(refill);
        void this.sub.unsubscribe(channel, listener).catch(() => {});
      };
      run.onIdle = stop;
      await this.sub.subscribe(channel, listener);
      const stored = await this.client.lRange(channel, 0, -1);
      backfilled = true;
      for (const raw of stored) take(JSON.parse(raw) as AnyEvent);
      for (const e of early) take(e);
      if (run.finished || run.events.at(-1)?.event === 'done') stop();
      // events missed on the channel (Redis restarting, a reconnection) are read from the list, which the owner rewrites whole
      if (!stopped) {
        refill = setInterval(() => {
          void this.client
            .lRange(channel, run.events.length, -1)
            .then((rows) => {
              for (const raw of rows) take(JSON.parse(raw) as AnyEvent);
            })
            .catch(() => {});
        }, Math.max(100, Math.floor(this.leaseMs / 3)));
      }
      return run;
    } catch (e) {
      if ((e as { code?: string }).code === 'redis_unavailable') throw e;
      return unavailable(e);
    }
  }

  /** 409 run_in_progress when the session's turn runs on another instance that is alive (this one's own runs: RunManager). */
  async assertSessionFree(sessionId: string): Promise<void> {
    let busy = false;
    try {
      const runId = await this.client.get(this.k('session', sessionId, 'active'));
      const owner = runId ? await this.client.hGet(this.k('owned'), runId) : undefined;
      busy = !!owner && owner !== this.instanceId && (await this.client.exists(this.k('instance', owner))) === 1;
    } catch (e) {
      unavailable(e);
    }
    if (busy) throw runtimeError('run_in_progress', 'this session already has a running run (on another instance of this oracle); abort it or rejoin it');
  }

  // ---- control: abort and client results ---------------------------------

  /** Aborts the session's running run wherever it runs; resolves with its id, or undefined when the session has none. */
  async abortSession(sessionId: string, reason: string): Promise<string | undefined> {
    try {
      const runId = await this.client.get(this.k('session', sessionId, 'active'));
      if (!runId) return undefined;
      const owner = await this.client.hGet(this.k('owned'), runId);
      if (!owner) return undefined;
      await this.client.publish(this.k('control'), JSON.stringify({ type: 'abort', runId, owner, reason } satisfies Control));
      return runId;
    } catch (e) {
      return unavailable(e);
    }
  }

  /** A client's answer that no call of this instance awaited: the instance running the turn settles it. */
  settleElsewhere(sessionId: string, toolCallId: string, answer: { result?: unknown; error?: string }): void {
    void this.client.publish(this.k('control'), JSON.stringify({ type: 'settle', sessionId, toolCallId, answer } satisfies Control)).catch(() => {});
  }

  private onControl(raw: string): void {
    let m: Control;
    try {
      m = JSON.parse(raw) as Control;
    } catch {
      return;
    }
    if (m.type === 'abort' && m.owner === this.instanceId) this.handlers?.abort(m.runId, m.reason);
    else if (m.type === 'settle') this.handlers?.settle(m.sessionId, m.toolCallId, m.answer);
  }

  // ---- replay (ORACLE_UCAN_REPLAY=strict) --------------------------------

  /** Marks an invocation used on every instance; false when one of them had seen it already. */
  async claimInvocation(cid: string, expiresAt: number): Promise<boolean> {
    try {
      const r = await this.client.set(this.k('used', cid), '1', { condition: 'NX', expiration: { type: 'EXAT', value: Math.max(expiresAt, Math.floor(Date.now() / 1000) + 1) } });
      return r === 'OK';
    } catch (e) {
      return unavailable(e);
    }
  }

  // ---- the reaper ----------------------------------------------------------

  /** Runs owned by an instance whose lease lapsed end failed: their event list gets an error and a done, their row is stored. */
  private async reap(): Promise<void> {
    const owned = await this.client.hGetAll(this.k('owned'));
    const owners = [...new Set(Object.values(owned))].filter((o) => o !== this.instanceId);
    if (owners.length === 0) return;
    const alive = await Promise.all(owners.map((o) => this.client.exists(this.k('instance', o))));
    const dead = new Set(owners.filter((_, i) => alive[i] === 0));
    for (const [runId, owner] of Object.entries(owned)) {
      if (!dead.has(owner)) continue;
      // HDEL answers 1 to one instance only: that one ends the run
      if ((await this.client.hDel(this.k('owned'), runId)) !== 1) continue;
      const list = this.k('run', runId);
      const meta = await this.client.hGetAll(this.k('run', runId, 'meta'));
      const events = (await this.client.lRange(list, 0, -1)).map((r) => JSON.parse(r) as AnyEvent);
      if (events.at(-1)?.event === 'done') continue;
      let turn = initialTurn({ runId, requestId: meta.requestId ?? '' });
      for (const e of events) turn = reduceTurn(turn, e);
      const tail: AnyEvent[] = [
        { id: events.length + 1, event: 'error', data: { error: 'the instance running this turn stopped (its lease lapsed); send the message again', code: 'internal_error', kind: 'internal', retryable: true, timestamp: new Date().toISOString() } },
        { id: events.length + 2, event: 'done', data: { status: 'failed', partialText: turn.text } },
      ];
      for (const e of tail) {
        const json = JSON.stringify(e);
        await this.client.rPush(list, json);
        await this.client.publish(list, json);
      }
      const s = Math.max(1, Math.ceil(this.retainMs / 1000));
      await this.client.expire(list, s);
      await this.client.expire(this.k('run', runId, 'meta'), s);
      if (meta.sessionId) await this.client.eval(DEL_IF, { keys: [this.k('session', meta.sessionId, 'active')], arguments: [runId] });
      this.handlers?.reaped({ runId, sessionId: meta.sessionId ?? '', requestId: meta.requestId ?? '' }, [...events, ...tail]);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    // a clean stop gives its lease back at once (its runs were aborted and ended before)
    await this.client.del(this.k('instance', this.instanceId)).catch(() => {});
    for (const c of [this.sub, this.adapterSub, this.client]) {
      try {
        if (c.isOpen) await c.close();
        else c.destroy();
      } catch {
        c.destroy();
      }
    }
  }
}

/** Rewrites a run's event list (KEYS[1]) as ARGV, unless it already holds that many events. */
const REPAIR = `
if redis.call('LLEN', KEYS[1]) == #ARGV then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #ARGV, 1000 do redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
return 1
`;

/** Deletes KEYS[1] only when it still holds ARGV[1] (a session's active run: a later run's key is left alone). */
const DEL_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
