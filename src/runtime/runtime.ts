/**
 * The runtime core, independent of any HTTP server: boot resolution, the
 * plugin registry and status, storage, the authenticator, runs and the agent.
 * createOracleApp (app.ts) serves it on its own fastify; the daemon mounts it
 * onto its fastify with registerOracleRuntime.
 */
import { cachedSchema } from './schema-cache.ts';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, isStepCount, tool, type LanguageModel, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import { openDatabase, type Database } from '../storage/db.ts';
import { RUNTIME_MIGRATIONS } from './migrations.ts';
import { RuntimeStore } from './store.ts';
import { BootError, consoleBootLogger, logBoot, mergePlugins, PluginStatusTracker, resolvePlugins, type BootLogger, type PluginStatusListener } from './boot.ts';
import { defineTool, type AnyOraclePlugin, type AnyPluginTool, type OracleConfig, type OraclePlugin, type PluginContext, type PluginHost, type SubAgent, type TurnContext } from './plugin.ts';
import type { SocketHandle } from './socket.ts';
import { randomUUID } from 'node:crypto';
import { BUNDLED_PLUGINS } from './plugins/index.ts';
import { metaTools } from './meta-tools.ts';
import { RunManager, type Run } from './runs.ts';
import { runTurn, type AgentDeps, type TurnInput } from './agent/index.ts';
import { transcript } from '../lib/protocol/messages.ts';
import { Authenticator } from './auth.ts';
import { runtimeError } from '../lib/protocol/errors.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import { didFromMnemonic, signerFromMnemonic, type Signer } from '../lib/keys/index.ts';

export interface OracleHooks {
  /** After boot resolution (before listening). */
  onBoot?: (status: PluginsStatus) => void;
  onTurnStart?: (turn: TurnContext) => void | Promise<void>;
  onTurnEnd?: (turn: TurnContext, result: { status: string; text: string }) => void | Promise<void>;
  onError?: (error: unknown, turn?: TurnContext) => void;
}

export interface OracleAppOptions {
  config: OracleConfig;
  /** The project's own plugins (same name overrides a bundled one). */
  plugins?: AnyOraclePlugin[];
  /** name → true (forced on) | false (never); absent = auto-detect. */
  features?: Record<string, boolean>;
  hooks?: OracleHooks;
  /** Environment (default process.env): plugin variables, LLM_*, SIGNING_MNEMONIC, PORT. */
  env?: Record<string, string | undefined>;
  /** SQLite file (default ORACLE_DB_PATH or ./data/oracle.db); ':memory:' for tests. */
  dbPath?: string;
  /** Durability of the runtime's own database (storage/db.ts): 'async' (default: fsync off the event loop before acknowledging), 'FULL' (fsync inside COMMIT), 'NORMAL' (no fsync; may lose the last transactions on power loss). */
  dbSynchronous?: 'async' | 'FULL' | 'NORMAL';
  /** An open database to share (the daemon's); the runtime adds its migrations' area. */
  database?: Database;
  /** Boot log lines go here (default console). */
  logger?: BootLogger;
  /** BIP39 signing mnemonic (default env SIGNING_MNEMONIC). */
  signingMnemonic?: string;
  /** Replace the bundled plugin list (default: the bundled plugins). */
  bundledPlugins?: AnyOraclePlugin[];
  heartbeatMs?: number;
  stallTimeoutMs?: number;
  toolTimeoutMs?: number;
  maxSteps?: number;
  pluginStartTimeoutMs?: number;
  allowDelegationFallback?: boolean;
  corsOrigins?: string[] | boolean;
  /** What the `model_not_configured` error tells the user to do (default: LLM_BASE_URL and the model in oracle.config.json). */
  modelHint?: string;
}

type AnyPlugin = OraclePlugin<unknown>;

export class OracleRuntime {
  readonly config: OracleConfig;
  readonly env: Record<string, string | undefined>;
  readonly log: BootLogger;
  readonly db: Database;
  private readonly ownsDb: boolean;
  readonly store: RuntimeStore;
  readonly oracleDid: string;
  readonly tracker: PluginStatusTracker;
  readonly runs: RunManager;
  readonly auth: Authenticator;
  readonly hooks: OracleHooks;
  readonly heartbeatMs: number;
  readonly options: OracleAppOptions;
  private readonly resolved: { plugin: AnyPlugin; ctx: PluginContext<unknown> }[];
  private readonly toolsByPlugin = new Map<string, Record<string, AnyPluginTool>>();
  private readonly meta: Record<string, AnyPluginTool>;
  private signer: Signer | undefined;
  private signerPromise: Promise<void> | undefined;
  private started = false;
  private socketHandle: SocketHandle | undefined;
  /** Runtime services handed to plugins (PluginContext.host). */
  readonly host: PluginHost = {
    startTurn: (userDid, sessionId, input) => this.startTurn(userDid, sessionId, input),
    postMessage: (sessionId, msg) => {
      const id = msg.id ?? `post-${randomUUID()}`;
      this.store.addMessages(sessionId, [{ id, type: 'ai', content: msg.content }]);
      this.store.touchSession(sessionId);
      this.socketHandle?.emitToSession(sessionId, 'message_cache_invalidation', { eventName: 'message_cache_invalidation', payload: { sessionId, requestId: id, eventId: id, reason: 'message posted' } });
      return { id };
    },
    emitToSession: (sessionId, event, payload) => this.socketHandle?.emitToSession(sessionId, event, payload) ?? false,
    awaitClientResult: (sessionId, toolCallId, timeoutMs) =>
      this.socketHandle ? this.socketHandle.awaitResult(sessionId, toolCallId, timeoutMs) : Promise.reject(new Error('no realtime channel: the client must connect over socket.io')),
    emitRunEvent: (sessionId, e) => {
      const run = this.runs.active(sessionId);
      if (!run || run.finished) return false;
      run.emit(e);
      return true;
    },
  };

  /** The socket.io channel (attachSocketIo calls this). */
  attachSocket(s: SocketHandle | undefined): void {
    this.socketHandle = s;
  }

  constructor(o: OracleAppOptions) {
    this.options = o;
    this.config = o.config;
    this.env = o.env ?? process.env;
    this.log = o.logger ?? consoleBootLogger;
    this.hooks = o.hooks ?? {};
    this.heartbeatMs = o.heartbeatMs ?? 15_000;
    if (!o.config || typeof o.config.name !== 'string' || o.config.name === '') throw new BootError("[boot-error] config.name is required (oracle.config.json). Set 'name' in oracle.config.json");
    const all = mergePlugins((o.bundledPlugins ?? BUNDLED_PLUGINS) as AnyPlugin[], (o.plugins ?? []) as AnyPlugin[]);
    const result = resolvePlugins(all, o.features ?? {}, this.env, o.config);
    const mnemonic = o.signingMnemonic ?? this.env.SIGNING_MNEMONIC;
    let derived = '';
    if (!o.config.oracleDid && mnemonic) {
      try {
        derived = didFromMnemonic(mnemonic);
      } catch {
        throw new BootError("[boot-error] SIGNING_MNEMONIC is not a valid BIP39 mnemonic. Set 'SIGNING_MNEMONIC' to the oracle's 12/24-word mnemonic");
      }
    }
    this.oracleDid = o.config.oracleDid ?? derived;
    this.ownsDb = !o.database;
    this.db = o.database ?? openDatabase({ path: o.dbPath ?? this.env.ORACLE_DB_PATH ?? './data/oracle.db', migrations: { runtime: RUNTIME_MIGRATIONS }, synchronous: o.dbSynchronous ?? (this.env.ORACLE_DB_SYNCHRONOUS === 'NORMAL' || this.env.ORACLE_DB_SYNCHRONOUS === 'FULL' ? this.env.ORACLE_DB_SYNCHRONOUS : 'async') });
    if (o.database) {
      // the daemon's database: add this area's migrations
      openMigrations(o.database);
    }
    this.store = new RuntimeStore(this.db, { did: this.oracleDid, name: o.config.name });
    this.store.failOrphanRuns();
    this.tracker = new PluginStatusTracker(result);
    this.runs = new RunManager(this.store);
    const fallback = o.allowDelegationFallback ?? /^(1|true|yes)$/i.test(this.env.ORACLE_ALLOW_DELEGATION_AUTH ?? '');
    this.auth = new Authenticator({ store: this.store, oracleDid: this.oracleDid, allowDelegationFallback: fallback, signingKeyLoaded: () => this.signer !== undefined });
    this.resolved = result.ordered.map(({ plugin, env }) => ({
      plugin,
      ctx: { env, store: this.store, config: this.config, log: (l: string) => this.log.info(l), host: this.host },
    }));
    for (const { plugin, ctx } of this.resolved) {
      const tools = plugin.tools?.(ctx) ?? {};
      for (const sa of plugin.subAgents ?? []) tools[subAgentToolName(sa.name)] = this.subAgentTool(sa, tools);
      this.toolsByPlugin.set(plugin.name, tools);
    }
    this.meta = metaTools({
      plugins: () => this.activePlugins().map((p) => p.plugin),
      toolsOf: (name) => Object.entries(this.toolsByPlugin.get(name) ?? {}).map(([n, t]) => ({ name: n, description: t.description })),
      saveState: (turn) => {
        const snapshot = JSON.parse(JSON.stringify(turn.state)) as Record<string, unknown>;
        void this.store.defer(() => this.store.setSessionState(turn.sessionId, snapshot));
      },
    });
    logBoot(this.log, result);
    this.hooks.onBoot?.(this.tracker.status());
  }

  /**
   * A sub-agent as a tool of its plugin: `ask_<name>({task})` runs its own
   * model loop with its prompt and the plugin's tools (all, or those it
   * names) and returns its answer.
   */
  private subAgentTool(sa: SubAgent, pluginTools: Record<string, AnyPluginTool>): AnyPluginTool {
    return defineTool({
      description: `Delegate a task to the ${sa.name} sub-agent: ${sa.description}`,
      inputSchema: z.object({ task: z.string().min(1).describe('what the sub-agent should do, with the context it needs') }),
      timeoutMs: this.options.toolTimeoutMs ? this.options.toolTimeoutMs * 4 : 120_000,
      execute: async ({ task }, turn) => {
        const names = sa.tools ?? Object.keys(pluginTools).filter((n) => n !== subAgentToolName(sa.name));
        const tools: ToolSet = {};
        for (const n of names) {
          const t = pluginTools[n];
          if (t) tools[n] = tool({ description: t.description, inputSchema: cachedSchema(t.inputSchema), execute: async (i: unknown) => t.execute(i as never, turn) } as never);
        }
        const r = await generateText({
          model: this.model(),
          instructions: sa.prompt,
          prompt: task,
          tools,
          stopWhen: isStepCount(this.options.maxSteps ?? 12),
          abortSignal: turn.abortSignal,
          maxRetries: 0,
        } as never);
        return { subAgent: sa.name, answer: (r as { text: string }).text };
      },
    });
  }

  /** Secrets of the environment never leave the runtime in an error text. */
  redact(text: string): string {
    let out = text;
    for (const k of ['LLM_PROVIDER_API_KEY', 'SIGNING_MNEMONIC']) {
      const v = this.env[k];
      if (v && v.length >= 4) out = out.split(v).join('[redacted]');
    }
    const m = this.options.signingMnemonic;
    if (m && m.length >= 4) out = out.split(m).join('[redacted]');
    return out;
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
    return { ready: pending.length === 0, pending };
  }

  /** Starts background plugins and the signing key load; never blocks. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const mnemonic = this.options.signingMnemonic ?? this.env.SIGNING_MNEMONIC;
    if (mnemonic && !this.signerPromise) {
      this.signerPromise = this.loadSigningKey(mnemonic).catch((e: unknown) => {
        this.log.error(`[boot-error] signing key not loaded: ${(e as Error).message}. Set 'SIGNING_MNEMONIC' to a valid BIP39 mnemonic`);
      });
    }
    this.tracker.startBackground(
      this.resolved.filter(({ plugin }) => plugin.start).map(({ plugin, ctx }) => ({ name: plugin.name, start: () => plugin.start!(ctx), timeoutMs: this.options.pluginStartTimeoutMs ?? 60_000 })),
      this.log,
    );
  }

  private readonly modelCache = new Map<string, LanguageModel>();

  model(id?: string): LanguageModel {
    const baseURL = this.env.LLM_BASE_URL;
    const modelId = id ?? this.config.model ?? this.env.LLM_MODEL;
    if (!baseURL || !modelId) throw runtimeError('model_not_configured', `no model configured: ${this.options.modelHint ?? 'set LLM_BASE_URL and the model in oracle.config.json'}`);
    // one model object per (endpoint, key, model): building one compiles the
    // provider's zod chunk schemas (~0.5 ms), which a turn must not pay twice
    const key = `${baseURL}\n${this.env.LLM_PROVIDER_API_KEY ?? ''}\n${modelId}`;
    let m = this.modelCache.get(key);
    if (!m) {
      const provider = createOpenAICompatible({ name: 'oracle-llm', baseURL, apiKey: this.env.LLM_PROVIDER_API_KEY, includeUsage: true });
      m = provider.chatModel(modelId);
      if (this.modelCache.size >= 32) this.modelCache.delete(this.modelCache.keys().next().value!);
      this.modelCache.set(key, m);
    }
    return m;
  }

  models(): { models: { id: string; name: string }[]; default: string | null } {
    const ids = [...new Set([this.config.model ?? this.env.LLM_MODEL, ...(this.config.models ?? [])].filter((x): x is string => !!x))];
    return { models: ids.map((id) => ({ id, name: id })), default: ids[0] ?? null };
  }

  private history(sessionId: string): ModelMessage[] {
    return transcript(this.store.history(sessionId));
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
        void this.store.defer(() => this.store.setSessionState(s, snapshot));
      },
      persist: (s, msgs) =>
        this.store.defer(() => {
          this.store.addMessages(s, msgs);
          this.store.touchSession(s);
        }),
      maxSteps: this.options.maxSteps ?? Number(this.env.ORACLE_MAX_STEPS ?? 12),
      redact: (text) => this.redact(text),
      stallTimeoutMs: this.options.stallTimeoutMs ?? Number(this.env.LLM_STALL_TIMEOUT_MS ?? 60_000),
      toolTimeoutMs: this.options.toolTimeoutMs ?? Number(this.env.ORACLE_TOOL_TIMEOUT_MS ?? 30_000),
      hooks: this.hooks,
    };
  }

  /** Starts a turn in a session the caller owns; the run continues without any subscriber. */
  startTurn(userDid: string, sessionId: string, input: TurnInput): Run {
    const session = this.store.getSession(userDid, sessionId);
    if (!session) throw runtimeError('session_not_found', `no session ${sessionId}`);
    if (this.runs.active(sessionId)) throw runtimeError('run_in_progress', 'this session already has a running run; abort it or rejoin it');
    this.model(input.model); // configuration errors surface as HTTP errors, not streams
    for (const { plugin, ctx } of this.activePlugins()) plugin.gateTurn?.({ userDid, sessionId, message: input.message }, ctx); // e.g. 402
    const run = this.runs.start({ sessionId, userDid });
    if (session.title === 'New chat') void this.store.defer(() => this.store.touchSession(sessionId, input.message.slice(0, 60)));
    void runTurn(this.agentDeps(), run, input).catch((e: unknown) => {
      this.hooks.onError?.(e);
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
      .map(({ plugin, ctx }) => Promise.resolve().then(() => plugin.stop!(ctx)).catch((e: unknown) => this.hooks.onError?.(e)));
    await Promise.race([Promise.all(stops), new Promise((r) => setTimeout(r, 2000).unref())]);
    await new Promise((r) => setImmediate(r));
    this.store.flush();
    if (this.ownsDb) this.db.close();
  }
}

export function subAgentToolName(name: string): string {
  return `ask_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function openMigrations(db: Database): void {
  // Re-open through the storage module's migrator: same connection file, area 'runtime'.
  if (db.path === ':memory:') {
    throw new BootError("[boot-error] a shared in-memory database cannot take the runtime's migrations. Pass dbPath instead");
  }
  openDatabase({ path: db.path, migrations: { runtime: RUNTIME_MIGRATIONS } }).close();
}
