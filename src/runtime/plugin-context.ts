/**
 * Builds each plugin's context (plugin.ts, PluginContext): the runtime's services, each the one of its kind — the
 * clock (`now`), the oracle's pino log as a child carrying the plugin's name, the outbound helper (fetchOk), the
 * migration runner of the oracle's database.
 */
import type { OracleConfig, PluginContext, PluginHost } from './plugin.ts';
import type { RuntimeStore } from './store.ts';
import type { RuntimeLog } from './log.ts';
import { migrateOnce } from '../storage/migrate.ts';
import { fetchOk } from '../lib/fetch-json.ts';

export interface PluginContextDeps {
  store: RuntimeStore;
  config: OracleConfig;
  log: RuntimeLog;
  now: () => number;
  host: PluginHost;
}

export function createPluginContext<Env>(name: string, env: Env, d: PluginContextDeps): PluginContext<Env> {
  return {
    env,
    store: d.store,
    config: d.config,
    log: d.log.child({ plugin: name }),
    now: d.now,
    fetch: (r) => fetchOk(r),
    migrate: migrateOnce(d.store.db, name),
    host: d.host,
  };
}
