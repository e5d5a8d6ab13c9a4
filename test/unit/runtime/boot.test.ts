import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp, type OracleApp } from '../../../src/runtime/app.ts';
import { BootError } from '../../../src/runtime/boot.ts';
import { definePlugin, type AnyOraclePlugin, type PluginManifest } from '../../../src/runtime/plugin.ts';
import { creditsPlugin, weatherPlugin, userPreferencesPlugin } from '../../../src/runtime/plugins/index.ts';
import type { OracleAppOptions } from '../../../src/runtime/runtime.ts';
import { scriptedModel, startScriptedModelServer } from '../../../src/testing.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../../helpers/loopback.ts';

const manifest = (m: Partial<PluginManifest> = {}): PluginManifest => ({
  title: 't',
  summary: 's',
  whenToUse: [],
  visibility: 'on-demand',
  stability: 'stable',
  category: 'c',
  defaultState: 'on',
  dependsOn: [],
  ...m,
});
const plugin = (name: string, o: Partial<AnyOraclePlugin> = {}, m: Partial<PluginManifest> = {}): AnyOraclePlugin =>
  definePlugin({ name, version: '1.0.0', manifest: manifest(m), ...o });

const dirs: string[] = [];
const apps: OracleApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function boot(o: {
  plugins?: AnyOraclePlugin[];
  features?: Record<string, boolean>;
  env?: Record<string, string | undefined>;
  bundled?: AnyOraclePlugin[];
  price?: number;
  model?: OracleAppOptions['model'];
}) {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-boot-'));
  dirs.push(dir);
  const lines: string[] = [];
  const make = () => {
    const app = createOracleApp({
      config: {
        name: 'Boot',
        oracleDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        ...(o.price !== undefined ? { price: o.price } : {}),
      },
      ...(o.model ? { model: o.model } : {}),
      dbPath: join(dir, 'db.sqlite'),
      logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
      plugins: o.plugins,
      features: o.features,
      env: o.env ?? {},
      bundledPlugins: o.bundled ?? [],
      signingMnemonic: '',
    });
    apps.push(app);
    return app;
  };
  return { lines, make };
}

describe('boot resolution and log lines', () => {
  it('logs the version, loaded plugins, excluded plugins with their variable and one summary line', () => {
    const { lines, make } = boot({
      bundled: [
        userPreferencesPlugin,
        weatherPlugin,
        plugin('memory', { requiredEnv: ['MEMORY_MCP_URL'] }, { visibility: 'always' }),
        plugin('slack', { requiredEnv: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'] }, { visibility: 'silent' }),
      ],
      env: { SLACK_BOT_TOKEN: 'xoxb', SLACK_APP_TOKEN: ' ' },
    });
    const app = make();
    expect(lines).toEqual([
      'runtime v1.0.0',
      '[boot] loaded: user-preferences',
      '[boot] loaded: weather',
      '[boot] excluded: memory (MEMORY_MCP_URL)',
      '[boot] excluded: slack (SLACK_APP_TOKEN)',
      '[boot] excluded 2 plugin(s): memory (MEMORY_MCP_URL), slack (SLACK_APP_TOKEN)',
    ]);
    expect(app.plugins.status()).toEqual({
      loaded: ['user-preferences', 'weather'],
      pending: [],
      failed: [],
      excluded: [
        { plugin: 'memory', reason: 'MEMORY_MCP_URL' },
        { plugin: 'slack', reason: 'SLACK_APP_TOKEN' },
      ],
    });
  });

  it('a present but invalid variable is a boot error with the exact line', () => {
    const { make } = boot({ bundled: [weatherPlugin], env: { WEATHER_DEFAULT_UNITS: 'kelvin' } });
    let err: unknown;
    try {
      make();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BootError);
    expect((err as BootError).line).toMatch(
      /^\[boot-error\] Plugin 'weather' env validation failed for 'WEATHER_DEFAULT_UNITS' = "kelvin": .+\. Set 'WEATHER_DEFAULT_UNITS' or disable it: features: \{ weather: false \}$/,
    );
  });

  it('a forced plugin with a blank variable is a boot error; features:false never loads', () => {
    const mem = plugin('memory', { requiredEnv: ['MEMORY_MCP_URL'] });
    expect(() => boot({ bundled: [mem], features: { memory: true } }).make()).toThrow(
      "[boot-error] Plugin 'memory' env validation failed for 'MEMORY_MCP_URL': required but blank. Set 'MEMORY_MCP_URL' or disable it: features: { memory: false }",
    );
    const b = boot({ bundled: [weatherPlugin, userPreferencesPlugin], features: { weather: false } });
    const app = b.make();
    expect(app.plugins.status().loaded).toEqual(['user-preferences']);
    expect(app.plugins.status().excluded).toEqual([{ plugin: 'weather', reason: 'features' }]);
    expect(b.lines).toContain('[boot] excluded 1 plugin(s): weather (features)');
  });

  it('dependencies: a plugin whose dependency is off is off; order is topological; a cycle is a boot error', () => {
    const a = plugin('a', {}, { dependsOn: ['b'] });
    const b = plugin('b', { requiredEnv: ['B_URL'] });
    const app = boot({ bundled: [a, b] }).make();
    expect(app.plugins.status().excluded).toEqual([
      { plugin: 'b', reason: 'B_URL' },
      { plugin: 'a', reason: 'dependsOn b' },
    ]);
    const { lines, make } = boot({ bundled: [plugin('x', {}, { dependsOn: ['y'] }), plugin('y')] });
    make();
    expect(lines.slice(1, 3)).toEqual(['[boot] loaded: y', '[boot] loaded: x']);
    expect(() =>
      boot({ bundled: [plugin('p', {}, { dependsOn: ['q'] }), plugin('q', {}, { dependsOn: ['p'] })] }).make(),
    ).toThrow(/^\[boot-error\] Plugin dependency cycle: p → q → p/);
  });

  it("a project's plugin of the same name overrides the bundled one", () => {
    const mine = plugin('weather', {}, { summary: 'my weather' });
    const app = boot({ bundled: [weatherPlugin], plugins: [mine] }).make();
    expect(app.runtime.activePlugins().map((p) => p.plugin.manifest.summary)).toEqual(['my weather']);
  });

  it('a background plugin never blocks listening; /ready tells the truth; pending → loaded / failed lines', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = plugin('matrix', { start: () => gate }, { visibility: 'silent' });
    const broken = plugin(
      'broken',
      { start: () => Promise.reject(new Error('cannot reach server')) },
      { visibility: 'silent' },
    );
    const { lines, make } = boot({ bundled: [slow, broken] });
    const app = make();
    const changes: string[] = [];
    app.onPluginStatusChange((e) => changes.push(`${e.plugin}:${e.status}`));
    await app.runtime.loadSigningKey(
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    );
    const url = await app.listen(0, '127.0.0.1');
    for (let i = 0; i < 100 && app.plugins.status().failed.length === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(lines).toContain('[plugin] broken pending → failed (cannot reach server)');
    const r1 = await fetch(`${url}/ready`);
    expect(r1.status).toBe(503);
    expect(await r1.json()).toMatchObject({
      ready: false,
      pending: ['plugin:matrix'],
      plugins: { pending: ['matrix'], failed: [{ plugin: 'broken', reason: 'cannot reach server' }] },
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    release();
    for (let i = 0; i < 100 && app.plugins.status().pending.length > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines).toContain('[plugin] matrix pending → loaded');
    expect(app.plugins.status()).toMatchObject({ loaded: ['matrix'], pending: [] });
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(changes).toEqual(expect.arrayContaining(['matrix:pending', 'broken:failed', 'matrix:loaded']));
  });
});

describe("the plugins' own error codes", () => {
  it('are merged with the shared table at boot and listed by /docs', async () => {
    const quotes = plugin('quotes', {
      errors: {
        quote_not_found: { status: 404, when: 'no such quote' },
        upstream_error: { status: 502, when: 'the quotes API failed' },
      },
    });
    const app = boot({ bundled: [weatherPlugin], plugins: [quotes] }).make();
    expect(app.runtime.errors).toMatchObject({
      session_not_found: { status: 404 }, // the runtime's
      missing_city: { status: 400 }, // weather's own
      unknown_city: { status: 404 },
      quote_not_found: { status: 404, when: 'no such quote' },
      upstream_error: { status: 502 }, // a shared code, same status: allowed
    });
    const url = await app.listen(0, '127.0.0.1');
    const docs = (await (await fetch(`${url}/docs`)).json()) as { errors: Record<string, { status: number }> };
    expect(docs.errors.quote_not_found).toEqual({ status: 404, when: 'no such quote' });
    expect(docs.errors.missing_city).toEqual({ status: 400, when: 'no city given' });
  });

  it('a code given another status than the runtime or another plugin gives it is a boot error', () => {
    const clash = plugin('clash', { errors: { session_not_found: { status: 400, when: 'x' } } });
    expect(() => boot({ plugins: [clash] }).make()).toThrow(
      "[boot-error] Plugin 'clash' declares error code 'session_not_found' with status 400, but the runtime declares it with status 404. Rename the plugin's code",
    );
    const a = plugin('a', { errors: { busy: { status: 409, when: 'a' } } });
    const b = plugin('b', { errors: { busy: { status: 503, when: 'b' } } });
    expect(() => boot({ plugins: [a, b] }).make()).toThrow(
      "[boot-error] Plugin 'b' declares error code 'busy' with status 503, but plugin 'a' declares it with status 409. Rename the plugin's code",
    );
  });
});

describe("the runtime's variables", () => {
  it('are parsed once: blank is unset, defaults apply, options override them', () => {
    const app = boot({
      env: {
        PORT: '',
        ORACLE_MAX_STEPS: '5',
        CORS_ORIGINS: 'https://a.example, https://b.example',
        ORACLE_UCAN_AUTH: 'invocation',
        ORACLE_UCAN_REPLAY: '',
      },
    }).make();
    expect(app.runtime.settings).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      ORACLE_MAX_STEPS: 5,
      LLM_STALL_TIMEOUT_MS: 60_000,
      ORACLE_TOOL_TIMEOUT_MS: 30_000,
      CORS_ORIGINS: ['https://a.example', 'https://b.example'],
      ORACLE_UCAN_AUTH: 'invocation',
      ORACLE_UCAN_REPLAY: 'bearer',
      ORACLE_UCAN_DELEGATION_MAX_TTL_S: 30 * 24 * 3600,
    });
    expect([app.runtime.auth.mode, app.runtime.auth.replayMode, app.runtime.auth.delegationMaxTtlSeconds]).toEqual([
      'invocation',
      'bearer',
      30 * 24 * 3600,
    ]);
  });

  it('an invalid one is a boot error naming the variable, its value and what is valid', () => {
    expect(() => boot({ env: { ORACLE_MAX_STEPS: 'many' } }).make()).toThrow(
      /^\[boot-error\] Runtime env validation failed for 'ORACLE_MAX_STEPS' = "many": .+\. Set 'ORACLE_MAX_STEPS' to an integer from 1 to 100 \(default 12\), or unset it$/,
    );
    expect(() => boot({ env: { LLM_BASE_URL: 'ftp://models' } }).make()).toThrow(
      /^\[boot-error\] Runtime env validation failed for 'LLM_BASE_URL' = "ftp:\/\/models": .+\. Set 'LLM_BASE_URL' to an http\(s\) URL/,
    );
    // a URL's credentials are not shown
    expect(() => boot({ env: { LLM_BASE_URL: 'ftp://user:s3cret@models/v1' } }).make()).toThrow(
      /for 'LLM_BASE_URL' = "ftp:\/\/…@models\/v1": /,
    );
    expect(() => boot({ env: { ORACLE_DB_SYNCHRONOUS: 'OFF' } }).make()).toThrow(
      /'ORACLE_DB_SYNCHRONOUS' = "OFF": .+\. Set 'ORACLE_DB_SYNCHRONOUS' to FULL or NORMAL, or unset/,
    );
    expect(() => boot({ env: { ORACLE_UCAN_REPLAY: 'once' } }).make()).toThrow(
      /'ORACLE_UCAN_REPLAY' = "once": .+\. Set 'ORACLE_UCAN_REPLAY' to bearer \(default.+\) or strict/,
    );
    expect(() => boot({ env: { ORACLE_UCAN_DELEGATION_MAX_TTL_S: '10' } }).make()).toThrow(
      /'ORACLE_UCAN_DELEGATION_MAX_TTL_S' = "10": .+\. Set 'ORACLE_UCAN_DELEGATION_MAX_TTL_S' to an integer from 60 to 31536000/,
    );
    // the replaced variable is refused rather than ignored: a deployment that set 0 would otherwise be opened to
    // delegation-only login
    expect(() => boot({ env: { ORACLE_ALLOW_DELEGATION_AUTH: '0' } }).make()).toThrow(
      /'ORACLE_ALLOW_DELEGATION_AUTH' = "0": .+ORACLE_UCAN_AUTH=invocation/,
    );
  });
});

describe('the boot summary', () => {
  it('has one `[boot] excluded:` line per excluded plugin, whatever the reason, and its count is the number of those lines', () => {
    const a = plugin('a', {}, { dependsOn: ['b'] });
    const b = plugin('b', { requiredEnv: ['B_URL'] });
    const off = plugin('off', {}, { defaultState: 'off' });
    const { lines, make } = boot({ bundled: [weatherPlugin, creditsPlugin, a, b, off], features: { weather: false } });
    make();
    const each = lines.filter((l) => l.startsWith('[boot] excluded: '));
    expect(each).toEqual([
      '[boot] excluded: weather (features)',
      '[boot] excluded: credits (price)',
      '[boot] excluded: b (B_URL)',
      '[boot] excluded: off (defaultState off)',
      '[boot] excluded: a (dependsOn b)',
    ]);
    const summary = lines.filter((l) => /^\[boot\] excluded \d+ plugin\(s\)/.test(l));
    expect(summary).toEqual([
      `[boot] excluded ${each.length} plugin(s): weather (features), credits (price), b (B_URL), off (defaultState off), a (dependsOn b)`,
    ]);
  });
});

describe('the model at boot and in /ready', () => {
  const ready = async (app: OracleApp) => {
    await app.runtime.loadSigningKey(
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    );
    const url = await app.listen(0, '127.0.0.1');
    const r = await fetch(`${url}/ready`);
    return {
      status: r.status,
      body: (await r.json()) as {
        ready: boolean;
        pending?: string[];
        model?: { ready: boolean; reason?: string; set?: string };
      },
    };
  };

  it('a blank LLM_PROVIDER_API_KEY for a hosted model: a boot warning naming the variable, and /ready says the model is not ready', async () => {
    const { lines, make } = boot({ env: { LLM_BASE_URL: 'https://models.example.org/v1', LLM_PROVIDER_API_KEY: '' } });
    const app = make();
    expect(lines).toContain(
      "[boot] warning: model not ready: LLM_PROVIDER_API_KEY is blank: the model at https://models.example.org/v1 refuses turns without a key. Set 'LLM_PROVIDER_API_KEY' in the oracle's environment (.env)",
    );
    expect(lines[0]).toMatch(/^runtime v/); // the warning follows the boot lines
    const r = await ready(app);
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      ready: false,
      pending: ['model'],
      model: { ready: false, set: 'LLM_PROVIDER_API_KEY' },
    });
  });

  it('an unreachable model URL: a warning naming LLM_BASE_URL, /ready not ready', async () => {
    const port = await freePort(); // nothing listens there
    const { lines, make } = boot({
      env: { LLM_BASE_URL: `http://127.0.0.1:${port}/v1`, LLM_PROVIDER_API_KEY: 'sk-secret-key' },
    });
    const r = await ready(make());
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      ready: false,
      pending: ['model'],
      model: { ready: false, set: 'LLM_BASE_URL', reason: expect.stringContaining('ECONNREFUSED') },
    });
    expect(
      lines.find((l) =>
        l.startsWith(
          `[boot] warning: model not ready: the model at http://127.0.0.1:${port}/v1 is unreachable (ECONNREFUSED)`,
        ),
      ),
    ).toMatch(/Set 'LLM_BASE_URL'/);
    expect(lines.join('\n')).not.toContain('sk-secret-key');
  });

  it('a key the endpoint refuses (401): /ready names LLM_PROVIDER_API_KEY', async () => {
    const server = createServer((_req, res) =>
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}'),
    );
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const { lines, make } = boot({
        env: {
          LLM_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
          LLM_PROVIDER_API_KEY: 'sk-wrong',
        },
      });
      const r = await ready(make());
      expect(r.status).toBe(503);
      expect(r.body.model).toMatchObject({
        ready: false,
        set: 'LLM_PROVIDER_API_KEY',
        reason: expect.stringContaining('HTTP 401'),
      });
      expect(lines.some((l) => l.includes("Set 'LLM_PROVIDER_API_KEY'"))).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((ok) => server.close(ok));
    }
  });

  it('a model server that answers (loopback, no key needed) is ready; a model given as an option is not probed', async () => {
    const model = await startScriptedModelServer();
    try {
      const { lines, make } = boot({ env: { LLM_BASE_URL: model.baseURL } });
      const r = await ready(make());
      expect(r).toEqual({ status: 200, body: expect.objectContaining({ ready: true, model: { ready: true } }) });
      expect(lines.some((l) => l.includes('warning'))).toBe(false);
    } finally {
      await model.close();
    }
    const given = await ready(
      boot({ env: { LLM_BASE_URL: 'https://models.example.org/v1' }, model: scriptedModel() }).make(),
    );
    expect(given.status).toBe(200);
    expect(given.body.model).toBeUndefined();
  });
});
