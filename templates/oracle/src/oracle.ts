/**
 * The oracle: its profile from oracle.config.json, the bundled weather
 * plugin (forced on) and this project's own plugin (src/plugins/local-time.ts).
 * Secrets and service URLs come from the environment (.env).
 */
import { readFileSync } from 'node:fs';
import { createOracleApp, type OracleAppOptions } from 'oraclekit';
import { localTimePlugin } from './plugins/local-time.ts';

export const CONFIG_URL = new URL('../oracle.config.json', import.meta.url);

export function loadConfig(): OracleAppOptions['config'] {
  return JSON.parse(readFileSync(CONFIG_URL, 'utf8')) as OracleAppOptions['config'];
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
