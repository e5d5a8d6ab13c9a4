/**
 * The runtime's own configuration (docs/runtime.md, "Configuration"): one zod
 * schema of the variables it reads, parsed once at boot from the runtime's
 * environment (the `env` option, default process.env); the options of
 * createOracle override them. A blank variable counts as unset; a present but
 * invalid one is a boot error naming the variable, its value and what is
 * valid. Plugins parse their own variables with their own schemas (boot.ts).
 */
import { z } from 'zod';
import { BootError } from './boot.ts';
import { DEFAULT_DELEGATION_MAX_TTL_S } from '../lib/ucan/ucan.ts';
import { envValue, parseEnv, shownValue } from '../lib/env.ts';

// a blank variable never reaches the schema (parseEnv, the one env rule): .optional() and .default() cover it
const opt = <T extends z.ZodType>(s: T) => s.optional();
const int = (min: number, max: number, dflt: number) => z.coerce.number().int().min(min).max(max).default(dflt);

/** The longest LLM_STALL_TIMEOUT_MS: the model's transport (models.ts) waits at least this long for a reply. */
export const STALL_MAX_MS = 600_000;

/** pino's levels: the running oracle's log (log.ts) shows its lines at LOG_LEVEL and above. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const RuntimeEnvSchema = z.object({
  LLM_BASE_URL: opt(z.url({ protocol: /^https?$/ })),
  LLM_PROVIDER_API_KEY: opt(z.string()),
  LLM_MODEL: opt(z.string().trim().min(1)),
  SIGNING_MNEMONIC: opt(z.string()),
  PORT: int(0, 65_535, 3000),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  ORACLE_DB_PATH: z.string().default('./data/oracle.db'),
  ORACLE_DB_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).optional(),
  ORACLE_DATABASE_URL: opt(z.url({ protocol: /^postgres(ql)?$/ })),
  CORS_ORIGINS: opt(z.string()).transform((v) =>
    v === undefined
      ? undefined
      : v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
  ),
  /**
   * Replaced by ORACLE_UCAN_AUTH (delegation-only login is now on by default): any value is a boot error, so a
   * deployment that set 0 is not silently opened.
   */
  ORACLE_ALLOW_DELEGATION_AUTH: opt(z.never({ error: 'replaced by ORACLE_UCAN_AUTH' })),
  ORACLE_UCAN_AUTH: z.enum(['any', 'invocation']).default('any'),
  ORACLE_UCAN_REPLAY: z.enum(['bearer', 'strict']).default('bearer'),
  ORACLE_UCAN_DELEGATION_MAX_TTL_S: int(60, 31_536_000, DEFAULT_DELEGATION_MAX_TTL_S),
  ORACLE_MAX_STEPS: int(1, 100, 12),
  LLM_STALL_TIMEOUT_MS: int(100, STALL_MAX_MS, 60_000),
  ORACLE_TOOL_TIMEOUT_MS: int(100, 600_000, 30_000),
  ORACLE_MAX_OUTPUT_TOKENS: int(1, 1_000_000, 4096),
  ORACLE_RUN_MAX_MS: int(1000, 86_400_000, 600_000),
  ORACLE_RUN_MAX_OUTPUT_CHARS: int(1000, 100_000_000, 200_000),
  ORACLE_RUN_MAX_EVENT_BYTES: int(65_536, 1_073_741_824, 8 * 1024 * 1024),
  ORACLE_MODEL_MAX_LINE_BYTES: int(65_536, 1_073_741_824, 4 * 1024 * 1024),
  ORACLE_TURN_MAX_IMAGES: int(0, 1000, 8),
  ORACLE_TURN_MAX_IMAGE_BYTES: int(0, 1_073_741_824, 16 * 1024 * 1024),
  ORACLE_READY_MIN_FREE_BYTES: int(0, Number.MAX_SAFE_INTEGER, 64 * 1024 * 1024),
  ORACLE_ALLOWED_HOSTS: opt(z.string()).transform((v) =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
  ORACLE_ALLOWED_USERS: opt(
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().regex(/^did:key:z[1-9A-HJ-NP-Za-km-z]+$/, 'a did:key'))),
  ),
  ORACLE_USER_TURNS_PER_MINUTE: int(0, 100_000, 0),
  ORACLE_REDIS_URL: opt(z.url({ protocol: /^rediss?$/ })),
  ORACLE_INSTANCE_LEASE_MS: int(1000, 600_000, 10_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});
export type RuntimeEnv = z.infer<typeof RuntimeEnvSchema>;

/** What each variable accepts, for the boot error. */
const VALID: Record<keyof RuntimeEnv, string> = {
  LLM_BASE_URL: 'an http(s) URL of an OpenAI-compatible API, e.g. https://openrouter.ai/api/v1',
  LLM_PROVIDER_API_KEY: 'the model key',
  LLM_MODEL: 'a model id',
  SIGNING_MNEMONIC: "the oracle's BIP39 mnemonic",
  PORT: 'an integer from 0 to 65535 (default 3000)',
  HOST: 'a host name or address to bind (default 127.0.0.1, this machine only; 0.0.0.0 for every interface)',
  ORACLE_DB_PATH: 'a file path (default ./data/oracle.db)',
  ORACLE_DB_SYNCHRONOUS: 'FULL or NORMAL, or unset (fsync off the event loop)',
  ORACLE_DATABASE_URL:
    'a postgres:// or postgresql:// URL of a database (docs/scaling.md), e.g. ' +
    'postgres://oracle:secret@10.0.0.5:5432/oracle, or unset for the SQLite file ORACLE_DB_PATH',
  CORS_ORIGINS:
    'comma-separated origins of web pages allowed to call this oracle (e.g. https://app.example.com), or * for any',
  ORACLE_ALLOW_DELEGATION_AUTH:
    'no value (it was replaced by ORACLE_UCAN_AUTH: a delegation alone now logs in by default; ' +
    'ORACLE_UCAN_AUTH=invocation requires an invocation, as ORACLE_ALLOW_DELEGATION_AUTH=0 did)',
  ORACLE_UCAN_AUTH: 'any (default: an invocation, or a delegation alone) or invocation (an invocation is required)',
  ORACLE_UCAN_REPLAY:
    'bearer (default: an invocation may be used again until it expires) or strict (each invocation once)',
  ORACLE_UCAN_DELEGATION_MAX_TTL_S: 'an integer from 60 to 31536000 seconds (default 2592000, 30 days)',
  ORACLE_MAX_STEPS: 'an integer from 1 to 100 (default 12)',
  LLM_STALL_TIMEOUT_MS: 'an integer from 100 to 600000 (default 60000)',
  ORACLE_TOOL_TIMEOUT_MS: 'an integer from 100 to 600000 (default 30000)',
  ORACLE_MAX_OUTPUT_TOKENS:
    'an integer from 1 to 1000000 (default 4096): the most tokens the model may produce per step',
  ORACLE_RUN_MAX_MS: 'an integer from 1000 to 86400000 ms (default 600000, 10 minutes): the longest a run may last',
  ORACLE_RUN_MAX_OUTPUT_CHARS:
    'an integer from 1000 to 100000000 (default 200000): the most characters of answer and reasoning of a run',
  ORACLE_RUN_MAX_EVENT_BYTES:
    "an integer from 65536 to 1073741824 (default 8388608, 8 MiB): the largest a run's event log may grow",
  ORACLE_MODEL_MAX_LINE_BYTES:
    "an integer from 65536 to 1073741824 (default 4194304, 4 MiB): the longest line of the model provider's stream",
  ORACLE_TURN_MAX_IMAGES:
    "an integer from 0 to 1000 (default 8): the most tools' images one model request of a turn carries (the newest)",
  ORACLE_TURN_MAX_IMAGE_BYTES:
    'an integer from 0 to 1073741824 (default 16777216, 16 MiB): the most characters of base64 of those images',
  ORACLE_READY_MIN_FREE_BYTES:
    'an integer of bytes, 0 or more (default 67108864, 64 MiB; 0: not checked): GET /ready is 503 storage_full while ' +
    'the disk that holds the SQLite database has less free',
  ORACLE_ALLOWED_HOSTS:
    'comma-separated host names this oracle answers to besides the loopback ones (e.g. oracle.example.com), ' +
    'or * for any',
  ORACLE_ALLOWED_USERS:
    'comma-separated did:key identities, the only users who may log in (unset: any did:key user); e.g. ' +
    'did:key:z6Mk…,did:key:z6Mk…',
  ORACLE_USER_TURNS_PER_MINUTE:
    'an integer from 0 to 100000 (default 0: no limit): the most turns a user may start per minute',
  ORACLE_REDIS_URL:
    'a redis:// or rediss:// URL shared by every instance of this oracle (docs/scaling.md), e.g. redis://10.0.0.5:6379',
  ORACLE_INSTANCE_LEASE_MS:
    'an integer from 1000 to 600000 (default 10000): how long an instance may stay silent before its running turns ' +
    'are failed',
  LOG_LEVEL: `one of ${LOG_LEVELS.join(', ')} (default info): the least severe line the oracle's log shows`,
};

/** Parses the runtime's variables once; an invalid one throws the BootError line. */
export function parseRuntimeEnv(env: Record<string, string | undefined>): RuntimeEnv {
  const r = parseEnv(RuntimeEnvSchema, env);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const name = String(issue.path[0]) as keyof RuntimeEnv;
  const value = envValue(env, name);
  const shown = value === undefined ? '' : ` = ${shownValue(name, value)}`;
  throw new BootError(
    `[boot-error] Runtime env validation failed for '${name}'${shown}: ${issue.message}. Set '${name}' to ` +
      `${VALID[name]}, or unset it`,
  );
}
