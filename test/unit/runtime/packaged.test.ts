/**
 * Plugins in packages of their own (src/runtime/plugins/packaged.ts): loaded when installed where the runtime's
 * files resolve them, else left out with one boot line naming the package, and a clear error on their routes. The
 * install of the real packages without and with @oraclekit/calls is test/e2e/install-offline.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createOracleApp } from '../../../src/runtime/app.ts';
import { BUNDLED_PLUGINS, MISSING_PLUGINS } from '../../../src/runtime/plugins/index.ts';
import {
  loadPackagedPlugins,
  missingFor,
  PACKAGED_PLUGINS,
  type PackagedPlugin,
} from '../../../src/runtime/plugins/packaged.ts';

const absent: PackagedPlugin = {
  name: 'calls',
  pkg: '@oraclekit/not-installed-here',
  exportName: 'callsPlugin',
  what: 'live voice and video calls',
  routes: ['/calls'],
};

describe('a plugin shipped as a package of its own', () => {
  it('is loaded when its package is installed: @oraclekit/calls, a workspace of this repository', () => {
    expect(BUNDLED_PLUGINS.map((p) => p.name)).toContain('calls');
    expect(MISSING_PLUGINS).toEqual([]);
  });

  it('is missing when its package does not resolve, and says so as one boot line', async () => {
    const r = await loadPackagedPlugins([absent]);
    expect(r.plugins).toEqual([]);
    expect(r.missing).toEqual([absent]);
  });

  it('a package whose export is not the plugin is missing with the reason', async () => {
    const r = await loadPackagedPlugins([{ ...absent, pkg: 'zod', exportName: 'callsPlugin' }]);
    expect(r.missing[0]?.error).toBe("it has no export 'callsPlugin' that is the plugin 'calls'");
  });

  it("is not missing when features turn it off or the project's own plugin replaces it; forced on, a boot error", () => {
    expect(missingFor([absent], [], {})).toEqual([absent]);
    expect(missingFor([absent], [], { calls: false })).toEqual([]);
    expect(missingFor([absent], [{ ...BUNDLED_PLUGINS[0]!, name: 'calls' }], {})).toEqual([]);
    expect(() => missingFor([absent], [], { calls: true })).toThrow(
      "[boot-error] Plugin 'calls' is forced on by features but its package @oraclekit/not-installed-here is not " +
        'installed. Run npm install @oraclekit/not-installed-here or remove it from features',
    );
  });
});

describe('an oracle without the calls package', () => {
  it('boots with calls excluded, one line naming the package, and /calls answers 501 naming it', async () => {
    MISSING_PLUGINS.push(absent);
    const lines: string[] = [];
    try {
      const app = createOracleApp({
        config: { name: 'no-calls' },
        dbPath: ':memory:',
        logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
        // the bundled list as the runtime has it without the package
        bundledPlugins: BUNDLED_PLUGINS.filter((p) => p.name !== 'calls'),
      });
      await app.fastify.ready();
      expect(lines.filter((l) => l.includes(absent.pkg))).toEqual([
        `[boot] calls: not installed; for live voice and video calls, add its package: npm install ${absent.pkg}`,
      ]);
      expect(app.plugins.status().excluded).toContainEqual({ plugin: 'calls', reason: 'not installed' });
      for (const [method, url] of [
        ['POST', '/calls'],
        ['GET', '/calls'],
        ['POST', '/calls/abc/sync'],
      ] as const) {
        const r = await app.fastify.inject({ method, url, payload: method === 'POST' ? {} : undefined });
        expect(r.statusCode).toBe(501);
        expect(r.json()).toMatchObject({ code: 'plugin_not_installed', details: { package: absent.pkg } });
        expect(r.json().message).toContain(`npm install ${absent.pkg}`);
      }
      await app.close();
    } finally {
      MISSING_PLUGINS.pop();
    }
  });
});

describe('a bundled plugin whose package is optional: memory without @modelcontextprotocol/sdk', () => {
  const memory = PACKAGED_PLUGINS.find((p) => p.name === 'memory')!;
  const boot = async (env: Record<string, string>) => {
    MISSING_PLUGINS.push({ ...memory });
    const lines: string[] = [];
    try {
      const app = createOracleApp({
        config: { name: 'no-mcp' },
        dbPath: ':memory:',
        env,
        logger: { info: (l) => lines.push(l), error: (l) => lines.push(l) },
      });
      await app.fastify.ready();
      return { app, lines };
    } finally {
      MISSING_PLUGINS.pop();
    }
  };

  it('is the MCP SDK, a package the CLI does not install, for memory, firecrawl and sandbox', async () => {
    expect(PACKAGED_PLUGINS.filter((p) => p.pkg === '@modelcontextprotocol/sdk').map((p) => p.name)).toEqual([
      'memory',
      'firecrawl',
      'sandbox',
    ]);
    // installed here (a devDependency): the bundled plugins stay, nothing is missing
    expect((await loadPackagedPlugins([memory])).missing).toEqual([]);
    expect((await loadPackagedPlugins([{ ...memory, pkg: '@oraclekit/not-installed-here' }])).missing).toHaveLength(1);
  });

  it('configured (MEMORY_MCP_URL), it is left out with one boot line naming the package, its routes 501', async () => {
    const { app, lines } = await boot({ MEMORY_MCP_URL: 'http://127.0.0.1:9/mcp' });
    expect(lines.filter((l) => l.includes('@modelcontextprotocol/sdk'))).toEqual([
      "[boot] memory: not installed; for memory's MCP tools and routes (MEMORY_MCP_URL), add its package: " +
        'npm install @modelcontextprotocol/sdk',
    ]);
    expect(app.plugins.status().excluded).toContainEqual({ plugin: 'memory', reason: 'not installed' });
    const r = await app.fastify.inject({ method: 'GET', url: '/memory-engine' });
    expect(r.statusCode).toBe(501);
    expect(r.json()).toMatchObject({ code: 'plugin_not_installed', details: { package: '@modelcontextprotocol/sdk' } });
    await app.close();
  });

  it('unconfigured, it is excluded for its env as ever and no line names the package', async () => {
    const { app, lines } = await boot({});
    expect(lines.filter((l) => l.includes('@modelcontextprotocol/sdk'))).toEqual([]);
    expect(app.plugins.status().excluded).toContainEqual({ plugin: 'memory', reason: 'MEMORY_MCP_URL' });
    await app.close();
  });

  it('forced on by features without the package, a boot error naming it', () => {
    const runs = () => true;
    expect(() => missingFor([memory], BUNDLED_PLUGINS, { memory: true }, BUNDLED_PLUGINS, runs)).toThrow(
      "[boot-error] Plugin 'memory' is forced on by features but its package @modelcontextprotocol/sdk is not installed",
    );
    // a project's own plugin named memory replaces the bundled one: nothing is missing
    const own = BUNDLED_PLUGINS.map((p) => (p.name === 'memory' ? { ...p } : p));
    expect(missingFor([memory], own, {}, BUNDLED_PLUGINS, runs)).toEqual([]);
  });
});
