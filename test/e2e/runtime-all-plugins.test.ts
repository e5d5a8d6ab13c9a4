/**
 * The whole set of bundled plugins: with every variable set and
 * every counterpart up (MCP servers built with the official SDK, a real
 * redis-server, loopback Slack, Matrix and Composio APIs, a skills folder, a
 * price), all 15 load and /ready says so; with none set, exactly the plugins
 * that need nothing load, and the others are excluded with their lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { createOracleApp, type OracleApp } from '../../src/runtime/app.ts';
import { BUNDLED_PLUGINS } from '../../src/runtime/plugins/index.ts';
import { startPluginCounterparts } from '../helpers/plugin-counterparts.ts';

const ALL = [
  'user-preferences',
  'weather',
  'memory',
  'firecrawl',
  'sandbox',
  'skills',
  'domains',
  'sampling',
  'composio',
  'slack',
  'tasks',
  'matrix',
  'portal',
  'ag-ui',
  'credits',
  'calls',
];
const NEED_NOTHING = ['user-preferences', 'weather', 'domains', 'sampling', 'portal', 'ag-ui', 'calls'];

const closers: (() => Promise<unknown> | unknown)[] = [];
let dir: string;
let fullEnv: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ok-all-plugins-'));
  const counterparts = await startPluginCounterparts(dir);
  closers.push(counterparts.close);
  fullEnv = counterparts.env;
}, 60_000);

afterAll(async () => {
  for (const c of closers.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

async function boot(
  env: Record<string, string>,
  price?: number,
): Promise<{ app: OracleApp; lines: string[]; url: string }> {
  const lines: string[] = [];
  const app = createOracleApp({
    config: { name: 'All plugins', model: 'scripted-model', ...(price !== undefined ? { price } : {}) },
    dbPath: join(mkdtempSync(join(dir, 'db-')), 'oracle.db'),
    logger: { info: (l: string) => lines.push(l), error: (l: string) => lines.push(l) },
    signingMnemonic: generateMnemonic(wordlist),
    env,
  });
  closers.push(() => app.close());
  const url = await app.listen(0, '127.0.0.1');
  return { app, lines, url };
}

/** Polls /ready until it answers 200 (background plugins settle); the test's own time-out bounds it. */
async function ready(url: string): Promise<{ ready: boolean; plugins: unknown }> {
  for (;;) {
    const r = await fetch(`${url}/ready`);
    if (r.status === 200) return (await r.json()) as { ready: boolean; plugins: unknown };
    await new Promise((res) => setTimeout(res, 25));
  }
}

describe('the 15 bundled plugins as a set', () => {
  it('the bundle is exactly the 15 plugins of runtime.md, in its order', () => {
    expect(BUNDLED_PLUGINS.map((p) => p.name)).toEqual(ALL);
  });

  it('with every variable set and every counterpart up, all 15 load and /ready says so', async () => {
    const { app, lines, url } = await boot(fullEnv, 2);
    const body = await ready(url);
    expect(body.ready).toBe(true);
    const s = app.plugins.status();
    expect([...s.loaded].sort()).toEqual([...ALL].sort());
    expect(s).toMatchObject({ pending: [], failed: [], excluded: [] });
    expect(JSON.stringify(body.plugins)).toContain('credits');
    expect(lines[0]).toMatch(/^runtime v\d+\.\d+\.\d+$/);
    expect(lines.filter((l) => l.startsWith('[boot] excluded'))).toEqual([]);
    // background starters report pending → loaded; the others load at boot
    expect(lines).toContain('[plugin] matrix pending → loaded');
    for (const p of ALL)
      expect(
        lines.some((l) => l === `[boot] loaded: ${p}` || l === `[plugin] ${p} pending → loaded`),
        p,
      ).toBe(true);
    // secrets never in the log
    const log = lines.join('\n');
    for (const secret of [
      fullEnv.SLACK_BOT_TOKEN,
      fullEnv.SLACK_APP_TOKEN,
      fullEnv.MATRIX_ORACLE_ADMIN_ACCESS_TOKEN,
      fullEnv.COMPOSIO_API_KEY,
      fullEnv.LLM_PROVIDER_API_KEY,
    ])
      expect(log).not.toContain(secret);
  }, 60_000);

  it('with none set, exactly the plugins that need nothing load; the rest are excluded with their variable', async () => {
    const { app, lines, url } = await boot({});
    await ready(url);
    const s = app.plugins.status();
    expect([...s.loaded].sort()).toEqual([...NEED_NOTHING].sort());
    expect(s.failed).toEqual([]);
    const expectedLines = [
      '[boot] excluded: memory (MEMORY_MCP_URL)',
      '[boot] excluded: firecrawl (FIRECRAWL_MCP_URL)',
      '[boot] excluded: sandbox (SANDBOX_MCP_URL)',
      '[boot] excluded: skills (SKILLS_DIR)',
      '[boot] excluded: composio (COMPOSIO_API_KEY)',
      '[boot] excluded: slack (SLACK_BOT_TOKEN)',
      '[boot] excluded: tasks (TASKS_STORE_URL)',
      '[boot] excluded: matrix (MATRIX_BASE_URL)',
    ];
    for (const l of expectedLines) expect(lines).toContain(l);
    expect(s.excluded.map((e) => e.plugin).sort()).toEqual(ALL.filter((p) => !NEED_NOTHING.includes(p)).sort());
    expect(s.excluded.find((e) => e.plugin === 'credits')?.reason).toBe('price');
    const summary = lines.filter((l) => /^\[boot\] excluded \d+ plugin\(s\): /.test(l));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toContain('9 plugin(s)');
    for (const p of NEED_NOTHING) expect(lines).toContain(`[boot] loaded: ${p}`);
  }, 60_000);
});
