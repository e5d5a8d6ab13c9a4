/**
 * The meta-tools (runtime.md, "Meta-tools"): list_capabilities and
 * load_capability. Loading joins the session's `loadedPlugins` state; the
 * tools of a loaded on-demand plugin are callable from the next model step.
 */
import { z } from 'zod';
import { defineTool, type AnyPluginTool, type OraclePlugin, type TurnContext } from './plugin.ts';

const LOADED_PLUGINS_KEY = 'loadedPlugins';
/** load_capability's bounds: names per call and characters per name. */
const MAX_NAMES = 32;
const MAX_NAME_CHARS = 64;

export function loadedPlugins(state: Record<string, unknown>): string[] {
  const v = state[LOADED_PLUGINS_KEY];
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'string') as string[]) : [];
}

interface MetaToolDeps {
  /** Active (loaded) plugins of the runtime, in boot order. */
  plugins: () => OraclePlugin<unknown>[];
  /** Tool list of a plugin [{name, description}]. */
  toolsOf: (plugin: string) => { name: string; description: string }[];
  /** Persists the session state after a change. */
  saveState: (turn: TurnContext) => void;
}

export function metaTools(deps: MetaToolDeps): Record<string, AnyPluginTool> {
  const list = defineTool({
    description:
      "List this oracle's capabilities (plugins): name, summary, visibility, whether loaded in this session, " +
      'category. On-demand capabilities must be loaded with load_capability before their tools can be called.',
    inputSchema: z.object({
      includeOnDemand: z.boolean().optional().describe('include on-demand capabilities (default true)'),
    }),
    execute: (input, turn) => {
      const loaded = new Set(loadedPlugins(turn.state));
      return {
        capabilities: deps
          .plugins()
          .filter((p) => p.manifest.visibility !== 'silent')
          .filter((p) => input.includeOnDemand !== false || p.manifest.visibility === 'always')
          .map((p) => ({
            name: p.name,
            summary: p.manifest.summary,
            visibility: p.manifest.visibility,
            loaded: p.manifest.visibility === 'always' || loaded.has(p.name),
            category: p.manifest.category,
          })),
      };
    },
  });
  const load = defineTool({
    description:
      'Load capabilities by name (from list_capabilities) so their tools become callable from the next step. ' +
      'Returns each manifest with whenToUse and its tool list.',
    inputSchema: z.object({
      names: z
        .array(z.string().max(MAX_NAME_CHARS))
        .min(1)
        .max(MAX_NAMES)
        .describe(`capability names, e.g. ["weather"] (at most ${MAX_NAMES})`),
    }),
    execute: (input, turn) => {
      // each capability once, however often the model repeats it
      const names = [...new Set(input.names)];
      const byName = new Map(
        deps
          .plugins()
          .filter((p) => p.manifest.visibility !== 'silent')
          .map((p) => [p.name, p]),
      );
      const unknown = names.filter((n) => !byName.has(n));
      if (unknown.length > 0) {
        throw new Error(
          `Unknown capability ${unknown.map((n) => `'${n}'`).join(', ')}. Call list_capabilities to see the ` +
            `available capability names.`,
        );
      }
      const loaded = new Set(loadedPlugins(turn.state));
      const out = names.map((n) => {
        const p = byName.get(n)!;
        loaded.add(n);
        return {
          name: p.name,
          title: p.manifest.title,
          summary: p.manifest.summary,
          whenToUse: p.manifest.whenToUse,
          whenNotToUse: p.manifest.whenNotToUse ?? [],
          visibility: p.manifest.visibility,
          category: p.manifest.category,
          tools: deps.toolsOf(n),
        };
      });
      turn.state[LOADED_PLUGINS_KEY] = [...loaded];
      deps.saveState(turn);
      return { loaded: out };
    },
  });
  return { list_capabilities: list, load_capability: load };
}
