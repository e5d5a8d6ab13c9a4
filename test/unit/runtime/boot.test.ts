import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOracleApp, type OracleApp } from '../../../src/runtime/app.ts';
import { BootError } from '../../../src/runtime/boot.ts';
import { definePlugin, type AnyOraclePlugin, type PluginManifest } from '../../../src/runtime/plugin.ts';
import { weatherPlugin, userPreferencesPlugin } from '../../../src/runtime/plugins/index.ts';

const manifest = (m: Partial<PluginManifest> = {}): PluginManifest => ({
  title: 't', summary: 's', whenToUse: [], visibility: 'on-demand', stability: 'stable', category: 'c', defaultState: 'on', dependsOn: [], ...m,
});
const plugin = (name: string, o: Partial<AnyOraclePlugin> = {}, m: Partial<PluginManifest> = {}): AnyOraclePlugin => definePlugin({ name, version: '1.0.0', manifest: manifest(m), ...o });

const dirs: string[] = [];
const apps: OracleApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function boot(o: { plugins?: AnyOraclePlugin[]; features?: Record<string, boolean>; env?: Record<string, string | undefined>; bundled?: AnyOraclePlugin[] }) {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-boot-'));
  dirs.push(dir);
  const lines: string[] = [];
  const make = () => {
    const app = createOracleApp({
      config: { name: 'Boot', oracleDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' },
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
      bundled: [userPreferencesPlugin, weatherPlugin, plugin('memory', { requiredEnv: ['MEMORY_MCP_URL'] }, { visibility: 'always' }), plugin('slack', { requiredEnv: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN'] }, { visibility: 'silent' })],
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
    expect((err as BootError).line).toMatch(/^\[boot-error\] Plugin 'weather' env validation failed for 'WEATHER_DEFAULT_UNITS': .+\. Set 'WEATHER_DEFAULT_UNITS' or disable it: features: \{ weather: false \}$/);
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
    expect(() => boot({ bundled: [plugin('p', {}, { dependsOn: ['q'] }), plugin('q', {}, { dependsOn: ['p'] })] }).make()).toThrow(/^\[boot-error\] Plugin dependency cycle: p → q → p/);
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
    const broken = plugin('broken', { start: () => Promise.reject(new Error('cannot reach server')) }, { visibility: 'silent' });
    const { lines, make } = boot({ bundled: [slow, broken] });
    const app = make();
    const changes: string[] = [];
    app.onPluginStatusChange((e) => changes.push(`${e.plugin}:${e.status}`));
    await app.runtime.loadSigningKey('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
    const url = await app.listen(0, '127.0.0.1');
    for (let i = 0; i < 100 && app.plugins.status().failed.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines).toContain('[plugin] broken pending → failed (cannot reach server)');
    const r1 = await fetch(`${url}/ready`);
    expect(r1.status).toBe(503);
    expect(await r1.json()).toMatchObject({ ready: false, pending: ['plugin:matrix'], plugins: { pending: ['matrix'], failed: [{ plugin: 'broken', reason: 'cannot reach server' }] } });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    release();
    for (let i = 0; i < 100 && app.plugins.status().pending.length > 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(lines).toContain('[plugin] matrix pending → loaded');
    expect(app.plugins.status()).toMatchObject({ loaded: ['matrix'], pending: [] });
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(changes).toEqual(expect.arrayContaining(['matrix:pending', 'broken:failed', 'matrix:loaded']));
  });
});
