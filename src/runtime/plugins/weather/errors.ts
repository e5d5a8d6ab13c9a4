/** The weather plugin's own error codes (merged with the runtime's at boot). */
import { pluginErrorFactory } from '../../plugin.ts';

export const WEATHER_ERRORS = {
  missing_city: { status: 400, when: 'no city given' },
  city_too_long: { status: 400, when: 'a city name longer than 100 characters (it would go upstream in a URL)' },
  unknown_city: { status: 404, when: 'geocoding found no such city' },
} as const;

export const weatherError = pluginErrorFactory(WEATHER_ERRORS);
