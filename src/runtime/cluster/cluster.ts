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
 *   P:run:<runId>          each batch of the run's events as it is appended: a JSON array, published after its RPUSH on
 * the same connection
 *   P:control              abort a run, settle a client's tool result, where the turn runs
 *
 * The events a run emits in one turn of the event loop go out together: one
 * RPUSH of all of them and one PUBLISH of the batch. Those appends have no
 * client-side timeout (node-redis's default 5 s would drop a command that
 * merely waited in the queue, e.g. behind a blocked event loop, and leave a
 * gap in the list); a request that waits for an answer (a follower, a turn's
 * checks, an abort, a replay claim) waits at most REQUEST_WAIT_MS of event-loop
 * time and then gets 503 redis_unavailable naming what failed. An append that
 * fails (Redis gone) marks the run's list as behind: its appends pause until
 * the owner's next heartbeat rewrites the list whole, then go on.
 *
 * A follower on another instance subscribes to the run's channel first,
 * then reads the list: every event is in the list or arrives on the channel
 * after the subscription, so a resume from `after=N` has no gap; events are
 * taken by id, so none is repeated, and a gap is waited out (never skipped)
 * until the list is rewritten. An instance whose lease lapsed (kill -9,
 * a lost machine) has its running turns ended by whichever instance sees it
 * first: an `error` and a `done` with status failed appended to their event
 * list, their row marked failed in the shared database. A Redis that
 * restarts empty is filled again by each owner's next heartbeat (its runs,
 * their whole event lists), and followers read what they missed from the list.
 */
import { randomUUID } from 'node:crypto';
import { createRedisClient, type RedisClient } from '../redis.ts';
import { initialTurn, reduceTurn, type AnyEvent, type AnyEventInput } from '../../lib/protocol/index.ts';
import { runtimeError } from '../../lib/protocol/errors.ts';
import { Run } from '../run.ts';

type Client = RedisClient;

/** What a run's owner must do on behalf of another instance, and what a reaper writes. */
interface ClusterHandlers {
  /** A run of this instance is to be aborted (POST /messages/abort or a deleted session on another instance). */
  abort(runId: string, reason: string): void;
  /** A client connected to another instance answered a call awaited here. */
  settle(sessionId: string, toolCallId: string, answer: { result?: unknown; error?: string }): void;
  /**
   * A dead instance's run ended failed with these events: store them (the run's row) and tell the session's clients.
   */
  reaped(run: { runId: string; sessionId: string; requestId: string }, events: AnyEvent[]): void;
}

interface ClusterOptions {
  url: string;
  oracleDid: string;
  leaseMs: number;
  /** How long a finished run's events stay in Redis (they are in the database too). */
  retainMs?: number;
  /** How long the first connection may take before the boot fails. */
  connectTimeoutMs?: number;
  /** The runtime's clock, ms since the epoch (default the system's): heartbeat stamps, the reaper's error events. */
  now?: () => number;
}

/** How long a request waits for Redis (event-loop time: a loop blocked by other work does not count) before its 503. */
const REQUEST_WAIT_MS = 10_000;

/**
 * The Redis side of one of this instance's runs: how many of its events were sent (RPUSH issued, in order) and whether
 * the list fell behind.
 */
interface RunLog {
  run: Run;
  /** Events whose RPUSH was issued: run.events[0, sent). */
  sent: number;
  /** A flush is scheduled for the end of this turn of the event loop. */
  scheduled: boolean;
  /** An append failed: the list may miss events; appends wait for the heartbeat's rewrite. */
  behind: boolean;
}

type Control =
  | { type: 'abort'; runId: string; owner: string; reason: string }
  | { type: 'settle'; sessionId: string; toolCallId: string; answer: { result?: unknown; error?: string } };

/** A run of another instance, followed through Redis: a Run fed by the bus that stops following when nobody listens. */
class RemoteRun extends Run {
  private subscribers = 0;
  onIdle: () => void = () => {};

  override subscribe(after: number, l: (e: AnyEvent) => void): () => void {
    // a follower may be behind the client (the owner appends a loop turn's events after writing them to its own
    // stream): events up to `after` arriving live are not the subscriber's
    const off = super.subscribe(after, (e) => {
      if (e.id > after) l(e);
    });
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

/** What went wrong, never empty (node-redis's TimeoutError has an empty message). */
function describe(e: unknown): string {
  if (e instanceof Error) return e.message || e.name || e.constructor.name;
  return String(e) || 'unknown error';
}

/** A request's Redis error becomes 503 redis_unavailable, naming what failed (the client reconnects by itself). */
function unavailable(what: string, e: unknown): never {
  if ((e as { code?: string }).code === 'redis_unavailable') throw e;
  throw runtimeError(
    'redis_unavailable',
    `the shared Redis (ORACLE_REDIS_URL) failed ${what}: ${describe(e)}; retry shortly`,
  );
}

const LATE = Symbol('late');

/**
 * p, or LATE once it has taken more than ms of event-loop time: time the loop
 * spent blocked (a busy instance, a GC pause) counts for at most two steps, so
 * replies that are already in the socket are read before anything is late.
 * The command itself is never dropped.
 */
function within<T>(p: Promise<T>, ms: number): Promise<T | typeof LATE> {
  return new Promise((resolve, reject) => {
    const step = 100;
    let waited = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      waited += Math.min(now - last, 2 * step);
      last = now;
      if (waited >= ms) {
        clearInterval(timer);
        resolve(LATE);
      }
    }, step);
    timer.unref();
    p.then(
      (v) => (clearInterval(timer), resolve(v)),
      (e: unknown) => (clearInterval(timer), reject(e)),
    );
  });
}

export class Cluster {
  readonly instanceId = randomUUID();
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly retainMs: number;
  private readonly p: string;
  private readonly client: Client;
  private readonly sub: Client;
  private readonly adapterSub: Client;
  private handlers: ClusterHandlers | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** This instance's runs, until their event list in Redis is known whole after they ended. */
  private readonly local = new Map<string, RunLog>();
  private readonly adapterFactory: unknown;

  private constructor(
    o: ClusterOptions,
    clients: { client: Client; sub: Client; adapterSub: Client },
    adapterFactory: unknown,
  ) {
    this.leaseMs = o.leaseMs;
    this.now = o.now ?? Date.now;
    this.retainMs = o.retainMs ?? 60_000;
    this.p = `oraclekit:rt:${o.oracleDid || 'oracle'}`;
    this.client = clients.client;
    this.sub = clients.sub;
    this.adapterSub = clients.adapterSub;
    this.adapterFactory = adapterFactory;
  }

  /**
   * Connects (three connections: commands, subscriptions, socket.io's adapter); fails the boot when Redis is not there
   * within connectTimeoutMs.
   */
  static async connect(o: ClusterOptions): Promise<Cluster> {
    const { createAdapter } = await import('@socket.io/redis-adapter');
    // requests bound their own wait (`answer`); at boot a few tries (about 3 s), then the boot error below; once
    // connected, reconnect for ever; errors surface per request as 503 redis_unavailable
    const make = () =>
      createRedisClient({
        url: o.url,
        connectTimeoutMs: 2000,
        bootTries: 30,
        reconnect: { baseMs: 50, maxMs: 1000 },
        noCommandTimeout: true,
      });
    const [client, sub, adapterSub] = await Promise.all([make(), make(), make()]);
    const timeout = o.connectTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.all([client.connect(), sub.connect(), adapterSub.connect()]),
        new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`no answer within ${timeout} ms`)), timeout))),
      ]);
    } catch (e) {
      for (const c of [client, sub, adapterSub]) c.destroy();
      throw new Error(
        `ORACLE_REDIS_URL: Redis at ${o.url.replace(/\/\/[^@/]*@/, '//…@')} is unreachable (${(e as Error).message})`,
        { cause: e },
      );
    } finally {
      clearTimeout(timer);
    }
    // the adapter publishes without catching: while Redis is away each emit would be an unhandled rejection (a crash)
    const pub = new Proxy(client, {
      get(target, prop) {
        if (prop === 'publish')
          return (...args: Parameters<Client['publish']>) => target.publish(...args).catch(() => 0);
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const cluster = new Cluster(
      o,
      { client, sub, adapterSub },
      createAdapter(pub, adapterSub, { key: `oraclekit:rt:${o.oracleDid || 'oracle'}:socket.io` }),
    );
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

  /**
   * Refuses a turn while a connection to Redis is down (never because of a long queue: appends are never dropped,
   * requests wait their turn).
   */
  assertReady(): void {
    if (this.ready) return;
    const down = [this.client.isReady ? '' : 'commands', this.sub.isReady ? '' : 'subscriptions'].filter(Boolean);
    const which = down.length === 2 ? 'the commands and subscriptions connections are' : `the ${down[0]} connection is`;
    throw runtimeError(
      'redis_unavailable',
      `the shared Redis (ORACLE_REDIS_URL) is not connected (${which} reconnecting); retry shortly`,
    );
  }

  /** Event appends issued and not yet answered (named in a late request's 503). */
  private appending = 0;

  /** A request's Redis work: its answer, or 503 redis_unavailable naming what failed or what did not answer in time. */
  private async answer<T>(what: string, work: () => Promise<T>): Promise<T> {
    let r: T | typeof LATE;
    try {
      r = await within(work(), REQUEST_WAIT_MS);
    } catch (e) {
      return unavailable(what, e);
    }
    if (r === LATE)
      throw runtimeError(
        'redis_unavailable',
        `the shared Redis (ORACLE_REDIS_URL) did not answer ${what} within ${REQUEST_WAIT_MS} ms (${this.appending} event appends of this instance waiting); retry shortly`,
      );
    return r;
  }

  /**
   * socket.io's Redis adapter: an event emitted to a session's room on any instance reaches its clients on every
   * instance.
   */
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
    await this.client.set(this.k('instance', this.instanceId), String(this.now()), {
      expiration: { type: 'PX', value: this.leaseMs },
    });
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
    const logs = [...this.local.values()];
    if (logs.length === 0) return;
    const running = logs.filter((l) => !l.run.finished);
    if (running.length > 0)
      await this.client.hSet(this.k('owned'), Object.fromEntries(running.map((l) => [l.run.runId, this.instanceId])));
    // every event counted here (sent) had its RPUSH issued before this LLEN, on the same connection
    const checks = await Promise.all(
      logs.map((l) =>
        ((n) => this.client.lLen(this.k('run', l.run.runId)).then((len) => ({ l, whole: len === n && !l.behind })))(
          l.sent,
        ),
      ),
    );
    for (const { l, whole } of checks) {
      const r = l.run;
      if (!whole) {
        const list = this.k('run', r.runId);
        // appends wait while the list is rewritten with every event so far; then they go on from there
        l.behind = true;
        const events = r.events.slice();
        await this.client.eval(REPAIR, { keys: [list], arguments: events.map((e) => JSON.stringify(e)) });
        l.sent = events.length;
        l.behind = false;
        this.flush(l);
        const meta = this.k('run', r.runId, 'meta');
        await this.client.hSet(meta, {
          userDid: r.userDid,
          sessionId: r.sessionId,
          requestId: r.requestId,
          owner: this.instanceId,
        });
        const ttl = r.finished ? Math.max(1, Math.ceil(this.retainMs / 1000)) : 86_400;
        await this.client.expire(list, ttl);
        await this.client.expire(meta, ttl);
        if (!r.finished)
          await this.client.set(this.k('session', r.sessionId, 'active'), r.runId, {
            expiration: { type: 'EX', value: 86_400 },
          });
      }
      if (r.finished) {
        // what its end wrote may have been refused too (a Redis that kept its data across the restart would keep the
        // run owned and its session busy)
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
    const meta = this.k('run', run.runId, 'meta');
    const active = this.k('session', run.sessionId, 'active');
    const ignore = () => {}; // Redis down mid-turn: the local stream goes on; the heartbeat rewrites the list once Redis is back
    const log: RunLog = { run, sent: 0, scheduled: false, behind: false };
    this.local.set(run.runId, log);
    const announced = Promise.all([
      c.hSet(this.k('owned'), run.runId, this.instanceId),
      c.hSet(meta, {
        userDid: run.userDid,
        sessionId: run.sessionId,
        requestId: run.requestId,
        owner: this.instanceId,
      }),
    ]).then(ignore, ignore);
    // a safety net: a run's keys never outlive a day, whatever happens to it
    void c.expire(meta, 86_400).catch(ignore);
    void c.set(active, run.runId, { expiration: { type: 'EX', value: 86_400 } }).catch(ignore);
    // the events of one turn of the event loop go out together (one RPUSH, one PUBLISH)
    run.subscribe(0, () => {
      if (log.scheduled) return;
      log.scheduled = true;
      setImmediate(() => {
        log.scheduled = false;
        this.flush(log);
      });
    });
    return announced;
  }

  /**
   * Appends the run's events not sent yet: one RPUSH of all of them, then one PUBLISH of the batch (a JSON array), in
   * that order on one connection.
   */
  private flush(log: RunLog): void {
    const { run } = log;
    if (log.behind || log.sent >= run.events.length) return;
    const c = this.client;
    const list = this.k('run', run.runId);
    const batch = run.events.slice(log.sent);
    const first = log.sent === 0;
    log.sent = run.events.length;
    const values = batch.map((e) => JSON.stringify(e));
    const ignore = () => {};
    this.appending++;
    void c
      .rPush(list, values)
      .catch(() => {
        // Redis gone mid-append: the list misses these events; appends pause until the heartbeat rewrites it whole
        log.behind = true;
      })
      .finally(() => this.appending--);
    void c.publish(list, `[${values.join(',')}]`).catch(ignore);
    if (first) void c.expire(list, 86_400).catch(ignore);
    if (batch.at(-1)?.event === 'done') {
      const s = Math.max(1, Math.ceil(this.retainMs / 1000));
      void c.expire(list, s).catch(ignore);
      void c.expire(this.k('run', run.runId, 'meta'), s).catch(ignore);
      void c.hDel(this.k('owned'), run.runId).catch(ignore);
      void c.eval(DEL_IF, { keys: [this.k('session', run.sessionId, 'active')], arguments: [run.runId] }).catch(ignore);
    }
  }

  // ---- the run-event bus (follower side) ---------------------------------

  /**
   * A run of another instance (or a finished one still in Redis), for GET
   * /runs/:id on this one: undefined when Redis does not know it or it is
   * another user's. Follows it live until its `done` or until nobody listens.
   */
  async follow(runId: string, userDid: string): Promise<RemoteRun | undefined> {
    const meta = await this.answer(`HGETALL of run ${runId}`, () => this.client.hGetAll(this.k('run', runId, 'meta')));
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
    // a batch of events (a JSON array; a single event object from an older instance is taken too)
    const listener = (m: string) => {
      const got = JSON.parse(m) as AnyEvent | AnyEvent[];
      for (const e of Array.isArray(got) ? got : [got]) {
        if (backfilled) take(e);
        else early.push(e);
      }
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
    let stored: string[];
    try {
      stored = await this.answer(`SUBSCRIBE and LRANGE of run ${runId}`, async () => {
        await this.sub.subscribe(channel, listener);
        return this.client.lRange(channel, 0, -1);
      });
    } catch (e) {
      stop();
      throw e;
    }
    backfilled = true;
    for (const raw of stored) take(JSON.parse(raw) as AnyEvent);
    for (const e of early) take(e);
    if (run.finished || run.events.at(-1)?.event === 'done') stop();
    // events missed on the channel (Redis restarting, a reconnection) are read from the list, which the owner rewrites
    // whole
    if (!stopped) {
      refill = setInterval(
        () => {
          void this.client
            .lRange(channel, run.events.length, -1)
            .then((rows) => {
              for (const raw of rows) take(JSON.parse(raw) as AnyEvent);
            })
            .catch(() => {});
        },
        Math.max(100, Math.floor(this.leaseMs / 3)),
      );
    }
    return run;
  }

  /**
   * 409 run_in_progress when the session's turn runs on another instance that is alive (this one's own runs:
   * RunManager).
   */
  async assertSessionFree(sessionId: string): Promise<void> {
    const busy = await this.answer(`the check of session ${sessionId}'s running turn`, async () => {
      const runId = await this.client.get(this.k('session', sessionId, 'active'));
      const owner = runId ? await this.client.hGet(this.k('owned'), runId) : undefined;
      return !!owner && owner !== this.instanceId && (await this.client.exists(this.k('instance', owner))) === 1;
    });
    if (busy)
      throw runtimeError(
        'run_in_progress',
        'this session already has a running run (on another instance of this oracle); abort it or rejoin it',
      );
  }

  // ---- control: abort and client results ---------------------------------

  /**
   * Aborts the session's running run wherever it runs; resolves with its id, or undefined when the session has none.
   */
  async abortSession(sessionId: string, reason: string): Promise<string | undefined> {
    return this.answer(`the abort of session ${sessionId}'s running turn`, async () => {
      const runId = await this.client.get(this.k('session', sessionId, 'active'));
      if (!runId) return undefined;
      const owner = await this.client.hGet(this.k('owned'), runId);
      if (!owner) return undefined;
      await this.client.publish(
        this.k('control'),
        JSON.stringify({ type: 'abort', runId, owner, reason } satisfies Control),
      );
      return runId;
    });
  }

  /** A client's answer that no call of this instance awaited: the instance running the turn settles it. */
  settleElsewhere(sessionId: string, toolCallId: string, answer: { result?: unknown; error?: string }): void {
    void this.client
      .publish(this.k('control'), JSON.stringify({ type: 'settle', sessionId, toolCallId, answer } satisfies Control))
      .catch(() => {});
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
  /** Whether an invocation was claimed (used) on any instance and is still remembered. */
  async wasClaimed(cid: string): Promise<boolean> {
    const n = await this.answer('the check of a used invocation (strict replay)', () =>
      this.client.exists(this.k('used', cid)),
    );
    return n === 1;
  }

  async claimInvocation(cid: string, expiresAt: number): Promise<boolean> {
    const r = await this.answer('the claim of an invocation (strict replay)', () =>
      this.client.set(this.k('used', cid), '1', {
        condition: 'NX',
        // Redis expires the key on its own clock, which is the system's, not the runtime's (a test's clock may be
        // years off): the floor keeps the claim from being set already expired there
        expiration: { type: 'EXAT', value: Math.max(expiresAt, Math.floor(Date.now() / 1000) + 1) },
      }),
    );
    return r === 'OK';
  }

  // ---- the reaper ----------------------------------------------------------

  /**
   * Runs owned by an instance whose lease lapsed end failed: their event list gets an error and a done, their row is
   * stored.
   */
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
        {
          id: events.length + 1,
          event: 'error',
          data: {
            error: 'the instance running this turn stopped (its lease lapsed); send the message again',
            code: 'internal_error',
            kind: 'internal',
            retryable: true,
            timestamp: new Date(this.now()).toISOString(),
          },
        },
        { id: events.length + 2, event: 'done', data: { status: 'failed', partialText: turn.text } },
      ];
      const values = tail.map((e) => JSON.stringify(e));
      await this.client.rPush(list, values);
      await this.client.publish(list, `[${values.join(',')}]`);
      const s = Math.max(1, Math.ceil(this.retainMs / 1000));
      await this.client.expire(list, s);
      await this.client.expire(this.k('run', runId, 'meta'), s);
      if (meta.sessionId)
        await this.client.eval(DEL_IF, { keys: [this.k('session', meta.sessionId, 'active')], arguments: [runId] });
      this.handlers?.reaped({ runId, sessionId: meta.sessionId ?? '', requestId: meta.requestId ?? '' }, [
        ...events,
        ...tail,
      ]);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    // what its runs emitted last (their end) goes out before the connection closes
    for (const l of this.local.values()) this.flush(l);
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
