/**
 * The environment rule, in one place (docs/environment.md): a blank variable (empty or only white space) counts as
 * unset, for the CLI, its daemon, the runtime's settings and every plugin's envSchema (parseEnv drops the blank ones
 * before a schema sees them, so no schema repeats the rule). Also the `ORACLEKIT_` names the CLI and its daemon read;
 * callers validate those values where they are combined with flags and files (daemon/config.ts); the runtime's
 * `ORACLE_` names are its settings schema's (runtime/settings.ts), and the `domains` plugin reads its `ORACLEKIT_`
 * names through its own envSchema.
 */
import type { z } from 'zod';

/** Every `ORACLEKIT_` variable the tool reads, by the field `toolEnv` gives it under. */
export const TOOL_ENV_NAMES = {
  home: 'ORACLEKIT_HOME',
  db: 'ORACLEKIT_DB',
  dbSynchronous: 'ORACLEKIT_DB_SYNCHRONOUS',
  databaseUrl: 'ORACLEKIT_DATABASE_URL',
  redisUrl: 'ORACLEKIT_REDIS_URL',
  daemonConfig: 'ORACLEKIT_DAEMON_CONFIG',
  daemonPort: 'ORACLEKIT_DAEMON_PORT',
  registry: 'ORACLEKIT_REGISTRY',
  registryUrl: 'ORACLEKIT_REGISTRY_URL',
  apiKey: 'ORACLEKIT_API_KEY',
  autostart: 'ORACLEKIT_AUTOSTART',
  mnemonic: 'ORACLEKIT_MNEMONIC',
} as const;

type ToolEnv = { -readonly [K in keyof typeof TOOL_ENV_NAMES]?: string };

type Env = Record<string, string | undefined>;

/** Whether a variable's value counts as unset: undefined, empty or only white space. */
export function isBlank(v: string | undefined): v is undefined {
  return v === undefined || v.trim() === '';
}

/** A variable's value, undefined when it is unset or blank. */
export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return isBlank(v) ? undefined : v;
}

/**
 * A set variable's value as an error message shows it: quoted, with a URL's credentials and query replaced by …
 * (either may hold a secret), and nothing of a variable whose name says it holds one (a key, secret, token, password
 * or mnemonic).
 */
export function shownValue(name: string, v: string): string {
  if (/(^|_)(KEY|SECRET|TOKEN|PASSWORD|MNEMONIC)(_|$)/i.test(name)) return '(hidden)';
  const url = /^[a-z][a-z0-9+.-]*:\/\//i;
  return JSON.stringify(
    url.test(v) ? v.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1…@').replace(/\?.*$/s, '?…') : v,
  );
}

/** The environment without its blank variables: what every env schema parses. */
export function withoutBlanks(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) if (!isBlank(v)) out[k] = v;
  return out;
}

/**
 * Parses an environment with a zod schema after dropping its blank variables, so a schema's `.default()` and
 * `.optional()` apply to a blank variable as to an unset one.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env): ReturnType<S['safeParse']> {
  return schema.safeParse(withoutBlanks(env)) as ReturnType<S['safeParse']>;
}

/** The tool's `ORACLEKIT_` variables from `env` (default process.env), blank ones left out. */
export function toolEnv(env: Env = process.env): ToolEnv {
  const out: ToolEnv = {};
  for (const [field, name] of Object.entries(TOOL_ENV_NAMES) as [keyof ToolEnv, string][]) {
    const v = envValue(env, name);
    if (v !== undefined) out[field] = v;
  }
  return out;
}

/**
 * Whether the CLI may start the local daemon by itself: yes, unless ORACLEKIT_AUTOSTART=0; under CI (CI=true or
 * CI=1) only with ORACLEKIT_AUTOSTART=1.
 */
export function autoStartAllowed(env: Env = process.env): boolean {
  const a = toolEnv(env).autostart;
  return env.CI === 'true' || env.CI === '1' ? a === '1' : a !== '0';
}
