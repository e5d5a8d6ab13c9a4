/**
 * The tools of a turn: the meta-tools, each active plugin's tools and the
 * request's per-turn tools (browser tools, actions), which never shadow
 * another tool. On-demand plugins' tools are active from the step after
 * load_capability loaded them.
 */
import { tool, type ToolSet } from 'ai';
import { cachedSchema } from '../schema-cache.ts';
import type { OraclePlugin, PluginTool } from '../plugin.ts';
import { loadedPlugins } from '../meta-tools.ts';
import { runHook } from './hooks.ts';
import { executeTool, notLoadedMessage, type ToolCallScope } from './execute-tool.ts';
import { toolModelOutput } from './tool-images.ts';

/**
 * A plugin's tool as the AI SDK's: its call runs through executeTool, and an image it returns reaches the model as an
 * image part (tool-images.ts). The turn's tools and a sub-agent's are made by it.
 */
export function sdkTool(scope: ToolCallScope, name: string, t: PluginTool<never>, owner?: OraclePlugin<unknown>) {
  return tool({
    description: t.description,
    inputSchema: cachedSchema(t.inputSchema),
    execute: (input: unknown, options?: { toolCallId?: string }) =>
      executeTool(scope, { name, tool: t, owner, input, toolCallId: options?.toolCallId ?? '' }),
    toModelOutput: toolModelOutput,
  } as never);
}

interface TurnTools {
  tools: ToolSet;
  /** The names callable now (read again at each step). */
  activeTools: () => string[];
  /** For a tool of an on-demand plugin not loaded yet: the message that says to load it (else undefined). */
  notLoaded: (toolName: string) => string | undefined;
}

export async function buildToolSet(
  scope: ToolCallScope,
  o: { metaTools: Record<string, PluginTool<never>>; pluginTools: Map<string, Record<string, PluginTool<never>>> },
): Promise<TurnTools> {
  const { turn, active } = scope;
  const pluginOfTool = new Map<string, OraclePlugin<unknown>>();
  const tools: ToolSet = {};
  const wrap = (name: string, t: PluginTool<never>, owner?: OraclePlugin<unknown>) => sdkTool(scope, name, t, owner);
  for (const [name, t] of Object.entries(o.metaTools)) tools[name] = wrap(name, t);
  const add = (plugin: OraclePlugin<unknown>, own: Record<string, PluginTool<never>>, shadow: boolean) => {
    for (const [name, t] of Object.entries(own)) {
      if (!shadow && tools[name]) continue;
      tools[name] = wrap(name, t, plugin);
      pluginOfTool.set(name, plugin);
    }
  };
  for (const { plugin } of active) add(plugin, o.pluginTools.get(plugin.name) ?? {}, true);
  const perTurn = await runHook(active, ({ plugin, ctx }) => {
    const own = plugin.turnTools?.(turn, ctx);
    return own && { plugin, own };
  });
  for (const { plugin, own } of perTurn) add(plugin, own, false);
  const activeTools = (): string[] => {
    const loaded = new Set(loadedPlugins(turn.state));
    return Object.keys(tools).filter((n) => {
      const p = pluginOfTool.get(n);
      return !p || p.manifest.visibility !== 'on-demand' || loaded.has(p.name);
    });
  };
  const notLoaded = (name: string): string | undefined => {
    const p = pluginOfTool.get(name);
    if (!p || p.manifest.visibility !== 'on-demand' || loadedPlugins(turn.state).includes(p.name)) return undefined;
    return notLoadedMessage(name, p.name);
  };
  return { tools, activeTools, notLoaded };
}
