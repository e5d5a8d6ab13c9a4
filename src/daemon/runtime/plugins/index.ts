/** The bundled plugins shipped with the runtime (issue 6 adds the other 13). */
import type { AnyOraclePlugin } from '../plugin.ts';
import { userPreferencesPlugin } from './user-preferences/index.ts';
import { weatherPlugin } from './weather/index.ts';

export const BUNDLED_PLUGINS: AnyOraclePlugin[] = [userPreferencesPlugin, weatherPlugin];
export { userPreferencesPlugin, weatherPlugin };
