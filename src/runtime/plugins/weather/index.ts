/**
 * weather (runtime.md): Open-Meteo geocoding + forecast (base URLs
 * configurable), tools get_current_weather and get_weather_forecast, route
 * GET /weather/now?city= (auth-excluded). temp_c is always Celsius; the
 * display units come from WEATHER_DEFAULT_UNITS (celsius | fahrenheit; a bad
 * value is a boot error).
 */
import { z } from 'zod';
import { definePlugin, defineTool, type PluginContext } from '../../plugin.ts';
import { WEATHER_ERRORS, weatherError } from './errors.ts';

/** What goes upstream in a URL is bounded: no city name is longer (the model's input otherwise becomes the URL). */
const MAX_CITY_CHARS = 100;

const WeatherEnvSchema = z.object({
  WEATHER_DEFAULT_UNITS: z.enum(['celsius', 'fahrenheit']).default('celsius'),
  WEATHER_GEOCODING_URL: z.url().default('https://geocoding-api.open-meteo.com'),
  WEATHER_FORECAST_URL: z.url().default('https://api.open-meteo.com'),
  WEATHER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8000),
});
type WeatherEnv = z.infer<typeof WeatherEnvSchema>;

/** WMO weather interpretation codes (Open-Meteo). */
const WMO: Record<number, string> = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'depositing rime fog',
  51: 'light drizzle',
  53: 'moderate drizzle',
  55: 'dense drizzle',
  56: 'light freezing drizzle',
  57: 'dense freezing drizzle',
  61: 'slight rain',
  63: 'moderate rain',
  65: 'heavy rain',
  66: 'light freezing rain',
  67: 'heavy freezing rain',
  71: 'slight snow',
  73: 'moderate snow',
  75: 'heavy snow',
  77: 'snow grains',
  80: 'slight rain showers',
  81: 'moderate rain showers',
  82: 'violent rain showers',
  85: 'slight snow showers',
  86: 'heavy snow showers',
  95: 'thunderstorm',
  96: 'thunderstorm with slight hail',
  99: 'thunderstorm with heavy hail',
};
const conditions = (code: unknown) => (typeof code === 'number' ? (WMO[code] ?? `weather code ${code}`) : 'unknown');
const toF = (c: number) => Math.round(((c * 9) / 5) * 10 + 320) / 10;

interface Place {
  name: string;
  latitude: number;
  longitude: number;
  country?: string;
}

class WeatherClient {
  readonly env: WeatherEnv;
  private readonly ctx: PluginContext<WeatherEnv>;
  constructor(ctx: PluginContext<WeatherEnv>) {
    this.ctx = ctx;
    this.env = ctx.env;
  }

  /** One call to Open-Meteo through the context's fetch: a status other than 2xx is its 502 upstream_error. */
  private async get<T>(url: URL): Promise<T> {
    return (await this.ctx.fetch<T>({ url, timeoutMs: this.env.WEATHER_TIMEOUT_MS, what: 'the weather service' })).body;
  }

  async geocode(city: string): Promise<Place> {
    if (!city.trim()) throw weatherError('missing_city', 'city is required', { field: 'city' });
    if (city.length > MAX_CITY_CHARS)
      throw weatherError('city_too_long', `city has ${city.length} characters; at most ${MAX_CITY_CHARS}`, {
        field: 'city',
        value: city.slice(0, 40),
        valid: `a city name of at most ${MAX_CITY_CHARS} characters`,
      });
    const u = new URL('/v1/search', this.env.WEATHER_GEOCODING_URL);
    u.searchParams.set('name', city.trim());
    u.searchParams.set('count', '1');
    u.searchParams.set('format', 'json');
    const body = await this.get<{ results?: Place[] }>(u);
    const first = body.results?.[0];
    if (!first) throw weatherError('unknown_city', `no city named ${JSON.stringify(city)}`, { field: 'city' });
    if (typeof first.latitude !== 'number' || typeof first.longitude !== 'number')
      throw weatherError('upstream_error', 'the geocoding service returned no coordinates');
    return first;
  }

  async current(city: string) {
    const p = await this.geocode(city);
    const u = new URL('/v1/forecast', this.env.WEATHER_FORECAST_URL);
    u.searchParams.set('latitude', String(p.latitude));
    u.searchParams.set('longitude', String(p.longitude));
    u.searchParams.set('current', 'temperature_2m,weather_code,wind_speed_10m,relative_humidity_2m');
    u.searchParams.set('temperature_unit', 'celsius');
    const body = await this.get<{ current?: Record<string, unknown> }>(u);
    const t = body.current?.temperature_2m;
    if (typeof t !== 'number')
      throw weatherError('upstream_error', 'the forecast service returned no current temperature');
    const units = this.env.WEATHER_DEFAULT_UNITS;
    return {
      ok: true as const,
      city: p.country ? `${p.name}, ${p.country}` : p.name,
      temp_c: t,
      ...(units === 'fahrenheit' ? { temp_f: toF(t) } : {}),
      units,
      conditions: conditions(body.current?.weather_code),
      wind_kmh: typeof body.current?.wind_speed_10m === 'number' ? body.current.wind_speed_10m : undefined,
      humidity: typeof body.current?.relative_humidity_2m === 'number' ? body.current.relative_humidity_2m : undefined,
      latitude: p.latitude,
      longitude: p.longitude,
    };
  }

  async forecast(city: string, days: number) {
    const p = await this.geocode(city);
    const u = new URL('/v1/forecast', this.env.WEATHER_FORECAST_URL);
    u.searchParams.set('latitude', String(p.latitude));
    u.searchParams.set('longitude', String(p.longitude));
    u.searchParams.set('daily', 'weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max');
    u.searchParams.set('forecast_days', String(days));
    u.searchParams.set('timezone', 'auto');
    u.searchParams.set('temperature_unit', 'celsius');
    const body = await this.get<{ daily?: Record<string, unknown[]> }>(u);
    const d = body.daily;
    if (!d || !Array.isArray(d.time))
      throw weatherError('upstream_error', 'the forecast service returned no daily forecast');
    const units = this.env.WEATHER_DEFAULT_UNITS;
    return {
      ok: true as const,
      city: p.country ? `${p.name}, ${p.country}` : p.name,
      units,
      latitude: p.latitude,
      longitude: p.longitude,
      days: d.time.slice(0, days).map((date, i) => ({
        date,
        max_c: d.temperature_2m_max?.[i],
        min_c: d.temperature_2m_min?.[i],
        conditions: conditions(d.weather_code?.[i]),
        precipitation_probability: d.precipitation_probability_max?.[i],
      })),
    };
  }
}

export const weatherPlugin = definePlugin({
  name: 'weather',
  version: '1.0.0',
  manifest: {
    title: 'Weather',
    summary: 'Current weather and up to 7-day forecasts for a city (Open-Meteo).',
    whenToUse: [
      'the user asks about current weather, temperature or conditions in a city',
      'the user asks for a forecast for the next days',
    ],
    whenNotToUse: ['climate statistics or historical weather'],
    visibility: 'on-demand',
    stability: 'stable',
    category: 'information',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: WeatherEnvSchema,
  errors: WEATHER_ERRORS,
  tools: (ctx) => {
    const client = new WeatherClient(ctx);
    return {
      get_current_weather: defineTool({
        description: 'Current weather for a city: temperature (temp_c is always Celsius), conditions, wind, humidity.',
        inputSchema: z.object({ city: z.string().min(1).max(MAX_CITY_CHARS).describe('city name, e.g. "Nairobi"') }),
        execute: ({ city }) => client.current(city),
      }),
      get_weather_forecast: defineTool({
        description: 'Daily forecast (max/min °C, conditions, precipitation probability) for a city, 1 to 7 days.',
        inputSchema: z.object({
          city: z.string().min(1).max(MAX_CITY_CHARS),
          days: z.number().int().min(1).max(7).describe('number of days, 1–7'),
        }),
        execute: ({ city, days }) => client.forecast(city, days),
      }),
    };
  },
  authExcludedRoutes: ['/weather/now'],
  routes: (app, ctx) => {
    const client = new WeatherClient(ctx);
    app.get('/weather/now', async (req) => {
      const city = (req.query as { city?: unknown }).city;
      if (typeof city !== 'string' || city.trim() === '')
        throw weatherError('missing_city', 'query parameter city is required', { field: 'city' });

      const r = await client.current(city);
      return {
        ok: r.ok,
        city: r.city,
        temp_c: r.temp_c,
        units: r.units,
        conditions: r.conditions,
        latitude: r.latitude,
        longitude: r.longitude,
      };
    });
  },
});
