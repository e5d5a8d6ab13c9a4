/** The weather plugin's own error codes (merged with the runtime's at boot). */
import { pluginErrorFactory } from '../../plugin.ts';

export const WEATHER_ERRORS = {
  missing_city: { status: 400, when: 'no city given' },
  unknown_city: { status: 404, when: 'geocoding found no such city' },
} as const;

export const weatherError = pluginErrorFactory(WEATHER_ERRORS);
