/**
 * What createOracle and createOracleApp take (runtime.md, "Options"): the
 * project's config, model and plugins, and the settings that override the
 * runtime's environment (settings.ts).
 */
import type { BootLogger } from './boot.ts';
import type { RuntimeLog } from './log.ts';
import type { OracleModel } from './models.ts';
import type { AnyOraclePlugin, OracleConfig, PaymentVerifier, TurnContext } from './plugin.ts';
import type { RunLimits } from './agent/index.ts';
import type { UcanAuthMode, UcanReplayMode } from './auth.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import type { Storage } from '../storage/storage.ts';

export interface OracleHooks {
  /** After boot resolution (before listening). */
  onBoot?: (status: PluginsStatus) => void;
  onTurnStart?: (turn: TurnContext) => void | Promise<void>;
  onTurnEnd?: (turn: TurnContext, result: { status: string; text: string }) => void | Promise<void>;
  onError?: (error: unknown, turn?: TurnContext) => void;
}

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
