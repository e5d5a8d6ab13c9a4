/**
 * Every bundled plugin's counterpart, up on loopback: the scripted model, Open-Meteo, the memory, firecrawl and
 * sandbox MCP servers (the official SDK), Composio, Slack and Matrix APIs, a real redis-server for tasks, and a skills
 * folder; with the environment that points every plugin at them. close() stops them all.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptedModelServer } from './scripted-model-server.ts';
import { startOpenMeteoServer } from './open-meteo-server.ts';
import { startFirecrawlMcpServer, startMemoryMcpServer, startSandboxMcpServer } from './mcp-servers.ts';
import { startComposioServer } from './composio-server.ts';
import { startSlackServer } from './slack-server.ts';
import { startMatrixServer } from './matrix-server.ts';
import { startRedis } from './redis.ts';

/** `dir` holds the skills folder. */
export async function startPluginCounterparts(
  dir: string,
): Promise<{ env: Record<string, string>; close: () => Promise<void> }> {
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
  const skills = join(dir, 'skills');
  mkdirSync(join(skills, 'survey'), { recursive: true });
  writeFileSync(
    join(skills, 'survey', 'SKILL.md'),
    '---\nname: survey\ndescription: How to run a stove-use survey\n---\n# Survey\nAsk about hours of use.\n',
  );
  const env = {
    LLM_BASE_URL: model.baseURL,
    LLM_PROVIDER_API_KEY: 'sk-test-secret',
    WEATHER_GEOCODING_URL: meteo.url,
    WEATHER_FORECAST_URL: meteo.url,
    MEMORY_MCP_URL: memory.url,
    FIRECRAWL_MCP_URL: firecrawl.url,
    SANDBOX_MCP_URL: sandbox.url,
    SKILLS_DIR: skills,
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
  const close = async () => {
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
  };
  return { env, close };
}
