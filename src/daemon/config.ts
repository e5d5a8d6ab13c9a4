/**
 * Where the daemon keeps its files, and the deployment config it reads.
 *
 * Directories (first match wins):
 * - state (discovery file daemon.json, daemon.log): $ORACLEKIT_HOME/state,
 *   $XDG_STATE_HOME/oraclekit, ~/.local/state/oraclekit
 * - data (registry.db): $ORACLEKIT_DB (a file), $ORACLEKIT_HOME/data,
 *   $XDG_DATA_HOME/oraclekit, ~/.local/share/oraclekit
 * - config (daemon.json = the deployment config; settings.json = the CLI's
 *   saved registry URL and API key; oracle-key.json = the default oracle's
 *   signing mnemonic, 0600): $ORACLEKIT_DAEMON_CONFIG (the file),
 *   $ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit, ~/.config/oraclekit
 *
 * Port: --port, else $ORACLEKIT_DAEMON_PORT, else the config file's `port`,
 * else 4781. Host: 127.0.0.1 unless the config file says otherwise.
 *
 * daemon.json is read by the one config-file reader (lib/json-file.ts) with
 * one zod schema (daemonConfigSchema) and, with the daemon's flags and
 * environment, resolved once at start (resolveSettings); nothing else reads
 * them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_HOST, DEFAULT_PORT, configPath } from '../lib/paths.ts';

import { z } from 'zod';
import { checkDid } from '../lib/did/did.ts';
import { OracleKitError, showValue } from '../lib/errors.ts';
import { checkPostgresUrl, redact } from '../storage/open.ts';
import { toolEnv } from '../lib/env.ts';
import { checkJsonFile, parseJsonFile, type JsonFileProblem } from '../lib/json-file.ts';
import { DEFAULT_RULE, ruleFromJson, type SnapshotVoter, type TallyRule } from '../lib/registry/tally.ts';

export interface DeploymentConfig {
  host: string;
  port: number;
  voters: SnapshotVoter[];
  tally: TallyRule;
  revoting: boolean;
  /** Seconds a verification proposal stays open. */
  proposalDurationSeconds: number;
  /** Requests per key (or per IP without a key) per window. */
  rateLimit: { max: number; timeWindowMs: number };
  bodyLimitBytes: number;
  logLevel: string;
  /** The default oracle the daemon hosts (docs/daemon.md, "The default oracle"). */
  oracle: DaemonOracleConfig;
  /** POST /admin/v1/keys needs a DID proof (registry.md, "DID proof at key creation"). Default false. */
  requireDidProof: boolean;
  /** The registry's PostgreSQL database (postgres://…); absent = SQLite at ORACLEKIT_DB (docs/storage.md). */
  databaseUrl?: string;
  /** The Redis the daemons of a deployment count the rate limit in (redis://…); absent = each daemon counts alone. */
  redisUrl?: string;
}

export interface DaemonOracleConfig {
  /** false: the daemon hosts no oracle. Default true. */
  enabled: boolean;
  name: string;
  description?: string;
  prompt?: string;
  /** Model id (else $LLM_MODEL of the daemon's environment). */
  model?: string;
  models?: string[];
  /** Plugin name → true (forced) | false (never); absent = auto-detect from the daemon's environment. */
  features?: Record<string, boolean>;
}

export const DEFAULT_CONFIG: DeploymentConfig = {
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  voters: [],
  tally: DEFAULT_RULE,
  revoting: false,
  proposalDurationSeconds: 7 * 24 * 3600,
  rateLimit: { max: 1200, timeWindowMs: 60_000 },
  bodyLimitBytes: 64 * 1024,
  logLevel: 'info',
  oracle: { enabled: true, name: 'oraclekit default oracle' },
  requireDidProof: false,
};

function bad(message: string, field: string, value: unknown, valid: string): OracleKitError {
  return new OracleKitError({ status: 400, code: 'invalid_config', message: `config ${message}`, field, value, valid });
}

const did = z.string().superRefine((v, ctx) => {
  const c = checkDid(v);
  if (!c.ok) ctx.addIssue({ code: 'custom', message: c.reason ?? 'not a DID', params: { valid: 'a DID' } });
});

const nonEmpty = z.string().min(1);

/** daemon.json's oracle section (docs/daemon.md, "The default oracle"). */
const daemonOracleSchema = z.strictObject({
  enabled: z.boolean().optional(),
  name: nonEmpty.optional(),
  description: nonEmpty.optional(),
  prompt: nonEmpty.optional(),
  model: nonEmpty.optional(),
  models: z.array(nonEmpty).optional(),
  features: z.record(z.string(), z.boolean()).optional(),
});

/**
 * daemon.json (docs/daemon.md, "The deployment config"): every key optional,
 * unknown keys refused. The tally's fractions are parsed by ruleFromJson
 * (exact fractions from decimal strings, numbers or percentages).
 */
const daemonConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  comment: z.string().optional(),
  host: z.string().min(1).optional().describe('a host name or IP'),
  port: z.number().int().min(0).max(65535).optional(),
  voters: z
    .array(z.strictObject({ did, weight: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1) }))
    .superRefine((vs, ctx) => {
      const seen = new Set<string>();
      vs.forEach((v, i) => {
        if (seen.has(v.did))
          ctx.addIssue({ code: 'custom', path: [i, 'did'], message: 'repeats', params: { valid: 'each voter once' } });
        seen.add(v.did);
      });
    })
    .optional(),
  tally: z.record(z.string(), z.unknown()).optional(),
  revoting: z.boolean().optional(),
  proposalDurationSeconds: z.number().positive().optional(),
  rateLimit: z
    .strictObject({ max: z.number().int().min(1).optional(), timeWindowMs: z.number().int().min(1).optional() })
    .optional(),
  bodyLimitBytes: z.number().int().min(1024).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  oracle: daemonOracleSchema.optional(),
  requireDidProof: z.boolean().optional(),
  databaseUrl: z
    .string()
    .superRefine((v, ctx) => {
      try {
        checkPostgresUrl(v, 'databaseUrl');
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          message: (e as Error).message.replace(/^.*? is not a PostgreSQL URL: /, 'not a PostgreSQL URL: '),
          params: { valid: 'postgres://user[:password]@host[:port]/database (or postgresql://)' },
        });
      }
    })
    .optional(),
  redisUrl: z
    .string()
    .superRefine((v, ctx) => {
      try {
        checkRedisUrl(v, 'redisUrl');
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          message: (e as Error).message.replace(/^.*? is not a Redis URL: /, 'not a Redis URL: '),
          params: { valid: REDIS_URL_VALID },
        });
      }
    })
    .optional(),
});

const REDIS_URL_VALID = 'redis://[user[:password]@]host[:port][/db] (or rediss://)';

/**
 * Checks a Redis URL: scheme redis:// or rediss://, parseable, with a host.
 * Throws invalid_config naming the setting and the value (without its password).
 */
function checkRedisUrl(url: string, setting = 'redisUrl'): void {
  const fail = (why: string) =>
    bad(`${setting} = ${showValue(redact(url))} is not a Redis URL: ${why}`, setting, redact(url), REDIS_URL_VALID);
  if (!/^rediss?:\/\//i.test(url)) throw fail('the scheme must be redis:// or rediss://');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw fail('it does not parse as a URL');
  }
  if (!u.hostname) throw fail('it names no host');
  if (u.pathname !== '' && u.pathname !== '/' && !/^\/\d+$/.test(u.pathname))
    throw fail('the path must be a database number (/0, /1, …)');
}

/** A password in a URL of daemon.json never reaches a message or a log. */
const CONFIG_FILE = {
  shown: (field: string, v: unknown) =>
    (field === 'databaseUrl' || field === 'redisUrl') && typeof v === 'string' ? redact(v) : v,
};

/** A problem of daemon.json (json-file.ts) → invalid_config naming the key, its value and what is valid. */
function configError(p: JsonFileProblem): OracleKitError {
  return new OracleKitError({
    status: 400,
    code: 'invalid_config',
    message: p.message,
    ...(p.field !== undefined ? { field: p.field, value: p.value } : {}),
    ...(p.field !== undefined
      ? { valid: p.unknownKey ? 'the keys of docs/daemon.md, "The deployment config"' : p.valid }
      : {}),
  });
}

/**
 * Parses the deployment config (the JSON of `path`, default daemon.json), once, with daemonConfigSchema through
 * the one config-file reader (json-file.ts); defaults fill what it leaves out.
 */
export function parseConfig(raw: unknown, path = 'daemon.json'): DeploymentConfig {
  const r = checkJsonFile(path, raw, daemonConfigSchema, CONFIG_FILE);
  if (!r.ok) throw configError(r.problem);
  return withDefaults(r.value);
}

function withDefaults(o: z.infer<typeof daemonConfigSchema>): DeploymentConfig {
  const d = DEFAULT_CONFIG;
  return {
    host: o.host ?? d.host,
    port: o.port ?? d.port,
    voters: o.voters ?? d.voters,
    tally: o.tally !== undefined ? ruleFromJson(o.tally) : d.tally,
    revoting: o.revoting ?? d.revoting,
    proposalDurationSeconds: o.proposalDurationSeconds ?? d.proposalDurationSeconds,
    rateLimit: {
      max: o.rateLimit?.max ?? d.rateLimit.max,
      timeWindowMs: o.rateLimit?.timeWindowMs ?? d.rateLimit.timeWindowMs,
    },
    bodyLimitBytes: o.bodyLimitBytes ?? d.bodyLimitBytes,
    logLevel: o.logLevel ?? d.logLevel,
    oracle: o.oracle ? parseOracle(o.oracle) : { ...d.oracle },
    requireDidProof: o.requireDidProof ?? d.requireDidProof,
    ...(o.databaseUrl !== undefined ? { databaseUrl: o.databaseUrl } : {}),
    ...(o.redisUrl !== undefined ? { redisUrl: o.redisUrl } : {}),
  };
}

function parseOracle(o: z.infer<typeof daemonOracleSchema>): DaemonOracleConfig {
  const c: DaemonOracleConfig = { ...DEFAULT_CONFIG.oracle };
  if (o.enabled !== undefined) c.enabled = o.enabled;
  for (const k of ['name', 'description', 'prompt', 'model'] as const) if (o[k] !== undefined) c[k] = o[k];
  if (o.models !== undefined) c.models = o.models;
  if (o.features !== undefined) c.features = o.features;
  return c;
}

/** What the daemon process runs with: daemon.json, then its environment and flags, resolved once at start. */
interface DaemonSettings {
  config: DeploymentConfig;
  host: string;
  port: number;
  /** storage durability (src/storage/sqlite.ts): ORACLEKIT_DB_SYNCHRONOUS, 'async' by default. */
  dbSynchronous: 'async' | 'FULL' | 'NORMAL';
  /**
   * The registry's PostgreSQL URL: ORACLEKIT_DATABASE_URL, else daemon.json's databaseUrl; undefined = SQLite at
   * ORACLEKIT_DB.
   */
  databaseUrl: string | undefined;
  /**
   * The shared rate limit's Redis: ORACLEKIT_REDIS_URL, else daemon.json's redisUrl (also in config.redisUrl);
   * undefined = local.
   */
  redisUrl: string | undefined;
}

const portText = z
  .string()
  .regex(/^\d{1,5}$/)
  .transform(Number)
  .pipe(z.number().int().max(65535));

/**
 * The daemon's settings: port from --port, else ORACLEKIT_DAEMON_PORT, else
 * daemon.json, else 4781; host from --host, else daemon.json; durability from
 * ORACLEKIT_DB_SYNCHRONOUS (async | FULL | NORMAL; empty = async); the
 * database from ORACLEKIT_DATABASE_URL (a postgres:// URL), else daemon.json's
 * databaseUrl, else none (SQLite at ORACLEKIT_DB); the shared rate limit's
 * Redis from ORACLEKIT_REDIS_URL, else daemon.json's redisUrl, else none.
 */
export function resolveSettings(
  config: DeploymentConfig,
  flags: { port?: string | undefined; host?: string | undefined },
  env: Record<string, string | undefined>,
): DaemonSettings {
  const t = toolEnv(env);
  let port = config.port;
  const [portField, portValue] =
    flags.port !== undefined ? ['--port', flags.port] : ['ORACLEKIT_DAEMON_PORT', t.daemonPort];
  if (portValue !== undefined && portValue !== '') {
    const r = portText.safeParse(portValue);
    if (!r.success)
      throw bad(
        `${portField} = ${JSON.stringify(portValue)} is not a port`,
        portField,
        portValue,
        'an integer 0..65535',
      );
    port = r.data;
  }
  const sync = t.dbSynchronous;
  if (sync !== undefined && sync !== 'async' && sync !== 'FULL' && sync !== 'NORMAL') {
    throw bad(
      `ORACLEKIT_DB_SYNCHRONOUS = ${JSON.stringify(sync)} is not known`,
      'ORACLEKIT_DB_SYNCHRONOUS',
      sync,
      'async (default), FULL or NORMAL',
    );
  }
  const envUrl = t.databaseUrl;
  let databaseUrl = config.databaseUrl;
  if (envUrl !== undefined) {
    checkPostgresUrl(envUrl, 'ORACLEKIT_DATABASE_URL');
    databaseUrl = envUrl;
  }
  const envRedis = t.redisUrl;
  let redisUrl = config.redisUrl;
  if (envRedis !== undefined) {
    checkRedisUrl(envRedis, 'ORACLEKIT_REDIS_URL');
    redisUrl = envRedis;
    config = { ...config, redisUrl };
  }
  return {
    config,
    host: flags.host ?? config.host,
    port,
    dbSynchronous: sync === 'FULL' || sync === 'NORMAL' ? sync : 'async',
    databaseUrl,
    redisUrl,
  };
}

/** Reads the config file; defaults when it does not exist. */
export function loadConfig(path = configPath()): DeploymentConfig {
  if (!existsSync(path)) return { ...DEFAULT_CONFIG, oracle: { ...DEFAULT_CONFIG.oracle } };
  const r = parseJsonFile(path, readFileSync(path, 'utf8'), daemonConfigSchema, CONFIG_FILE);
  if (!r.ok) throw configError(r.problem);
  return withDefaults(r.value);
}
