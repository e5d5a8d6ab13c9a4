/**
 * The `ORACLEKIT_` environment, read in one place (docs/environment.md): the names the CLI and its daemon read,
 * and the rule they share — a blank variable (empty or only spaces) counts as unset. Callers validate the values
 * where they are combined with flags and files (daemon/config.ts); the runtime's `ORACLE_` names are its settings
 * schema's (runtime/settings.ts), and the `domains` plugin reads its `ORACLEKIT_` names through its own envSchema.
 */

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

/** A variable's value, undefined when it is unset or blank. */
export function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
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
