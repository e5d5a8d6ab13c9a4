/**
 * A turn's model path run once before a user needs it: the AI SDK's stream with the oracle's tools and instructions,
 * the provider's request and its streamed reply parsed chunk by chunk, against a reply given in memory (the
 * provider's `fetch` answers it: models.ts; nothing leaves the process and no model is paid). The first time a
 * process runs that code it compiles it and converts every tool's schema, which a fresh oracle's first answer paid
 * (its first text 58-78 ms against 14-23 ms for the next answers, on a 2-core machine). A call rehearses as its
 * user's microphone reaches the agent (live-agent.md, "The agent").
 */
import { tool, type LanguageModel, type ToolSet } from 'ai';
import { cachedSchema } from '../schema-cache.ts';
import type { PluginTool } from '../plugin.ts';
import type { AgentDeps } from './types.ts';
import { streamModel } from './model-stream.ts';
import { startWatchdog } from './watchdog.ts';

export async function rehearseTurn(
  deps: Pick<AgentDeps, 'metaTools' | 'pluginTools' | 'basePrompt' | 'limits'>,
  model: LanguageModel,
): Promise<void> {
  // the schemas are the ones a turn's tools use (cachedSchema): converted here, they are converted once; a plugin's
  // tool shadows a meta-tool of its name, as in a turn (tool-set.ts)
  const tools: ToolSet = {};
  const add = (own: Record<string, PluginTool<never>>) => {
    for (const [name, t] of Object.entries(own))
      tools[name] = tool({ description: t.description, inputSchema: cachedSchema(t.inputSchema) } as never);
  };
  add(deps.metaTools);
  for (const own of deps.pluginTools().values()) add(own);
  const watchdog = startWatchdog(10_000);
  try {
    await streamModel(
      {
        model,
        instructions: deps.basePrompt(),
        messages: [{ role: 'user', content: 'Hello.' }],
        tools,
        maxSteps: 1,
        maxOutputTokens: deps.limits.maxOutputTokens,
        signals: [],
        watchdog,
      },
      () => {},
    );
  } finally {
    watchdog.stop();
  }
}
