/**
 * Boot time to /ready with all 15 bundled plugins loaded, counterparts
 * already running (MCP servers, redis-server, Slack/Matrix/Composio APIs on
 * loopback). Target: under 1.5 s. Measures createOracleApp() → listen → the
 * first 200 from /ready, over several boots in one process (the first one
 * also pays module loading, reported separately).
 * Run: node bench/plugins-boot.ts [boots]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { startOpenMeteoServer } from '../test/helpers/open-meteo-server.ts';
import { startFirecrawlMcpServer, startMemoryMcpServer, startSandboxMcpServer } from '../test/helpers/mcp-servers.ts';
import { startComposioServer } from '../test/helpers/composio-server.ts';
import { startSlackServer } from '../test/helpers/slack-server.ts';
import { startMatrixServer } from '../test/helpers/matrix-server.ts';
import { startRedis } from '../test/helpers/redis.ts';

const boots = Number(process.argv[2] ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'ok-bench-boot-'));
const [model, meteo, memory, firecrawl, sandbox, composio, slack, matrix, redis] = await Promise.all([
  startScriptedModelServer(),
  startOpenMeteoServer(),
  startMemoryMcpServer(),
  startFirecrawlMcpServer(),
  startSandboxMcpServer(),
  startComposioServer(),
  startSlackServer(),
  startMatrixServer(),
  startRedis(),
]);
mkdirSync(join(dir, 'skills', 'survey'), { recursive: true });
writeFileSync(join(dir, 'skills', 'survey', 'SKILL.md'), '---\nname: survey\ndescription: Survey how-to\n---\nAsk.\n');
const env = {
  LLM_BASE_URL: model.baseURL,
  LLM_PROVIDER_API_KEY: 'sk-bench',
  WEATHER_GEOCODING_URL: meteo.url,
  WEATHER_FORECAST_URL: meteo.url,
  MEMORY_MCP_URL: memory.url,
  FIRECRAWL_MCP_URL: firecrawl.url,
  SANDBOX_MCP_URL: sandbox.url,
  SKILLS_DIR: join(dir, 'skills'),
  COMPOSIO_API_KEY: composio.apiKey,
  COMPOSIO_BASE_URL: composio.url,
  SLACK_BOT_TOKEN: slack.botToken,
  SLACK_APP_TOKEN: slack.appToken,
  SLACK_API_URL: slack.apiUrl,
  TASKS_STORE_URL: redis.url,
  MATRIX_BASE_URL: matrix.url,
  MATRIX_ORACLE_ADMIN_ACCESS_TOKEN: matrix.token,
  MATRIX_ORACLE_ADMIN_USER_ID: matrix.userId,
};

const t0 = performance.now();
const { createOracleApp } = await import('../src/runtime/app.ts');
const importMs = performance.now() - t0;

const times: number[] = [];
for (let i = 0; i < boots; i++) {
  const start = performance.now();
  const app = createOracleApp({
    config: { name: 'Bench', model: 'scripted-model', price: 1 },
    dbPath: join(mkdtempSync(join(dir, 'db-')), 'o.db'),
    logger: { info: () => {}, error: () => {} },
    signingMnemonic: generateMnemonic(wordlist),
    env,
  });
  const url = await app.listen(0, '127.0.0.1');
  for (;;) {
    const r = await fetch(`${url}/ready`);
    await r.arrayBuffer();
    if (r.status === 200) break;
    await new Promise((res) => setTimeout(res, 2));
  }
  times.push(performance.now() - start);
  const s = app.plugins.status();
  if (s.loaded.length !== 15)
    throw new Error(`expected 15 loaded, got ${s.loaded.join(', ')}; failed ${JSON.stringify(s.failed)}`);
  await app.close();
}
const sorted = [...times].sort((a, b) => a - b);
const med = sorted[Math.floor(sorted.length / 2)]!;
console.log(`node ${process.version}; ${boots} boots with all 15 plugins loaded (counterparts already running)`);
console.log(`module import of the runtime (first boot only): ${importMs.toFixed(0)} ms`);
console.log(`first boot → /ready 200: ${times[0]!.toFixed(0)} ms`);
console.log(
  `median boot → /ready 200: ${med.toFixed(0)} ms; max ${sorted.at(-1)!.toFixed(0)} ms (target < 1500 ms) ${sorted.at(-1)! + importMs < 1500 ? 'OK' : 'CHECK'}`,
);
await Promise.all([
  model.close(),
  meteo.close(),
  memory.stop(),
  firecrawl.stop(),
  sandbox.stop(),
  composio.close(),
  slack.close(),
  matrix.close(),
  redis.stop(),
]);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
