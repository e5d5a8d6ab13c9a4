/**
 * A plugin's sub-agent as a tool of that plugin: `ask_<name>({task})` hands
 * the task to its own model loop (model-stream.ts) with its prompt and the
 * plugin's tools (all, or those it names). It runs on the turn's pieces: each
 * tool call through executeTool (the tool time-out, the beforeTool/afterTool
 * middleware, the argument and result bounds), the stall watchdog, the step
 * limit, the output bound and the turn's abort. Its answer is the text of its
 * last step; a model error or a stall fails the `ask_` call.
 */
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { defineTool, type OraclePlugin, type PluginTool, type SubAgent, type TurnContext } from '../plugin.ts';
import type { AgentDeps } from './types.ts';
import type { ToolCallScope } from './execute-tool.ts';
import { sdkTool } from './tool-set.ts';
import { startWatchdog } from './watchdog.ts';
import { streamModel } from './model-stream.ts';

type AnyPluginTool = PluginTool<never>;

/** The tool name a sub-agent is called by. */
export const subAgentToolName = (name: string): string => `ask_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;

type SubAgentDeps = Pick<AgentDeps, 'model' | 'plugins' | 'maxSteps' | 'stallTimeoutMs' | 'toolTimeoutMs' | 'limits'>;

export function subAgentTool(
  sa: SubAgent,
  owner: OraclePlugin<unknown>,
  pluginTools: Record<string, AnyPluginTool>,
  /** Read at each call: the runtime's current settings and active plugins. */
  deps: () => SubAgentDeps,
  /** The `ask_` call's own time-out (default 4 × the tool time-out option, else 120 s). */
  timeoutMs: number,
): AnyPluginTool {
  return defineTool({
    description: `Delegate a task to the ${sa.name} sub-agent: ${sa.description}`,
    inputSchema: z.object({
      task: z.string().min(1).describe('what the sub-agent should do, with the context it needs'),
    }),
    timeoutMs,
    execute: async ({ task }, turn) => ({
      subAgent: sa.name,
      answer: await runSubAgent(sa, owner, pluginTools, deps(), task, turn),
    }),
  }) as AnyPluginTool;
}

async function runSubAgent(
  sa: SubAgent,
  owner: OraclePlugin<unknown>,
  pluginTools: Record<string, AnyPluginTool>,
  d: SubAgentDeps,
  task: string,
  turn: TurnContext,
): Promise<string> {
  const scope: ToolCallScope = { turn, active: d.plugins(), timeoutMs: d.toolTimeoutMs };
  const names = sa.tools ?? Object.keys(pluginTools).filter((n) => n !== subAgentToolName(sa.name));
  const tools: ToolSet = {};
  for (const name of names) {
    const t = pluginTools[name];
    if (t) tools[name] = sdkTool(scope, name, t, owner);
  }
  const watchdog = startWatchdog(d.stallTimeoutMs);
  let answer = '';
  let failure: unknown;
  try {
    await streamModel(
      {
        model: d.model(),
        instructions: sa.prompt,
        messages: [{ role: 'user', content: task }],
        tools,
        maxSteps: d.maxSteps,
        maxOutputTokens: d.limits.maxOutputTokens,
        signals: [turn.abortSignal],
        watchdog,
      },
      (part) => {
        if (part.type === 'start-step') answer = '';
        else if (part.type === 'text-delta') answer += part.text;
        else if (part.type === 'error') failure ??= part.error;
      },
    );
  } finally {
    watchdog.stop();
  }
  if (turn.abortSignal.aborted) throw new Error('aborted');
  if (watchdog.signal.aborted)
    throw new Error(`the ${sa.name} sub-agent's model sent nothing for ${d.stallTimeoutMs} ms`);
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  return answer;
}
