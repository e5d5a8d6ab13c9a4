/**
 * One tool call of a turn: an on-demand plugin's tool refuses until the
 * plugin is loaded; the plugins' beforeTool middleware may rewrite the input;
 * the tool runs under its time-out and the run's abort; afterTool sees the
 * output or the error.
 */
import type { OraclePlugin, PluginTool, TurnContext } from '../plugin.ts';
import { loadedPlugins } from '../meta-tools.ts';
import { runHook, type ActivePlugin } from './hooks.ts';
import { boundToolResult, checkToolArgs } from './tool-limits.ts';

class ToolTimeoutError extends Error {
  constructor(name: string, ms: number) {
    super(`tool ${name} timed out after ${ms} ms`);
    this.name = 'ToolTimeoutError';
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, name: string, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new ToolTimeoutError(name, ms)), ms);
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => {
      clearTimeout(t);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/**
 * A failed tool call as the model reads it. The AI SDK sends the model `String(error)` (its getErrorMessage), which is
 * "OracleKitError: no such city" for a plugin's error and "Error: …" for a plain one; the model (and a user reading the
 * history) should see the plugin's message alone, so the error it is given prints as its message. `cause` keeps the
 * original.
 */
class ToolFailure extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = cause instanceof Error ? cause.name : 'ToolFailure';
  }
  override toString(): string {
    return this.message;
  }
}

interface ToolCall {
  name: string;
  tool: PluginTool<never>;
  /** The plugin the tool belongs to (none for the meta-tools). */
  owner?: OraclePlugin<unknown>;
  input: unknown;
  toolCallId: string;
}

export interface ToolCallScope {
  turn: TurnContext;
  active: readonly ActivePlugin[];
  /** The default time-out of a tool without its own. */
  timeoutMs: number;
}

/** What the model (and the user) is told when it calls a tool of an on-demand plugin it has not loaded. */
export function notLoadedMessage(tool: string, plugin: string): string {
  return `Tool ${tool} is not loaded. Call load_capability(['${plugin}']) first.`;
}

/** Runs one tool call; a failure is thrown as a ToolFailure, whose text is the error's message. */
export async function executeTool(scope: ToolCallScope, call: ToolCall): Promise<unknown> {
  try {
    return await runToolCall(scope, call);
  } catch (e) {
    throw new ToolFailure(e);
  }
}

async function runToolCall(scope: ToolCallScope, call: ToolCall): Promise<unknown> {
  const { turn, active } = scope;
  const { name, owner } = call;
  if (owner && owner.manifest.visibility === 'on-demand' && !loadedPlugins(turn.state).includes(owner.name)) {
    throw new Error(notLoadedMessage(name, owner.name));
  }
  checkToolArgs(name, call.input);
  const input = await runHook(
    active,
    ({ plugin }, inp) => plugin.middleware?.beforeTool?.(turn, { toolName: name, input: inp }),
    call.input,
  );
  let output: unknown;
  try {
    output = await withTimeout(
      Promise.resolve().then(() => call.tool.execute(input as never, turn, { toolCallId: call.toolCallId })),
      call.tool.timeoutMs ?? scope.timeoutMs,
      name,
      turn.abortSignal,
    );
  } catch (e) {
    await runHook(active, ({ plugin }) =>
      plugin.middleware?.afterTool?.(turn, { toolName: name, input, error: (e as Error).message }),
    );
    throw e;
  }
  await runHook(active, ({ plugin }) => plugin.middleware?.afterTool?.(turn, { toolName: name, input, output }));
  return boundToolResult(name, output);
}
