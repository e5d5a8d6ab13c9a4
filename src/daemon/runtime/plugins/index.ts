/** The bundled plugins shipped with the runtime (issue 6 adds the other 13). */
import type { AnyOraclePlugin } from '../plugin.ts';
import { userPreferencesPlugin } from './user-preferences/index.ts';
import { weatherPlugin } from './weather/index.ts';
import { slackPlugin } from './slack/index.ts';
import { tasksPlugin } from './tasks/index.ts';
import { matrixPlugin } from './matrix/index.ts';
import { portalPlugin } from './portal/index.ts';
import { agUiPlugin } from './ag-ui/index.ts';
import { creditsPlugin } from './credits/index.ts';

export const BUNDLED_PLUGINS: AnyOraclePlugin[] = [userPreferencesPlugin, weatherPlugin, slackPlugin, tasksPlugin, matrixPlugin, portalPlugin, agUiPlugin, creditsPlugin];
export { userPreferencesPlugin, weatherPlugin, slackPlugin, tasksPlugin, matrixPlugin, portalPlugin, agUiPlugin, creditsPlugin };
