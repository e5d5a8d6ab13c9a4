/**
 * The seam between the agent turn and its host (OracleRuntime.agentDeps):
 * where the model, the plugins, the history and the storage come from.
 */
import type { LanguageModel, ModelMessage } from 'ai';
import type { ClientAction, ClientTool } from '../../lib/protocol/index.ts';
import type { NewMessage } from '../store.ts';
import type { PluginTool, TurnContext } from '../plugin.ts';
import type { ActivePlugin } from './hooks.ts';
import type { RunLimits } from './run-limits.ts';

export interface AgentDeps {
  model: (id?: string) => LanguageModel;
  plugins: () => ActivePlugin[];
  metaTools: Record<string, PluginTool<never>>;
  /** The tools of each active plugin, by plugin name. */
  pluginTools: () => Map<string, Record<string, PluginTool<never>>>;
  basePrompt: () => string;
  history: (sessionId: string) => Promise<ModelMessage[]>;
  loadState: (sessionId: string) => Promise<Record<string, unknown>>;
  saveState: (sessionId: string, state: Record<string, unknown>) => void;
  /** Resolves once the rows are durable. */
  persist: (sessionId: string, msgs: NewMessage[]) => Promise<void>;
  maxSteps: number;
  /** Removes secrets (the model key) from text that leaves the runtime. */
  redact: (text: string) => string;
  /** The runtime's clock, ms since the epoch (the time of error events). */
  now: () => number;
  stallTimeoutMs: number;
  toolTimeoutMs: number;
  /** The bounds of each run (run-limits.ts). */
  limits: RunLimits;
  hooks?: {
    onTurnStart?: (t: TurnContext) => void | Promise<void>;
    onTurnEnd?: (t: TurnContext, r: { status: string; text: string }) => void | Promise<void>;
    onError?: (e: unknown, t?: TurnContext) => void;
  };
}

export interface TurnInput {
  message: string;
  model?: string;
  timezone?: string;
  metadata?: Record<string, unknown>;
  delegation?: string;
  /** The client's browser tools (portal) and actions (ag-ui) of this request. */
  tools?: ClientTool[];
  agActions?: ClientAction[];
  /** What the turn's gate charged (a priced oracle): reported in the `done` event's usage. */
  charged?: { amount: number; denom: string };
}
