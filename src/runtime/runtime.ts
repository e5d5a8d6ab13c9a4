/**
 * The runtime core, independent of any HTTP server: boot resolution, the
 * plugin registry and status, storage, the authenticator, runs and the agent.
 * createOracle (oracle.ts) wraps it with its fastify plugin and socket.io;
 * host services raise events (realtime.ts, runs) that the transports
 * subscribe to, so the core knows no transport.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel, ModelMessage } from 'ai';
import { checkPostgresUrl, connectStorage, redact } from '../storage/open.ts';
import { OracleKitError, showValue } from '../lib/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { RUNTIME_MIGRATIONS } from './migrations.ts';
import { createPluginContext } from './plugin-context.ts';
import { installOutboundTransport } from './outbound.ts';
import { RuntimeStore } from './store.ts';
import { openSqliteFile } from './database.ts';
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
  type AnyOraclePlugin,
  type AnyPluginTool,
  type OracleConfig,
  type OraclePlugin,
  type PluginContext,
  type PaymentVerifier,
  type PluginHost,
  type TurnCharge,
  type TurnContext,
  type TurnRequest,
} from './plugin.ts';
import { randomUUID } from 'node:crypto';
import { BUNDLED_PLUGINS, MISSING_PLUGINS } from './plugins/index.ts';
import { missingFor, missingLine, type MissingPlugin } from './plugins/packaged.ts';
import { metaTools } from './meta-tools.ts';
import { RunManager } from './runs.ts';
import { TurnRateLimiter } from './turn-limiter.ts';
import { hostPolicy, isLoopbackAddress, type HostPolicy } from './host-check.ts';
import type { Run } from './run.ts';
import { createRuntimeLog, logRunEvent, type RuntimeLog } from './log.ts';
import type { Cluster } from './cluster/cluster.ts';
import { lineBoundedFetch, runTurn, type AgentDeps, type RunLimits, type TurnInput } from './agent/index.ts';
import { subAgentTool, subAgentToolName } from './agent/sub-agent.ts';
import { transcript } from '../lib/protocol/messages.ts';
import { Authenticator, type UcanAuthMode, type UcanReplayMode } from './auth.ts';
import { RUNTIME_ERRORS, runtimeError } from '../lib/protocol/errors.ts';
import type { ErrorTable } from '../lib/errors.ts';
import { RealtimeHub } from './realtime.ts';
import { parseRuntimeEnv, type RuntimeEnv } from './settings.ts';
import { ModelCheck } from './model-check.ts';
import type { PluginsStatus, Session } from '../lib/protocol/index.ts';
import { didFromMnemonic, signerFromMnemonic, type Signer } from '../lib/keys/keys.ts';

export interface OracleHooks {
  /** After boot resolution (before listening). */
  onBoot?: (status: PluginsStatus) => void;
  onTurnStart?: (turn: TurnContext) => void | Promise<void>;
  onTurnEnd?: (turn: TurnContext, result: { status: string; text: string }) => void | Promise<void>;
  onError?: (error: unknown, turn?: TurnContext) => void;
}

/** A language model of the AI SDK (an object: a model id string is `config.model`). */
export type OracleModel = Exclude<LanguageModel, string>;

export interface OracleAppOptions {
  config: OracleConfig;
  /**
   * The model: one LanguageModel for every turn, or a factory by model id
   * (config.model, LLM_MODEL, or the id a request names). Default: the
   * OpenAI-compatible provider at LLM_BASE_URL with LLM_PROVIDER_API_KEY.
   * oraclekit/testing's scriptedModel() is one (tests without a model server).
   */
  model?: OracleModel | ((id: string) => OracleModel);
  /** The project's own plugins (same name overrides a bundled one). */
  plugins?: AnyOraclePlugin[];
  /** name → true (forced on) | false (never); absent = auto-detect. */
  features?: Record<string, boolean>;
  hooks?: OracleHooks;
  /**
   * Environment (default process.env): the runtime's variables (settings.ts, parsed once) and the plugins' (each
   * plugin's envSchema).
   */
  env?: Record<string, string | undefined>;
  /** SQLite file (default ORACLE_DB_PATH or ./data/oracle.db); ':memory:' for tests. Not with `databaseUrl`. */
  dbPath?: string;
  /**
   * A PostgreSQL database instead of the SQLite file: postgres://user[:password]@host[:port]/database
   * (default ORACLE_DATABASE_URL). Several instances of one oracle share it (docs/scaling.md). Not with `dbPath`.
   */
  databaseUrl?: string;
  /**
   * Durability of the runtime's own database (storage/sqlite.ts): 'async' (default: fsync off the event loop before
   * acknowledging), 'FULL' (fsync inside COMMIT), 'NORMAL' (no fsync; may lose the last transactions on power loss).
   */
  dbSynchronous?: 'async' | 'FULL' | 'NORMAL';
  /** An open database to share (the daemon's); the runtime adds its migrations' area. */
  database?: Storage;
  /** Boot log lines go here (default console). */
  logger?: BootLogger;
  /** The running oracle's log (log.ts: requests, failed turns and tools; default pino on stdout at LOG_LEVEL). */
  pino?: RuntimeLog;
  /** BIP39 signing mnemonic (default env SIGNING_MNEMONIC). */
  signingMnemonic?: string;
  /** Replace the bundled plugin list (default: the bundled plugins). */
  bundledPlugins?: AnyOraclePlugin[];
  heartbeatMs?: number;
  stallTimeoutMs?: number;
  toolTimeoutMs?: number;
  maxSteps?: number;
  /**
   * The bounds of each run (default env ORACLE_MAX_OUTPUT_TOKENS, ORACLE_RUN_MAX_MS, ORACLE_RUN_MAX_OUTPUT_CHARS,
   * ORACLE_RUN_MAX_EVENT_BYTES).
   */
  runLimits?: Partial<RunLimits>;
  pluginStartTimeoutMs?: number;
  /**
   * Who may log in (default env ORACLE_UCAN_AUTH, else 'any'): 'invocation' requires an invocation; 'any' also takes a
   * delegation alone.
   */
  ucanAuth?: UcanAuthMode;
  /**
   * Whether an invocation may be used again until it expires (default env ORACLE_UCAN_REPLAY, else 'bearer') or once
   * ('strict').
   */
  ucanReplay?: UcanReplayMode;
  /**
   * The longest a delegation that logs in alone may live, in seconds (default env ORACLE_UCAN_DELEGATION_MAX_TTL_S,
   * else 30 days).
   */
  delegationMaxTtlSeconds?: number;
  corsOrigins?: string[] | boolean;
  /** Host names the oracle answers to besides the loopback ones (default env ORACLE_ALLOWED_HOSTS; ['*']: any). */
  allowedHosts?: string[];
  /**
   * Checks a payment a user reports (credits: POST /credits/pay) before its claims count as paid: from the
   * payment's reference to its settlement. Without it a reported payment is an IOU (docs/runtime.md).
   */
  verifyPayment?: PaymentVerifier;
  /** The only users who may log in (default env ORACLE_ALLOWED_USERS; unset: any did:key user). */
  allowedUsers?: string[];
  /**
   * The most turns a user may start per minute on this instance (default env ORACLE_USER_TURNS_PER_MINUTE; 0: no
   * limit).
   */
  userTurnsPerMinute?: number;
  /**
   * What the `model_not_configured` error tells the user to do (default: LLM_BASE_URL and the model in
   * oracle.config.json).
   */
  modelHint?: string;
  /**
   * The clock, ms since the epoch (default Date.now): what history timestamps, credential expiry and the per-user
   * turn window are read from. Tests of those replace it; time-outs stay on timers.
   */
  now?: () => number;
}

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
  private readonly modelOf: (id: string) => OracleModel;
  private readonly turnLimiter: TurnRateLimiter;
  /** The packaged plugins (plugins/packaged.ts) this oracle goes without: their routes name the package to add. */
  readonly missingPlugins: MissingPlugin[];
  private readonly resolved: { plugin: AnyPlugin; ctx: PluginContext<unknown> }[];
  private readonly toolsByPlugin = new Map<string, Record<string, AnyPluginTool>>();
  private readonly meta: Record<string, AnyPluginTool>;
  private signer: Signer | undefined;
  private signerPromise: Promise<void> | undefined;
  private started = false;
  /** Runtime services handed to plugins (PluginContext.host): they raise events, never call a transport. */
  readonly host: PluginHost = {
    startTurn: (userDid, sessionId, input) => this.startTurn(userDid, sessionId, input),
    postMessage: async (sessionId, msg) => {
      const id = msg.id ?? `post-${randomUUID()}`;
      await this.store.addMessages(sessionId, [{ id, type: 'ai', content: msg.content }]);
      await this.store.touchSession(sessionId);
      this.realtime.emit(sessionId, 'message_cache_invalidation', {
        eventName: 'message_cache_invalidation',
        payload: { sessionId, requestId: id, eventId: id, reason: 'message posted' },
      });
      return { id };
    },
    emitToSession: (sessionId, event, payload) => this.realtime.emit(sessionId, event, payload),
    awaitClientResult: (sessionId, toolCallId, timeoutMs) =>
      this.realtime.awaitResult(sessionId, toolCallId, timeoutMs),
    emitRunEvent: (sessionId, e) => {
      const run = this.runs.active(sessionId);
      if (!run || run.finished) return false;
      run.emit(e);
      return true;
    },
    // a use that costs like a turn (a call) counts against the per-user turn rate like one (admitTurn takes the slot)
    gateTurn: async (req) => void (await this.admitTurn(req)),
  };

  constructor(o: OracleAppOptions) {
    installOutboundTransport();
    this.options = o;
    this.host.verifyPayment = o.verifyPayment;
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
    this.modelOf =
      typeof o.model === 'function'
        ? o.model
        : o.model
          ? constantModel(o.model)
          : openAICompatibleModels(settings, o.modelHint);
    this.oracleDid = o.config.oracleDid ?? didOfMnemonic(o.signingMnemonic ?? settings.SIGNING_MNEMONIC);
    this.ownsDb = !o.database;
    this.db = o.database ?? openDatabase(o, this.env, settings, this.log);
    this.store = new RuntimeStore(this.db, { did: this.oracleDid, name: o.config.name }, this.now);
    this.store.onBackgroundError = (e) => this.log.error(`[store] a background write failed: ${(e as Error).message}`);
    this.storeReady = prepareStore(this.db, this.store, !settings.ORACLE_REDIS_URL);
    this.storeReady.catch(() => {}); // reaches the host through `await runtime.storeReady` (createOracle's plugin)
    this.tracker = new PluginStatusTracker(result);
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
    this.turnLimiter = new TurnRateLimiter(o.userTurnsPerMinute ?? settings.ORACLE_USER_TURNS_PER_MINUTE);
    this.resolved = result.ordered.map(({ plugin, env }) => ({
      plugin,
      ctx: createPluginContext(plugin.name, env, {
        store: this.store,
        config: this.config,
        log: this.pino,
        now: this.now,
        host: this.host,
      }),
    }));
    this.collectTools(o.toolTimeoutMs ? o.toolTimeoutMs * 4 : 120_000);
    this.meta = metaTools({
      plugins: () => this.activePlugins().map((p) => p.plugin),
      toolsOf: (name) =>
        Object.entries(this.toolsByPlugin.get(name) ?? {}).map(([n, t]) => ({ name: n, description: t.description })),
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

  /** Each resolved plugin's tools, its sub-agents as tools among them. */
  private collectTools(subAgentTimeoutMs: number): void {
    for (const { plugin, ctx } of this.resolved) {
      const tools = plugin.tools?.(ctx) ?? {};
      for (const sa of plugin.subAgents ?? [])
        tools[subAgentToolName(sa.name)] = subAgentTool(sa, plugin, tools, () => this.agentDeps(), subAgentTimeoutMs);
      this.toolsByPlugin.set(plugin.name, tools);
    }
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
  activePlugins(): { plugin: AnyPlugin; ctx: PluginContext<unknown> }[] {
    return this.resolved.filter(({ plugin }) => this.tracker.isActive(plugin.name));
  }

  /** All resolved plugins (routes are registered for pending ones too). */
  resolvedPlugins(): { plugin: AnyPlugin; ctx: PluginContext<unknown> }[] {
    return this.resolved;
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
    await this.turnLimiter.share(url, this.oracleDid, this.pino); // the per-user turn limit holds across the instances
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
    this.tracker.startBackground(
      this.resolved
        .filter(({ plugin }) => plugin.start)
        .map(({ plugin, ctx }) => ({
          name: plugin.name,
          start: () => plugin.start!(ctx),
          timeoutMs: this.options.pluginStartTimeoutMs ?? 60_000,
        })),
      this.log,
    );
    void this.modelCheck?.check();
  }

  /**
   * The model of a turn: the request's id, else config.model, else LLM_MODEL (the `model` option decides what an id
   * means).
   */
  model(id?: string): OracleModel {
    const modelId =
      id ??
      this.config.model ??
      this.settings.LLM_MODEL ??
      (typeof this.options.model === 'object' ? this.options.model.modelId : undefined);
    if (!modelId) throw notConfigured(this.options.modelHint);
    return this.modelOf(modelId);
  }

  models(): { models: { id: string; name: string }[]; default: string | null } {
    const own = typeof this.options.model === 'object' ? this.options.model.modelId : undefined;
    const ids = [
      ...new Set(
        [this.config.model ?? this.settings.LLM_MODEL ?? own, ...(this.config.models ?? [])].filter(
          (x): x is string => !!x,
        ),
      ),
    ];
    return { models: ids.map((id) => ({ id, name: id })), default: ids[0] ?? null };
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
      pluginTools: () => this.toolsByPlugin,
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
        this.store.defer(async () => {
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

  /**
   * The active plugins' turn gates, in order: one throws (e.g. 402
   * payment_required) to refuse; what one charged for letting the turn through
   * (the credits plugin) is returned for the turn's usage.
   */
  async gateTurn(req: TurnRequest): Promise<TurnCharge | undefined> {
    let charge: TurnCharge | undefined;
    for (const { plugin, ctx } of this.activePlugins()) charge = (await plugin.gateTurn?.(req, ctx)) || charge;
    return charge;
  }

  /**
   * A use that costs like a turn (a turn, a call): counts against the user's turn limit (429 rate_limited), then
   * passes the turn gates (gateTurn; 402 payment_required). A use the gates refuse gives its count back: an unpaid
   * attempt does not spend the user's rate.
   */
  async admitTurn(req: TurnRequest): Promise<TurnCharge | undefined> {
    const giveBack = await this.turnLimiter.take(req.userDid);
    try {
      return await this.gateTurn(req);
    } catch (e) {
      await giveBack();
      throw e;
    }
  }

  /** A turn may name only a model GET /models lists: the operator's key never pays for a model they did not choose. */
  private assertListedModel(id: string): void {
    const listed = this.models().models.map((m) => m.id);
    if (listed.includes(id)) return;
    throw runtimeError(
      'model_not_listed',
      `model ${JSON.stringify(id.slice(0, 100))} is not offered by this oracle; use one GET /models lists: ${listed.join(', ') || '(none)'}`,
      { field: 'model', value: id.slice(0, 100), valid: listed.join(', ') || 'none: this oracle lists no model' },
    );
  }

  /** Starts a turn in a session the caller owns; the run continues without any subscriber. */
  async startTurn(userDid: string, sessionId: string, input: TurnInput): Promise<Run> {
    const session = await this.ownSession(userDid, sessionId);
    if (this.runs.active(sessionId))
      throw runtimeError('run_in_progress', 'this session already has a running run; abort it or rejoin it');
    if (input.model !== undefined) this.assertListedModel(input.model);
    this.model(input.model); // configuration errors surface as HTTP errors, not streams
    const charged = (await this.admitTurn({ userDid, sessionId, message: input.message }))?.charged; // 429, 402
    // the awaits above let another turn of this session start meanwhile
    if (this.runs.active(sessionId))
      throw runtimeError('run_in_progress', 'this session already has a running run; abort it or rejoin it');
    const run = this.runs.start({ sessionId, userDid });
    if (session.title === 'New chat')
      this.store.background(() => this.store.touchSession(sessionId, input.message.slice(0, 60)));
    void runTurn(this.agentDeps(), run, { ...input, ...(charged ? { charged } : {}) }).catch((e: unknown) => {
      this.hooks.onError?.(e);
      if (isStorageFault(e)) run.accept(e); // e.g. the session's state unreadable: POST /messages answers its code
      if (!run.finished) run.emit({ event: 'done', data: { status: 'failed', partialText: run.text } });
    });
    return run;
  }

  async close(): Promise<void> {
    this.runs.abortAll();
    await Promise.race([this.runs.settleAll(), new Promise((r) => setTimeout(r, 2000).unref())]);
    // stop plugins in parallel (MCP sessions, transports, workers), at most 2 s in all
    const stops = this.resolved
      .filter(({ plugin }) => plugin.stop)
      .map(({ plugin, ctx }) =>
        Promise.resolve()
          .then(() => plugin.stop!(ctx))
          .catch((e: unknown) => this.hooks.onError?.(e)),
      );
    await Promise.race([Promise.all(stops), new Promise((r) => setTimeout(r, 2000).unref())]);
    await new Promise((r) => setImmediate(r));
    await this.storeReady.catch(() => {});
    this.runs.close();
    await this.store.flush();
    await this.cluster?.close();
    this.turnLimiter.close();
    if (this.ownsDb) await this.db.close();
  }
}

function notConfigured(hint: string | undefined) {
  return runtimeError(
    'model_not_configured',
    `no model configured: ${hint ?? 'set LLM_BASE_URL and the model in oracle.config.json'}`,
  );
}

function constantModel(m: OracleModel): (id: string) => OracleModel {
  return () => m;
}

/**
 * The default model: the OpenAI-compatible provider at LLM_BASE_URL. One
 * model object per (endpoint, key, model): building one compiles the
 * provider's zod chunk schemas (~0.5 ms), which a turn must not pay twice.
 */
function openAICompatibleModels(s: RuntimeEnv, hint: string | undefined): (id: string) => OracleModel {
  const cache = new Map<string, OracleModel>();
  return (modelId) => {
    const baseURL = s.LLM_BASE_URL;
    if (!baseURL) throw notConfigured(hint);
    let m = cache.get(modelId);
    if (!m) {
      m = createOpenAICompatible({
        name: 'oracle-llm',
        baseURL,
        apiKey: s.LLM_PROVIDER_API_KEY,
        includeUsage: true,
        fetch: lineBoundedFetch(s.ORACLE_MODEL_MAX_LINE_BYTES),
      }).chatModel(modelId);
      if (cache.size >= 32) cache.delete(cache.keys().next().value!);
      cache.set(modelId, m);
    }
    return m;
  };
}

/**
 * The shared runtime codes plus each plugin's own (`errors`): a plugin may
 * not give a code another meaning (another status than the shared table's or
 * another plugin's), which would make a code ambiguous on the wire.
 */
function mergeErrorTables(plugins: { name: string; errors?: ErrorTable }[]): ErrorTable {
  const merged: ErrorTable = { ...RUNTIME_ERRORS };
  const owner = new Map<string, string>();
  for (const p of plugins) {
    for (const [code, e] of Object.entries(p.errors ?? {})) {
      const prev = merged[code];
      if (prev && prev.status !== e.status) {
        const by = owner.get(code);
        throw new BootError(
          `[boot-error] Plugin '${p.name}' declares error code '${code}' with status ${e.status}, but ${by ? `plugin '${by}'` : 'the runtime'} declares it with status ${prev.status}. Rename the plugin's code`,
        );
      }
      if (!prev) {
        merged[code] = e;
        owner.set(code, p.name);
      }
    }
  }
  return merged;
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

/** Opens the runtime's own database where databaseLocation says (PostgreSQL is named in the boot lines). */
function openDatabase(
  o: OracleAppOptions,
  env: Record<string, string | undefined>,
  settings: RuntimeEnv,
  log: BootLogger,
): Storage {
  const location = databaseLocation(o, env, settings);
  const synchronous = o.dbSynchronous ?? settings.ORACLE_DB_SYNCHRONOUS ?? 'async';
  if (location.url === undefined)
    return openSqliteFile(location.path!, synchronous, o.dbPath !== undefined ? 'dbPath' : 'ORACLE_DB_PATH');
  const db = connectStorage({ location: location.url, synchronous });
  log.info(`[boot] database: PostgreSQL ${redact(location.url)}`);
  return db;
}

/**
 * Where the runtime's own database is: `databaseUrl` (a PostgreSQL URL) or `dbPath` (a SQLite file), from
 * the options, else from ORACLE_DATABASE_URL / ORACLE_DB_PATH. Naming both is invalid_config: which one
 * holds the oracle's sessions must not depend on a precedence rule.
 */
function databaseLocation(
  o: OracleAppOptions,
  env: Record<string, string | undefined>,
  settings: RuntimeEnv,
): { url?: string; path?: string } {
  const both = (field: string, url: string, path: string) =>
    new OracleKitError({
      status: 400,
      code: 'invalid_config',
      message: `${field} = ${showValue(redact(url))} and a SQLite path (${showValue(path)}) are both set: the runtime uses one database; keep one of them`,
      field,
      value: redact(url),
      valid:
        'either a postgres:// URL (databaseUrl / ORACLE_DATABASE_URL) or a SQLite file (dbPath / ORACLE_DB_PATH), not both',
    });
  if (o.databaseUrl !== undefined && o.dbPath !== undefined) throw both('databaseUrl', o.databaseUrl, o.dbPath);
  if (o.databaseUrl !== undefined) {
    checkPostgresUrl(o.databaseUrl, 'databaseUrl');
    return { url: o.databaseUrl };
  }
  if (o.dbPath !== undefined) return { path: o.dbPath };
  const rawPath = env.ORACLE_DB_PATH?.trim() ? env.ORACLE_DB_PATH : undefined;
  if (settings.ORACLE_DATABASE_URL !== undefined && rawPath !== undefined)
    throw both('ORACLE_DATABASE_URL', settings.ORACLE_DATABASE_URL, rawPath);
  if (settings.ORACLE_DATABASE_URL !== undefined) {
    checkPostgresUrl(settings.ORACLE_DATABASE_URL, 'ORACLE_DATABASE_URL');
    return { url: settings.ORACLE_DATABASE_URL };
  }
  return { path: settings.ORACLE_DB_PATH };
}
