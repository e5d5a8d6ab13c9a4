/**
 * The environment of a scaffolding test: its own oraclekit home and a daemon on a free port, and none of the
 * developer's saved registry, API key, mnemonic or Matrix server leaking in, so `oraclekit new` behaves as on a
 * fresh machine. `extra` adds or overrides variables (e.g. CI unset for a terminal, npm's offline cache).
 */
export function scaffoldEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ORACLEKIT_HOME: home,
    ORACLEKIT_DAEMON_PORT: '0',
    ORACLEKIT_API_KEY: '',
    ORACLEKIT_REGISTRY: '',
    ORACLEKIT_MNEMONIC: '',
    MATRIX_BASE_URL: '',
    ...extra,
  };
}

/** npm settings for installs in a test: reuse the cache, no update notice. */
export const NPM_QUIET = { npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' } as const;
