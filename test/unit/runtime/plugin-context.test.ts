/**
 * The plugin context is a plugin's one way to the platform's services: its environment parsed through the one env
 * rule, the runtime's clock, the oracle's pino log (a child carrying the plugin's name, LOG_LEVEL honoured), the
 * outbound helper with one upstream-error shape, and its migrations applied once.
 */
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { z } from 'zod';
import { createOracle } from '../../../src/runtime/oracle.ts';
import { definePlugin, type OraclePlugin, type PluginContext } from '../../../src/runtime/plugin.ts';
import type { weatherPlugin } from '../../../src/runtime/plugins/weather/index.ts';
import { scriptedModel } from '../../../src/testing.ts';

const dir = mkdtempSync(join(tmpdir(), 'oraclekit-plugin-context-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const silent = { info: () => {}, error: () => {} };

const manifest = {
  title: 'Probe',
  summary: 'a plugin that keeps its context',
  whenToUse: ['tests'],
  visibility: 'silent' as const,
  stability: 'stable' as const,
  category: 'test',
  defaultState: 'on' as const,
  dependsOn: [],
};

const ProbeEnv = z.object({
  PROBE_UNITS: z.enum(['celsius', 'fahrenheit']).default('celsius'),
  PROBE_URL: z.url().default('https://probe.example.com'),
  PROBE_TIMEOUT_MS: z.coerce.number().int().min(1).default(8000),
});

/** A runtime with the probe plugin (and no bundled one); the probe's context is handed back. */
function boot(env: Record<string, string>, extra: Partial<Parameters<typeof createOracle>[0]> = {}) {
  let ctx: PluginContext<z.infer<typeof ProbeEnv>> | undefined;
  const probe = definePlugin({
    name: 'probe',
    version: '1.0.0',
    manifest,
    envSchema: ProbeEnv,
    tools: (c) => {
      ctx = c;
      return {};
    },
  });
  const oracle = createOracle({
    config: { name: 'Context' },
    dbPath: join(dir, `${Math.random().toString(36).slice(2)}.db`),
    env,
    model: scriptedModel(),
    logger: silent,
    bundledPlugins: [],
    plugins: [probe],
    ...extra,
  });
  return { oracle, ctx: ctx! };
}

describe('definePlugin', () => {
  it("types the context's env from a zod schema with defaults, with no cast", () => {
    const p = definePlugin({ name: 'probe', version: '1.0.0', manifest, envSchema: ProbeEnv });
    expectTypeOf(p).toEqualTypeOf<
      OraclePlugin<{ PROBE_UNITS: 'celsius' | 'fahrenheit'; PROBE_URL: string; PROBE_TIMEOUT_MS: number }>
    >();
    definePlugin({
      name: 'probe',
      version: '1.0.0',
      manifest,
      envSchema: ProbeEnv,
      tools: (ctx) => {
        expectTypeOf(ctx.env.PROBE_UNITS).toEqualTypeOf<'celsius' | 'fahrenheit'>();
        expectTypeOf(ctx.env.PROBE_TIMEOUT_MS).toEqualTypeOf<number>();
        return {};
      },
    });
    // the bundled weather plugin is written the same way
    expectTypeOf<
      Parameters<NonNullable<typeof weatherPlugin.tools>>[0]['env']['WEATHER_TIMEOUT_MS']
    >().toEqualTypeOf<number>();
  });
});

describe('the plugin context', () => {
  it('a blank variable, empty or only spaces, counts as unset: the schema default applies', async () => {
    const { oracle, ctx } = boot({ PROBE_UNITS: '  ', PROBE_URL: ' ', PROBE_TIMEOUT_MS: '' });
    expect(ctx.env).toEqual({ PROBE_UNITS: 'celsius', PROBE_URL: 'https://probe.example.com', PROBE_TIMEOUT_MS: 8000 });
    await oracle.close();
  });

  it("now is the runtime's injected clock", async () => {
    let clock = Date.parse('2031-03-04T05:06:07.000Z');
    const { oracle, ctx } = boot({}, { now: () => clock });
    expect(ctx.now()).toBe(clock);
    clock += 1000;
    expect(ctx.now()).toBe(Date.parse('2031-03-04T05:06:08.000Z'));
    await oracle.close();
  });

  it("log writes the oracle's pino JSON lines with the plugin's name, at LOG_LEVEL and above", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString().split('\n'))
          if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    const { oracle, ctx } = boot({}, { pino: pino({ level: 'warn' }, sink) });
    ctx.log.info('not shown at warn');
    ctx.log.warn({ channel: 'C1' }, 'reply not posted');
    await new Promise((r) => setImmediate(r));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, plugin: 'probe', channel: 'C1', msg: 'reply not posted' });
    await oracle.close();
  });

  it('fetch: a 2xx reply is returned; any other status is one 502 upstream_error with the status and the message', async () => {
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/ok')) res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
      else res.writeHead(429, { 'retry-after': '7' }).end(JSON.stringify({ error: { message: 'slow down' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { oracle, ctx } = boot({});
    try {
      expect((await ctx.fetch<{ a: number }>({ url: `${base}/ok`, what: 'the probe service' })).body).toEqual({ a: 1 });
      await expect(ctx.fetch({ url: `${base}/busy?key=secret`, what: 'the probe service' })).rejects.toMatchObject({
        status: 502,
        code: 'upstream_error',
        message: 'the probe service answered HTTP 429: slow down',
        details: { upstreamStatus: 429, url: `${base}/busy`, retryAfter: '7' },
      });
      // a status the plugin reads itself
      expect((await ctx.fetch({ url: `${base}/busy`, what: 'the probe service', accept: [429] })).status).toBe(429);
    } finally {
      await oracle.close();
      server.close();
    }
  });

  it('migrate applies the steps once under the plugin name, however many callers wait', async () => {
    const { oracle, ctx } = boot({});
    await oracle.runtime.storeReady;
    const steps = [{ version: 1, description: 'probe table', sql: 'CREATE TABLE probe_items (id TEXT PRIMARY KEY)' }];
    await Promise.all([ctx.migrate(steps), ctx.migrate(steps), ctx.migrate(steps)]);
    const rows = await ctx.store.db.all<{ area: string; version: number }>(
      "SELECT area, version FROM schema_version WHERE area = 'probe'",
    );
    expect(rows).toEqual([{ area: 'probe', version: 1 }]);
    await oracle.close();
  });
});
