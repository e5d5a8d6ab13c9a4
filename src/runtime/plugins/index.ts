/**
 * The bundled plugins shipped with the runtime, in runtime.md's order, then the packaged ones that are installed
 * (packaged.ts: calls is the package @oraclekit/calls; memory, firecrawl and sandbox need @modelcontextprotocol/sdk,
 * and the runtime leaves each out when it would run without it).
 */
import type { AnyOraclePlugin } from '../plugin.ts';
import { userPreferencesPlugin } from './user-preferences/index.ts';
import { weatherPlugin } from './weather/index.ts';
import { memoryPlugin } from './memory/index.ts';
import { firecrawlPlugin } from './firecrawl/index.ts';
import { sandboxPlugin } from './sandbox/index.ts';
import { skillsPlugin } from './skills/index.ts';
import { domainsPlugin } from './domains/index.ts';
import { samplingPlugin } from './sampling/index.ts';
import { composioPlugin } from './composio/index.ts';
import { slackPlugin } from './slack/index.ts';
import { tasksPlugin } from './tasks/index.ts';
import { matrixPlugin } from './matrix/index.ts';
import { portalPlugin } from './portal/index.ts';
import { agUiPlugin } from './ag-ui/index.ts';
import { creditsPlugin } from './credits/index.ts';
import { loadPackagedPlugins } from './packaged.ts';

const packaged = await loadPackagedPlugins();
/** The packaged plugins this runtime goes without (not installed, or failed to load). */
export const MISSING_PLUGINS = packaged.missing;

export const BUNDLED_PLUGINS: AnyOraclePlugin[] = [
  userPreferencesPlugin,
  weatherPlugin,
  memoryPlugin,
  firecrawlPlugin,
  sandboxPlugin,
  skillsPlugin,
  domainsPlugin,
  samplingPlugin,
  composioPlugin,
  slackPlugin,
  tasksPlugin,
  matrixPlugin,
  portalPlugin,
  agUiPlugin,
  creditsPlugin,
  ...packaged.plugins,
];
export { userPreferencesPlugin, weatherPlugin };
export { memoryPlugin, firecrawlPlugin, sandboxPlugin, domainsPlugin, composioPlugin, creditsPlugin };
