/**
 * The oracle: its profile from oracle.config.json, the bundled weather
 * plugin (forced on) and this project's own plugin (src/plugins/local-time.ts).
 * Secrets and service URLs come from the environment (.env).
 */
import { createOracleApp, readOracleConfig, type OracleAppOptions, type OracleConfigFile } from 'oraclekit';
import { localTimePlugin } from './plugins/local-time.ts';

export const CONFIG_URL = new URL('../oracle.config.json', import.meta.url);

/** oracle.config.json through oraclekit's one schema: a wrong field is named at boot. */
export function loadConfig(): OracleConfigFile {
  return readOracleConfig(CONFIG_URL);
}

export function buildOracle(overrides: Partial<OracleAppOptions> = {}) {
  return createOracleApp({
    config: loadConfig(),
    plugins: [localTimePlugin],
    // weather is on-demand: the agent loads it with load_capability(['weather'])
    features: { weather: true },
    ...overrides,
  });
}
