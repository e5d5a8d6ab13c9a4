/**
 * Open-Meteo's API shape served on loopback: /v1/search (geocoding) and
 * /v1/forecast (current + daily). Cities come from a fixture table; a city
 * can be made to fail upstream with failForecast.
 */
import { listenLoopback } from './loopback.ts';
import { createServer, type Server } from 'node:http';

interface City {
  name: string;
  country: string;
  latitude: number;
  longitude: number;
  temperature: number;
  weatherCode: number;
}

const DEFAULT_CITIES: City[] = [
  { name: 'Nairobi', country: 'Kenya', latitude: -1.28333, longitude: 36.81667, temperature: 21.4, weatherCode: 2 },
  { name: 'Kampala', country: 'Uganda', latitude: 0.31628, longitude: 32.58219, temperature: 24.1, weatherCode: 61 },
  { name: 'Oslo', country: 'Norway', latitude: 59.91273, longitude: 10.74609, temperature: -3.5, weatherCode: 71 },
];

export interface OpenMeteoServer {
  url: string;
  requests: string[];
  /** HTTP status the forecast endpoint answers with (default 200). */
  forecastStatus: number;
  close(): Promise<void>;
}

export async function startOpenMeteoServer(cities: City[] = DEFAULT_CITIES): Promise<OpenMeteoServer> {
  const self: OpenMeteoServer = { url: '', requests: [], forecastStatus: 200, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    self.requests.push(u.pathname + u.search);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (u.pathname === '/v1/search') {
      const name = (u.searchParams.get('name') ?? '').toLowerCase();
      const c = cities.find((x) => x.name.toLowerCase() === name);
      return json(
        200,
        c
          ? {
              results: [{ id: 1, name: c.name, latitude: c.latitude, longitude: c.longitude, country: c.country }],
              generationtime_ms: 0.1,
            }
          : { generationtime_ms: 0.1 },
      );
    }
    if (u.pathname === '/v1/forecast') {
      if (self.forecastStatus !== 200) return json(self.forecastStatus, { error: true, reason: 'scripted failure' });
      const lat = Number(u.searchParams.get('latitude'));
      const c = cities.find((x) => Math.abs(x.latitude - lat) < 1e-4);
      if (!c) return json(400, { error: true, reason: 'unknown coordinates' });
      const days = Number(u.searchParams.get('forecast_days') ?? 7);
      const body: Record<string, unknown> = { latitude: c.latitude, longitude: c.longitude, timezone: 'GMT' };
      if (u.searchParams.has('current'))
        body.current = {
          time: '2026-01-01T12:00',
          temperature_2m: c.temperature,
          weather_code: c.weatherCode,
          wind_speed_10m: 11.2,
          relative_humidity_2m: 60,
        };
      if (u.searchParams.has('daily')) {
        const idx = [...Array(days).keys()];
        body.daily = {
          time: idx.map((i) => `2026-01-0${i + 1}`),
          weather_code: idx.map(() => c.weatherCode),
          temperature_2m_max: idx.map((i) => c.temperature + 3 + i / 10),
          temperature_2m_min: idx.map((i) => c.temperature - 5 + i / 10),
          precipitation_probability_max: idx.map((i) => (i * 10) % 100),
        };
      }
      return json(200, body);
    }
    json(404, { error: true, reason: 'not found' });
  });
  const l = await listenLoopback(server);
  self.url = l.url;
  self.close = l.close;
  return self;
}
