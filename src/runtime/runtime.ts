/**
 * The runtime core, independent of any HTTP server: it ties together its
 * seams — the database (database.ts), the model registry (models.ts), turn
 * admission (turn-admission.ts), the plugin host (plugin-host.ts) — with the
 * authenticator, runs and the agent. createOracle (oracle.ts) wraps it with
 * its fastify plugin and socket.io; host services raise events (realtime.ts,
 * runs) that the transports subscribe to, so the core knows no transport.
 */
import type { ModelMessage } from 'ai';
import type { Storage } from '../storage/storage.ts';
import { RUNTIME_MIGRATIONS } from './migrations.ts';
import { createPluginContext } from './plugin-context.ts';
import { installOutboundTransport } from './outbound.ts';
import { RuntimeStore } from './store.ts';
import { openRuntimeDatabase } from './database.ts';
import { isStorageFault } from '../storage/faults.ts';
import {
  BootError,
  consoleBootLogger,
  logBoot,
  mergePlugins,
  PluginStatusTracker,
  resolvePlugins,
  wouldRun,
  type BootLogger,
  type PluginStatusListener,
} from './boot.ts';
import {
  type AnyPluginTool,
  type OracleConfig,
  type OraclePlugin,
  type PluginHost,
  type PreemptedTurn,
  type TurnCharge,
  type TurnRequest,
} from './plugin.ts';
import { BUNDLED_PLUGINS, MISSING_PLUGINS } from './plugins/index.ts';
import { missingFor, missingLine, type MissingPlugin } from './plugins/packaged.ts';
import { metaTools } from './meta-tools.ts';
import { RunManager } from './runs.ts';
import { TurnAdmission } from './turn-admission.ts';
import { createPluginHost, mergeErrorTables, PluginSet, type HostedPlugin } from './plugin-host.ts';
import { ModelRegistry, type OracleModel } from './models.ts';
import type { OracleAppOptions, OracleHooks } from './options.ts';
import { hostPolicy, isLoopbackAddress, type HostPolicy } from './host-check.ts';
import type { Run } from './run.ts';
import { createRuntimeLog, logRunEvent, type RuntimeLog } from './log.ts';
import type { Cluster } from './cluster/cluster.ts';
import { EarlyTurn, rehearseTurn, runTurn, type AgentDeps, type TurnInput } from './agent/index.ts';
import { transcript } from '../lib/protocol/messages.ts';
import { Authenticator } from './auth.ts';
import { runtimeError } from '../lib/protocol/errors.ts';
import type { ErrorTable } from '../lib/errors.ts';
import { RealtimeHub } from './realtime.ts';
import { parseRuntimeEnv, type RuntimeEnv } from './settings.ts';
import { ModelCheck } from './model-check.ts';
import type { PluginsStatus, Session } from '../lib/protocol/index.ts';
import { didFromMnemonic, signerFromMnemonic, type Signer } from '../lib/keys/keys.ts';

export type { OracleAppOptions, OracleHooks } from './options.ts';
export type { OracleModel } from './models.ts';

type AnyPlugin = OraclePlugin<unknown>;

export class OracleRuntime {
  readonly config: OracleConfig;
  readonly env: Record<string, string | undefined>;
  /** The runtime's own variables, parsed once at boot (settings.ts); options override them. */
  readonly settings: RuntimeEnv;
  readonly log: BootLogger;
  /** Requests (createOracleApp), failed turns and failed tool calls (log.ts). */
  readonly pino: RuntimeLog;
  readonly db: Storage;
  /** Resolves once the runtime's tables are migrated and the orphan runs failed; the host awaits it before serving. */
  readonly storeReady: Promise<void>;
  private readonly ownsDb: boolean;
  readonly store: RuntimeStore;
  readonly oracleDid: string;
  readonly tracker: PluginStatusTracker;
  readonly runs: RunManager;
  /** Set when the instances of this oracle share a Redis (connectCluster). */
  cluster: Cluster | undefined;
  readonly auth: Authenticator;
  readonly hooks: OracleHooks;
  readonly heartbeatMs: number;
  /** The clock (OracleAppOptions.now). */
  readonly now: () => number;
  readonly options: OracleAppOptions;
  /** Events for sessions' realtime clients (socket.ts subscribes) and their answers. */
  readonly realtime = new RealtimeHub();
  /** The shared error codes and every resolved plugin's own (docs/plugins.md, "Errors"), merged at boot. */
  readonly errors: ErrorTable;
  /**
   * Whether the default model's endpoint answers (model-check.ts); undefined when a model is given or none is
   * configured.
   */
  readonly modelCheck: ModelCheck | undefined;
  /** Which model a turn runs on (models.ts). */
  private readonly modelRegistry: ModelRegistry;
  /** The turn limit and the turn gates (turn-admission.ts). */
  private readonly admission: TurnAdmission;
  /** The packaged plugins (plugins/packaged.ts) this oracle goes without: their routes name the package to add. */
  readonly missingPlugins: MissingPlugin[];
  /** The resolved plugins with their contexts and tools (plugin-host.ts). */
  readonly plugins: PluginSet;
  private readonly meta: Record<string, AnyPluginTool>;
  private signer: Signer | undefined;
  private signerPromise: Promise<void> | undefined;
  private started = false;
  /** Runtime services handed to plugins (PluginContext.host): they raise events, never call a transport. */
  readonly host: PluginHost;

  constructor(o: OracleAppOptions) {
    installOutboundTransport();
    this.options = o;
    this.config = o.config;
    this.env = o.env ?? process.env;
    this.log = o.logger ?? consoleBootLogger;
    this.hooks = o.hooks ?? {};
    this.heartbeatMs = o.heartbeatMs ?? 15_000;
    this.now = o.now ?? Date.now;
    if (!o.config || typeof o.config.name !== 'string' || o.config.name === '')
      throw new BootError(
        "[boot-error] config.name is required (oracle.config.json). Set 'name' in oracle.config.json",
      );
    const settings = parseRuntimeEnv(this.env);
    this.settings = settings;
    this.pino = o.pino ?? createRuntimeLog(settings.LOG_LEVEL);
    const bundled = (o.bundledPlugins ?? BUNDLED_PLUGINS) as AnyPlugin[];
    const merged = mergePlugins(bundled, (o.plugins ?? []) as AnyPlugin[]);
    const runs = (p: AnyPlugin) => wouldRun(p, o.features ?? {}, this.env, o.config);
    this.missingPlugins = missingFor(MISSING_PLUGINS, merged, o.features ?? {}, bundled, runs);
    const all = merged.filter((p) => !this.missingPlugins.some((m) => m.name === p.name));
    const result = resolvePlugins(all, o.features ?? {}, this.env, o.config);
    for (const m of this.missingPlugins)
      result.excluded.push({ plugin: m.name, reason: m.error === undefined ? 'not installed' : 'failed to load' });
    this.errors = mergeErrorTables(result.ordered.map((r) => r.plugin));
    this.modelRegistry = new ModelRegistry({ config: o.config, settings, given: o.model, hint: o.modelHint });
    this.oracleDid = o.config.oracleDid ?? didOfMnemonic(o.signingMnemonic ?? settings.SIGNING_MNEMONIC);
    this.ownsDb = !o.database;
    this.db = o.database ?? openRuntimeDatabase(o, this.env, settings, this.log);
    this.store = new RuntimeStore(this.db, { did: this.oracleDid, name: o.config.name }, this.now);
    this.store.onBackgroundError = (e) => this.log.error(`[store] a background write failed: ${(e as Error).message}`);
    this.storeReady = prepareStore(this.db, this.store, !settings.ORACLE_REDIS_URL);
    this.storeReady.catch(() => {}); // reaches the host through `await runtime.storeReady` (createOracle's plugin)
    this.runs = new RunManager(this.store);
    this.runs.onEvent((run, e) => logRunEvent(this.pino, run, e));
    this.auth = new Authenticator({
      store: this.store,
      oracleDid: this.oracleDid,
      mode: o.ucanAuth ?? settings.ORACLE_UCAN_AUTH,
      replay: o.ucanReplay ?? settings.ORACLE_UCAN_REPLAY,
      delegationMaxTtlSeconds: o.delegationMaxTtlSeconds ?? settings.ORACLE_UCAN_DELEGATION_MAX_TTL_S,
      signingKeyLoaded: () => this.signer !== undefined,
      storeReady: this.storeReady,
      allowedUsers: o.allowedUsers ?? settings.ORACLE_ALLOWED_USERS,
      now: this.now,
    });
    this.admission = new TurnAdmission(o.userTurnsPerMinute ?? settings.ORACLE_USER_TURNS_PER_MINUTE, () =>
      this.activePlugins(),
    );
    this.host = createPluginHost({
      store: this.store,
      realtime: this.realtime,
      runs: this.runs,
      startTurn: (userDid, sessionId, input, preempted) => this.startTurn(userDid, sessionId, input, preempted),
      preemptTurn: (userDid, sessionId, input) => this.preemptTurn(userDid, sessionId, input),
      prepareModel: () => void this.prepareModel(),
      admitTurn: (req) => this.admitTurn(req),
      verifyPayment: o.verifyPayment,
    });
    const contextDeps = { store: this.store, config: this.config, log: this.pino, now: this.now, host: this.host };
    this.plugins = new PluginSet(
      result.ordered.map(({ plugin, env }) => ({ plugin, ctx: createPluginContext(plugin.name, env, contextDeps) })),
      new PluginStatusTracker(result),
    );
    this.tracker = this.plugins.tracker;
    this.plugins.collectTools(() => this.agentDeps(), o.toolTimeoutMs ? o.toolTimeoutMs * 4 : 120_000);
    this.meta = metaTools({
      plugins: () => this.activePlugins().map((p) => p.plugin),
      toolsOf: (name) =>
        Object.entries(this.plugins.tools.get(name) ?? {}).map(([n, t]) => ({ name: n, description: t.description })),
      saveState: (turn) => {
        const snapshot = JSON.parse(JSON.stringify(turn.state)) as Record<string, unknown>;
        this.store.background(() => this.store.setSessionState(turn.sessionId, snapshot));
      },
    });
    logBoot(this.log, result);
    for (const m of this.missingPlugins) this.log.info(missingLine(m));
    if ((o.config.price ?? 0) > 0 && !o.verifyPayment)
      this.log.info(
        '[boot] payments: not verified (no verifyPayment): a priced oracle counts a claim as paid on the user’s word (an IOU)',
      );
    this.modelCheck = ModelCheck.create({
      given: o.model !== undefined,
      baseUrl: settings.LLM_BASE_URL,
      apiKey: settings.LLM_PROVIDER_API_KEY,
      log: this.log,
    });
    this.hooks.onBoot?.(this.tracker.status());
  }

  /** Secrets of the environment never leave the runtime in an error text. */
  redact(text: string): string {
    let out = text;
    for (const v of [
      this.settings.LLM_PROVIDER_API_KEY,
      this.settings.SIGNING_MNEMONIC,
      this.options.signingMnemonic,
    ]) {
      if (v && v.length >= 4) out = out.split(v).join('[redacted]');
    }
    return out;
  }

  /**
   * Origins allowed for browser pages, over HTTP and socket.io alike: the corsOrigins option, else CORS_ORIGINS
   * (`*`: any), else none when HOST is loopback (a developer's oracle is not any web page's) and any otherwise.
   */
  get corsOrigins(): string[] | boolean {
    const configured = this.options.corsOrigins ?? this.settings.CORS_ORIGINS;
    if (Array.isArray(configured) && configured.includes('*')) return true;
    return configured ?? !isLoopbackAddress(this.settings.HOST);
  }

  /**
   * The address the host listens on (createOracleApp sets it; default HOST): the host names it answers to follow from
   * it.
   */
  listenHost: string | undefined;

  /** The host names this oracle answers to (host-check.ts): the loopback ones, ORACLE_ALLOWED_HOSTS, or any. */
  hostPolicy(): HostPolicy {
    return hostPolicy(
      this.listenHost ?? this.settings.HOST,
      this.options.allowedHosts ?? this.settings.ORACLE_ALLOWED_HOSTS,
    );
  }

  /** Plugins loaded now (background ones once settled as loaded). */
  activePlugins(): HostedPlugin[] {
    return this.plugins.active();
  }

  /** All resolved plugins (routes are registered for pending ones too). */
  resolvedPlugins(): HostedPlugin[] {
    return this.plugins.all();
  }

  status(): PluginsStatus {
    return this.tracker.status();
  }

  onPluginStatusChange(l: PluginStatusListener): () => void {
    return this.tracker.subscribe(l);
  }

  get signingKeyLoaded(): boolean {
    return this.signer !== undefined;
  }

  /** The oracle's signer (after the mnemonic is loaded). */
  getSigner(): Signer | undefined {
    return this.signer;
  }

  /** Loads (or replaces) the signing key from a BIP39 mnemonic. */
  async loadSigningKey(mnemonic: string): Promise<void> {
    this.signer = await signerFromMnemonic(mnemonic);
  }

  ready(): { ready: boolean; pending: string[] } {
    const pending = [...this.tracker.status().pending.map((p) => `plugin:${p}`)];
    if (!this.signer) pending.push('signing-key');
    if (this.modelCheck?.current()?.ready === false) pending.push('model');
    return { ready: pending.length === 0, pending };
  }

  /**
   * With ORACLE_REDIS_URL: connects the Redis the instances share (cluster/,
   * imported only then) before the oracle serves; a Redis that does not
   * answer within 10 s is a boot error.
   */
  async connectCluster(): Promise<void> {
    const url = this.settings.ORACLE_REDIS_URL;
    if (!url || this.cluster) return;
    const { Cluster } = await import('./cluster/cluster.ts');
    let cluster;
    try {
      cluster = await Cluster.connect({
        url,
        oracleDid: this.oracleDid,
        leaseMs: this.settings.ORACLE_INSTANCE_LEASE_MS,
        retainMs: this.runs.retainMs,
        now: this.now,
      });
    } catch (e) {
      throw new BootError(
        `[boot-error] ${(e as Error).message}. Start Redis, or set 'ORACLE_REDIS_URL' to the Redis every instance of this oracle shares, or unset it for one instance`,
      );
    }
    cluster.start({
      abort: (runId, reason) => this.runs.get(runId)?.abort.abort(new Error(reason)),
      settle: (sessionId, toolCallId, answer) => this.realtime.settle(sessionId, toolCallId, answer),
      reaped: (run, events) => {
        this.store.background(() => this.store.finishRun(run.runId, 'failed', events));
        // as socket.ts does when a run of this instance ends
        const eventId = String(events.at(-1)?.id ?? 0);
        this.realtime.emit(run.sessionId, 'message_cache_invalidation', {
          eventName: 'message_cache_invalidation',
          payload: { sessionId: run.sessionId, requestId: run.requestId, eventId, reason: 'run failed' },
        });
      },
    });
    this.cluster = cluster;
    this.runs.bus = cluster;
    this.auth.sharedReplay = cluster;
    await this.admission.limiter.share(url, this.oracleDid, this.pino); // the per-user turn limit holds across the instances
  }

  /** Starts background plugins and the signing key load; never blocks. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const mnemonic = this.options.signingMnemonic ?? this.settings.SIGNING_MNEMONIC;
    if (mnemonic && !this.signerPromise) {
      this.signerPromise = this.loadSigningKey(mnemonic).catch((e: unknown) => {
        this.log.error(
          `[boot-error] signing key not loaded: ${(e as Error).message}. Set 'SIGNING_MNEMONIC' to a valid BIP39 mnemonic`,
        );
      });
    }
    this.plugins.start(this.log, this.options.pluginStartTimeoutMs ?? 60_000);
    void this.modelCheck?.check();
  }

  /** The model of a turn (models.ts): the request's id, else config.model, else LLM_MODEL. */
  model(id?: string): OracleModel {
    return this.modelRegistry.model(id);
  }

  /** What GET /models answers (models.ts). */
  models(): { models: { id: string; name: string }[]; default: string | null } {
    return this.modelRegistry.models();
  }

  /** Revokes a UCAN by CID: refused from now on, and the realtime connections it authenticated end. */
  async revoke(cid: string): Promise<void> {
    await this.store.revoke(cid);
    this.realtime.revoked(cid);
  }

  /**
   * The session when this user owns it. Every route and socket handler that
   * names a session asks here: another user's session answers like a missing
   * one (404 session_not_found), so ids reveal nothing.
   */
  async ownSession(userDid: string, sessionId: string): Promise<Session> {
    const s = await this.store.getSession(userDid, sessionId);
    if (!s) throw runtimeError('session_not_found', `no session ${sessionId}`);
    return s;
  }

  private async history(sessionId: string): Promise<ModelMessage[]> {
    return transcript(await this.store.history(sessionId));
  }

  private agentDeps(): AgentDeps {
    return {
      model: (id) => this.model(id),
      plugins: () => this.activePlugins(),
      metaTools: this.meta,
      pluginTools: () => this.plugins.tools,
      basePrompt: () => {
        const c = this.config;
        return [
          c.prompt ?? `You are ${c.name}${c.description ? `, ${c.description}` : ''}.`,
          'Some capabilities are on-demand: call list_capabilities to see them and load_capability to load one before using its tools.',
        ].join('\n');
      },
      history: (s) => this.history(s),
      loadState: (s) => this.store.getSessionState(s),
      saveState: (s, st) => {
        const snapshot = JSON.parse(JSON.stringify(st)) as Record<string, unknown>;
        this.store.background(() => this.store.setSessionState(s, snapshot));
      },
      persist: (s, msgs) =>
        this.store.groupCommit(async () => {
          await this.store.addMessages(s, msgs);
          await this.store.touchSession(s);
        }),
      maxSteps: this.options.maxSteps ?? this.settings.ORACLE_MAX_STEPS,
      redact: (text) => this.redact(text),
      now: this.now,
      stallTimeoutMs: this.options.stallTimeoutMs ?? this.settings.LLM_STALL_TIMEOUT_MS,
      toolTimeoutMs: this.options.toolTimeoutMs ?? this.settings.ORACLE_TOOL_TIMEOUT_MS,
      limits: {
        maxOutputTokens: this.settings.ORACLE_MAX_OUTPUT_TOKENS,
        maxMs: this.settings.ORACLE_RUN_MAX_MS,
        maxOutputChars: this.settings.ORACLE_RUN_MAX_OUTPUT_CHARS,
        maxEventBytes: this.settings.ORACLE_RUN_MAX_EVENT_BYTES,
        maxImages: this.settings.ORACLE_TURN_MAX_IMAGES,
        maxImageBytes: this.settings.ORACLE_TURN_MAX_IMAGE_BYTES,
        ...this.options.runLimits,
      },
      hooks: this.hooks,
    };
  }

  private rehearsed: Promise<boolean> | undefined;

  /**
   * PluginHost.prepareModel: a connection to the provider, and the process's first time, a rehearsal of a turn
   * (agent/rehearse.ts); resolves once that has run: whether it did (not for a model given to createOracle).
   */
  prepareModel(): Promise<boolean> {
    this.modelRegistry.preconnect();
    return (this.rehearsed ??= (async () => {
      const model = this.modelRegistry.rehearsal();
      if (!model) return false;
      await rehearseTurn(this.agentDeps(), model);
      return true;
    })().catch((e: unknown) => {
      this.pino.debug({ err: e }, 'the rehearsal of a turn failed');
      return false;
    }));
  }

  /** The active plugins' turn gates, in order (turn-admission.ts). */
  gateTurn(req: TurnRequest): Promise<TurnCharge | undefined> {
    return this.admission.gate(req);
  }

  /** A use that costs like a turn: the user's turn limit, then the turn gates (turn-admission.ts). */
  admitTurn(req: TurnRequest): Promise<TurnCharge | undefined> {
    return this.admission.admit(req);
  }

  /**
   * PluginHost.preemptTurn: the model request of a turn in a session the caller owns, sent before the turn is
   * confirmed (agent/early-model.ts); nothing when the session is not theirs, runs a turn, or names another model.
   */
  preemptTurn(userDid: string, sessionId: string, input: TurnInput): PreemptedTurn {
    const allowed = async () => {
      await this.ownSession(userDid, sessionId);
      if (input.model !== undefined) this.modelRegistry.assertListed(input.model);
      this.model(input.model);
      return !this.runs.active(sessionId);
    };
    return new EarlyTurn(this.agentDeps(), { userDid, sessionId, input }, () => allowed().catch(() => false));
  }

  /**
   * Starts a turn in a session the caller owns; the run continues without any subscriber. `preempted`: its model
   * request sent early (preemptTurn), used if the turn's own request is the same.
   */
  async startTurn(userDid: string, sessionId: string, input: TurnInput, preempted?: PreemptedTurn): Promise<Run> {
    const early = preempted instanceof EarlyTurn ? preempted : undefined;
    try {
      return await this.startTurnWith(userDid, sessionId, input, early);
    } catch (e) {
      early?.cancel();
      throw e;
    }
  }

  private async startTurnWith(
    userDid: string,
    sessionId: string,
    input: TurnInput,
    early: EarlyTurn | undefined,
  ): Promise<Run> {
    const session = await this.ownSession(userDid, sessionId);
    if (this.runs.active(sessionId))
      throw runtimeError('run_in_progress', 'this session already has a running run; abort it or rejoin it');
    if (input.model !== undefined) this.modelRegistry.assertListed(input.model);
    this.model(input.model); // configuration errors surface as HTTP errors, not streams
    const charged = (await this.admitTurn({ userDid, sessionId, message: input.message }))?.charged; // 429, 402
    // the awaits above let another turn of this session start meanwhile
    if (this.runs.active(sessionId))
      throw runtimeError('run_in_progress', 'this session already has a running run; abort it or rejoin it');
    const run = this.runs.start({ sessionId, userDid });
    if (session.title === 'New chat')
      this.store.background(() => this.store.touchSession(sessionId, input.message.slice(0, 60)));
    void runTurn(this.agentDeps(), run, { ...input, ...(charged ? { charged } : {}) }, early).catch((e: unknown) => {
      this.hooks.onError?.(e);
      if (isStorageFault(e)) run.accept(e); // e.g. the session's state unreadable: POST /messages answers its code
      if (!run.finished) run.emit({ event: 'done', data: { status: 'failed', partialText: run.text } });
    });
    return run;
  }

  async close(): Promise<void> {
    this.runs.abortAll();
    await Promise.race([this.runs.settleAll(), new Promise((r) => setTimeout(r, 2000).unref())]);
    await this.plugins.stop((e) => this.hooks.onError?.(e));
    await new Promise((r) => setImmediate(r));
    await this.storeReady.catch(() => {});
    this.runs.close();
    await this.store.flush();
    await this.cluster?.close();
    this.admission.close();
    if (this.ownsDb) await this.db.close();
  }
}

/**
 * Migrates the runtime's tables, before the host serves (createOracle awaits storeReady). One instance (`alone`): a
 * run left running was its own previous process's, and ends failed; several (ORACLE_REDIS_URL): another instance may
 * be running it, and the cluster's reaper ends the runs of an instance whose lease lapsed.
 */
async function prepareStore(db: Storage, store: RuntimeStore, alone: boolean): Promise<void> {
  await db.migrate('runtime', RUNTIME_MIGRATIONS);
  if (alone) await store.failOrphanRuns();
}

/** The DID of the signing mnemonic ('' without one); an invalid mnemonic is a boot error. */
function didOfMnemonic(mnemonic: string | undefined): string {
  if (!mnemonic) return '';
  try {
    return didFromMnemonic(mnemonic);
  } catch {
    throw new BootError(
      "[boot-error] SIGNING_MNEMONIC is not a valid BIP39 mnemonic. Set 'SIGNING_MNEMONIC' to the oracle's 12/24-word mnemonic",
    );
  }
}
