/** The bundled plugins shipped with the runtime, in runtime.md's order. */
import type { AnyOraclePlugin } from '../plugin.ts';
import { userPreferencesPlugin } from './user-preferences/index.ts';
import { weatherPlugin } from './weather/index.ts';
import { slackPlugin } from './slack/index.ts';
import { tasksPlugin } from './tasks/index.ts';
import { matrixPlugin } from './matrix/index.ts';
import { portalPlugin } from './portal/index.ts';
import { agUiPlugin } from './ag-ui/index.ts';
import { creditsPlugin } from './credits/index.ts';

export const BUNDLED_PLUGINS: AnyOraclePlugin[] = [
  userPreferencesPlugin,
  weatherPlugin,
  slackPlugin,
  tasksPlugin,
  matrixPlugin,
  portalPlugin,
  agUiPlugin,
  creditsPlugin,
];
export { userPreferencesPlugin, weatherPlugin };
export { slackPlugin, tasksPlugin, matrixPlugin };
export { portalPlugin, agUiPlugin, creditsPlugin };
