/**
 * The project's .env and .env.example: the model, PORT (always the port of
 * the registered #api URL), the oracle's signing key, messaging, and every
 * bundled plugin's variables, commented with what each enables (runtime.md).
 */
export interface EnvValues {
  port: number;
  /** Where the runtime binds (default 127.0.0.1). */
  host?: string;
  signingMnemonic?: string;
  llmBaseUrl: string;
  matrix?: { baseUrl: string; userId: string; accessToken: string; password?: string };
  registryUrl?: string;
}

const PLUGIN_VARS: [string, string][] = [
  ['MEMORY_MCP_URL', 'memory: an MCP memory server (MEMORY_ENGINE_URL optional)'],
  ['FIRECRAWL_MCP_URL', 'firecrawl: web search and scraping through an MCP server'],
  ['SANDBOX_MCP_URL', 'sandbox: run code and edit files in a sandbox (MCP)'],
  ['SKILLS_DIR', 'skills: a folder of SKILL.md instruction packs'],
  ['COMPOSIO_API_KEY', 'composio: third-party tool integrations (COMPOSIO_BASE_URL optional)'],
  ['SLACK_BOT_TOKEN', 'slack: answer mentions and DMs in Slack (with SLACK_APP_TOKEN for socket mode)'],
  ['SLACK_APP_TOKEN', 'slack: the app-level token for socket mode'],
  ['TASKS_STORE_URL', 'tasks: scheduled and background tasks (redis://…)'],
  ['WEATHER_DEFAULT_UNITS', 'weather: celsius (default) or fahrenheit'],
  ['LOCAL_TIME_DEFAULT_ZONE', "local-time (this project's plugin): the default IANA time zone (UTC)"],
];

function lines(v: EnvValues, example: boolean): string[] {
  const secret = (s: string | undefined) => (example ? '' : (s ?? ''));
  const out = [
    example
      ? '# Every variable this oracle reads; copy to .env and fill in.'
      : '# Secrets and service URLs of this oracle. Mode 0600, git-ignored: never commit it.',
    '',
    '# The port the runtime listens on; the registered #api URL uses the same port',
    '# (change both with `oraclekit update-oracle-api-url`).',
    `PORT=${v.port}`,
    '# The address it binds: 127.0.0.1 is this machine only (a proxy on this machine reaches it);',
    '# 0.0.0.0 is every interface (a container, or clients on other machines).',
    `HOST=${v.host ?? '127.0.0.1'}`,
    '',
    '# The model: any OpenAI-compatible chat-completions endpoint (OpenRouter, OpenAI, Ollama, vLLM, llama.cpp)',
    'LLM_PROVIDER_API_KEY=',
    `LLM_BASE_URL=${v.llmBaseUrl}`,
    '',
    "# The oracle's signing key (BIP39): authenticated requests get 401 until it is set",
    `SIGNING_MNEMONIC=${secret(v.signingMnemonic)}`,
    '',
    '# Messaging (matrix plugin): the homeserver and the oracle bot account',
    `MATRIX_BASE_URL=${v.matrix?.baseUrl ?? ''}`,
    `MATRIX_ORACLE_ADMIN_USER_ID=${v.matrix?.userId ?? ''}`,
    `MATRIX_ORACLE_ADMIN_ACCESS_TOKEN=${secret(v.matrix?.accessToken)}`,
  ];
  if (v.matrix?.password || example) out.push(`MATRIX_ORACLE_ADMIN_PASSWORD=${secret(v.matrix?.password)}`);
  out.push(
    '',
    '# The registry the domains plugin reads',
    `ORACLEKIT_REGISTRY_URL=${v.registryUrl ?? ''}`,
    '',
    '# Plugins: a plugin switches on when its variable is set',
  );
  for (const [name, what] of PLUGIN_VARS) out.push(`# ${name}=    # ${what}`);
  return out;
}

export const renderEnv = (v: EnvValues) => lines(v, false).join('\n') + '\n';
export const renderEnvExample = (v: EnvValues) => lines(v, true).join('\n') + '\n';
