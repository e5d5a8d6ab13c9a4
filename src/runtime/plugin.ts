/**
 * The plugin contract (runtime.md, "Plugin contract"; docs/plugins.md). A
 * bundled plugin and a project's own plugin implement the same interface.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { RuntimeStore } from './store.ts';
import type { Run } from './run.ts';
import type { RuntimeLog } from './log.ts';
import type { Migration } from '../storage/storage.ts';
import type { FetchJsonReply, FetchOkRequest } from '../lib/fetch-json.ts';
import type { AnyEventInput, ClientAction, ClientTool } from '../lib/protocol/index.ts';
import { messageErrorFactory, type ErrorTable } from '../lib/errors.ts';
import { RUNTIME_ERRORS } from '../lib/protocol/errors.ts';

export type Visibility = 'always' | 'on-demand' | 'silent';
export type Stability = 'stable' | 'beta' | 'experimental';

/** What a gate charged for a turn. */
export interface TurnCharge {
  charged: { amount: number; denom: string };
}

export interface PluginManifest {
  title: string;
  summary: string;
  whenToUse: string[];
  whenNotToUse?: string[];
  visibility: Visibility;
  stability: Stability;
  category: string;
  defaultState: 'on' | 'off';
  dependsOn: string[];
}

/** What a tool, middleware or state loader sees of the current turn. */
export interface TurnContext {
  userDid: string;
  sessionId: string;
  requestId: string;
  /** The session's shared state (persisted): loadedPlugins and plugin keys. */
  state: Record<string, unknown>;
  /** The user → oracle delegation of the request, when one was sent or stored. */
  delegation?: string;
  abortSignal: AbortSignal;
  timezone?: string;
  metadata?: Record<string, unknown>;
  /** The human message of this turn (e.g. to recall relevant memories before the model call). */
  message?: string;
  /** The client's tools of this request (body `tools[]`, run in the browser: portal). */
  clientTools?: ClientTool[];
  /** The client's actions of this request (body `agActions[]`: ag-ui). */
  agActions?: ClientAction[];
}

/** What a turn gate sees before a run starts (credits). */
export interface TurnRequest {
  userDid: string;
  sessionId: string;
  message: string;
}

/** A turn's model request sent before the turn is confirmed (PluginHost.preemptTurn). */
export interface PreemptedTurn {
  /**
   * Gives `listener` the reply's text as it streams, before a turn takes it (to prepare what the answer needs, such as
   * its first words' speech), until it returns false or a turn takes it; `undefined` once the reply's first step
   * ended. Nothing if the request was not sent.
   */
  watchText(listener: (delta: string | undefined) => boolean | void): void;
  /** Ends the request unless a turn took it. */
  cancel(): void;
}

/** Runtime services a plugin may use from tools, routes and background work. */
export interface PluginHost {
  /**
   * Starts an agent turn for a user in one of their sessions (transports, task workers). `preempted`: the turn's
   * model request sent early (preemptTurn), used if the turn's own request is the same; else it is cancelled.
   */
  startTurn(
    userDid: string,
    sessionId: string,
    input: { message: string; metadata?: Record<string, unknown> },
    preempted?: PreemptedTurn,
  ): Promise<Run>;
  /**
   * Sends the model request of a turn not yet confirmed (a call's preemptive generation: the user may still be
   * speaking), made as the turn would make it, with nothing stored, charged or run: the turn that confirms it is
   * given it (startTurn), and streams from it when its own request is the same; a tool it calls waits for that
   * turn. What is not given to a turn is cancelled, and ends by itself after 10 s. The model's tokens of a
   * cancelled request are spent.
   */
  preemptTurn(
    userDid: string,
    sessionId: string,
    input: { message: string; metadata?: Record<string, unknown> },
  ): PreemptedTurn;
  /**
   * Readies the model for a turn that must not wait (a call's, as its user starts speaking): opens a connection to
   * the provider, so that the turn's request does not wait for a TCP and a TLS handshake (at most once every 2 s),
   * and the process's first time, runs the turn's model path once against a reply given in memory, so that the
   * first answer does not pay for its first run (agent/rehearse.ts). Never throws; nothing for a model given to
   * createOracle.
   */
  prepareModel(): void;
  /** Appends an AI message to a session (a background result) and tells its socket clients. */
  postMessage(sessionId: string, msg: { id?: string; content: string }): Promise<{ id: string }>;
  /** Emits a raw socket.io event to the session's room; false when no realtime channel is attached. */
  emitToSession(sessionId: string, event: string, payload: unknown): boolean;
  /** Waits for a client's tool_result / action_call_result (rejects after timeoutMs). */
  awaitClientResult(sessionId: string, toolCallId: string, timeoutMs: number): Promise<unknown>;
  /** Emits an SSE event on the session's active run (e.g. action_call); false when none runs. */
  emitRunEvent(sessionId: string, e: AnyEventInput): boolean;
  /**
   * For a use that costs like a turn (a call): counts it against the user's turn limit (ORACLE_USER_TURNS_PER_MINUTE,
   * shared by the instances on Redis: 429 rate_limited with Retry-After), then runs the active plugins' turn gates
   * (credits: 402 with claims); a use the gates refuse gives its count back.
   */
  gateTurn(req: TurnRequest): Promise<void>;
  /** The operator's payment verifier (OracleAppOptions.verifyPayment); undefined: reported payments are IOUs. */
  verifyPayment?: PaymentVerifier;
}

/** A payment a user reports (credits: POST /credits/pay), for the operator to verify before its claims count. */
export interface PaymentToVerify {
  /** Who reports the payment: a settlement paid by someone else, or to someone else, is not theirs. */
  userDid: string;
  claimIds: string[];
  /** The claims it pays (each with its amount and session), as the ledger holds them. */
  claims: { claimId: string; amount: number; denom: string; sessionId: string; createdAt: string }[];
  /** Their total: the settlement must carry exactly this amount of `denom`. */
  amount: number;
  denom: string;
  /**
   * What the user gave to find the settlement (a transaction id, a provider's payment id). A reference that is
   * verified once is recorded and never pays again (409 payment_reference_used), for this user or another.
   */
  reference?: string;
}

/** The operator's answer: settled (the claims count as paid), or not, with why (the user is told). */
export type PaymentVerification = { settled: true } | { settled: false; reason: string };

/** Checks a reported payment against its settlement (a chain, a payment provider): OracleAppOptions.verifyPayment. */
export type PaymentVerifier = (p: PaymentToVerify) => Promise<PaymentVerification>;

/** A request of a plugin's `ctx.fetch`: fetchOk's, the transport being the runtime's. */
export type PluginFetchRequest = Omit<FetchOkRequest, 'fetch'>;

/**
 * The platform's services to a plugin, its one way to each (docs/plugins.md, "The plugin context"): its parsed
 * environment, the oracle's store, config, clock, log and outbound HTTP, its migrations, and the runtime's host
 * services.
 */
export interface PluginContext<Env = Record<string, unknown>> {
  /** The plugin's environment, parsed by its env schema after the one env rule (a blank variable is unset). */
  env: Env;
  store: RuntimeStore;
  config: OracleConfig;
  /**
   * The oracle's log (pino, JSON lines at LOG_LEVEL), a child whose every line carries `plugin: <name>`:
   * `ctx.log.warn({ channel }, 'reply not posted')`. Never put a secret in it.
   */
  log: RuntimeLog;
  /** The runtime's clock, ms since the epoch (OracleAppOptions.now): what a plugin stamps and schedules with. */
  now: () => number;
  /**
   * The one outbound HTTP call (lib/fetch-json.ts `fetchOk`, on the runtime's transport): a time-out on every call;
   * no answer, or a status other than 2xx (or one of `accept`), throws 502 `upstream_error` naming `what`, the
   * status and the upstream's own message.
   */
  fetch: <T = unknown>(r: PluginFetchRequest) => Promise<FetchJsonReply<T>>;
  /**
   * Applies the plugin's migrations (its area is its name) on the oracle's database, once: every caller awaits the
   * same run; after a failure (the database away) the next call tries again. Await it before touching the tables.
   */
  migrate: (steps: Migration[]) => Promise<void>;
  /** Runtime services (turns, messages, realtime channel). */
  host: PluginHost;
}

export interface PluginTool<I = unknown> {
  description: string;
  inputSchema: z.ZodType<I>;
  /** The result the model reads: JSON, text, or an image (toolImage). */
  execute: (input: I, turn: TurnContext, call?: { toolCallId: string }) => Promise<unknown> | unknown;
  /** Time-out of one call (default: the runtime's toolTimeoutMs). */
  timeoutMs?: number;
}

const TOOL_IMAGE = Symbol.for('oraclekit.toolImage');

/**
 * An image a tool returns for the model to look at (docs/plugins.md, "A tool that returns an image"): the model
 * receives it as an image part of the turn, with `text`; the run's events and the history keep `text` and the
 * image's size, never its pixels. Build it with toolImage().
 */
export interface ToolImage {
  readonly [TOOL_IMAGE]: true;
  mediaType: 'image/png' | 'image/jpeg';
  /** The encoded image, base64. */
  data: string;
  width: number;
  height: number;
  /** What the model reads with the image (and what the history keeps of it). */
  text: string;
}

/** A tool's result that is an image for the model (see ToolImage). */
export function toolImage(i: Omit<ToolImage, typeof TOOL_IMAGE>): ToolImage {
  return { ...i, [TOOL_IMAGE]: true };
}

export function isToolImage(v: unknown): v is ToolImage {
  return typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[TOOL_IMAGE] === true;
}

export interface SubAgent {
  name: string;
  description: string;
  /** The sub-agent's own system prompt; it runs with the plugin's tools. */
  prompt: string;
  tools?: string[];
}

export interface PluginMiddleware {
  /** Before each model step: may add text to the system prompt of the turn. */
  beforeModel?: (turn: TurnContext) => Promise<string | void> | string | void;
  afterModel?: (turn: TurnContext, step: { text: string; finishReason: string }) => Promise<void> | void;
  /** Before a tool call: may replace its input (return a value) or throw to refuse it. */
  beforeTool?: (turn: TurnContext, call: { toolName: string; input: unknown }) => Promise<unknown> | unknown;
  afterTool?: (
    turn: TurnContext,
    call: { toolName: string; input: unknown; output?: unknown; error?: string },
  ) => Promise<void> | void;
}

export interface OraclePlugin<Env = Record<string, unknown>> {
  name: string;
  version: string;
  manifest: PluginManifest;
  /**
   * The plugin's own error codes (code → HTTP status and when it applies),
   * merged with the runtime's shared table at boot; build its errors with
   * pluginErrorFactory(table). A code the runtime or another plugin already
   * uses with another status is a boot error.
   */
  errors?: ErrorTable;
  /** Variables the plugin needs: a blank one excludes it (auto-detect). */
  requiredEnv?: string[];
  /** zod schema of the plugin's environment (keys are variable names). */
  envSchema?: z.ZodType<Env>;
  tools?: (ctx: PluginContext<Env>) => Record<string, PluginTool<never>>;
  subAgents?: SubAgent[];
  middleware?: PluginMiddleware;
  /** HTTP routes, registered inside the runtime's scope. */
  routes?: (app: FastifyInstance, ctx: PluginContext<Env>) => Promise<void> | void;
  /** Route URLs (as registered) that need no authentication. */
  authExcludedRoutes?: string[];
  /** Shared state keys the plugin owns in the session state. */
  stateKeys?: string[];
  /** Loads the plugin's state before the agent is compiled for a turn. */
  loadState?: (
    turn: TurnContext,
    ctx: PluginContext<Env>,
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Text for the system prompt, from the turn's state. */
  systemPrompt?: (state: Record<string, unknown>, ctx: PluginContext<Env>) => string | undefined;
  /** A start that finishes in the background (pending → loaded / failed). */
  start?: (ctx: PluginContext<Env>) => Promise<void>;
  /**
   * Whether `start` has anything to do with this environment (default: yes).
   * When it returns false the plugin is loaded at boot, not pending (domains:
   * no API key, so no credentials to check).
   */
  startsWhen?: (env: Env) => boolean;
  /** Releases what start or tools opened (connections, timers); called by close(). */
  stop?: (ctx: PluginContext<Env>) => Promise<void> | void;
  /** Tools of one turn, e.g. from the request body (visibility rules as for `tools`). */
  turnTools?: (turn: TurnContext, ctx: PluginContext<Env>) => Record<string, PluginTool<never>>;
  /**
   * Before a run starts: throw an OracleKitError (e.g. 402) to refuse the
   * turn; return `{charged}` when letting it through costs the user (the
   * turn's `done` event reports it in its usage).
   */
  gateTurn?: (req: TurnRequest, ctx: PluginContext<Env>) => Promise<void | TurnCharge> | void | TurnCharge;
  /**
   * Enablement from oracle.config.json (credits: price > 0): return
   * {exclude: reason} to leave the plugin out, {invalid: {field, why}} for a
   * boot error, or nothing to go on with the environment rules.
   */
  detect?: (config: OracleConfig) => { exclude?: string; invalid?: { field: string; why: string } } | undefined;
}

/**
 * The error builder of a plugin: its own codes and the runtime's shared ones
 * (upstream_error, validation_failed, not_ready, …), e.g.
 * `const quotesError = pluginErrorFactory(QUOTES_ERRORS); throw quotesError('quote_not_found', 'no quote …', { field:
 * 'id' })`.
 */
export function pluginErrorFactory<T extends ErrorTable>(table: T) {
  return messageErrorFactory<typeof RUNTIME_ERRORS & T>({ ...RUNTIME_ERRORS, ...table });
}

/**
 * Types a plugin: its context's `env` is what its `envSchema` gives (defaults applied), with no cast.
 *
 * @example
 * const Env = z.object({ QUOTES_URL: z.url().default('https://quotes.example.com') });
 * export const quotes = definePlugin({
 *   name: 'quotes',
 *   version: '1.0.0',
 *   manifest,
 *   envSchema: Env,
 *   tools: (ctx) => ({
 *     quote: defineTool({
 *       description: 'A quote of the day',
 *       inputSchema: z.object({}),
 *       execute: async () => (await ctx.fetch({ url: `${ctx.env.QUOTES_URL}/today`, what: 'the quotes service' })).body,
 *     }),
 *   }),
 * });
 */
export function definePlugin<Env = Record<string, unknown>>(p: OraclePlugin<Env>): OraclePlugin<Env> {
  return p;
}

export interface OracleConfig {
  name: string;
  description?: string;
  prompt?: string;
  model?: string;
  /** Other selectable models (ids). */
  models?: string[];
  oracleDid?: string;
  price?: number;
}

/** A tool of any input type, as stored in a plugin's tool map. */
export type AnyPluginTool = PluginTool<never>;

/**
 * Types a tool by its zod input schema (its `execute` gets the parsed input) and erases it for the tool map.
 * @example
 * tools: (ctx) => ({
 *   convert_currency: defineTool({
 *     description: 'Converts an amount between two ISO currencies at today’s rate.',
 *     inputSchema: z.object({ amount: z.number(), from: z.string().length(3), to: z.string().length(3) }),
 *     execute: async ({ amount, from, to }) => {
 *       const url = `${ctx.env.RATES_URL}/${from}/${to}`;
 *       const { body } = await ctx.fetch<{ rate: number }>({ url, what: 'the rates service' });
 *       return { amount: amount * body.rate, currency: to };
 *     },
 *   }),
 * }),
 */
export function defineTool<I>(t: PluginTool<I>): AnyPluginTool {
  return t as unknown as AnyPluginTool;
}

/** A plugin of any environment type (lists of bundled and project plugins). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOraclePlugin = OraclePlugin<any>;
