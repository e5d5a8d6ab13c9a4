/**
 * The agent loop (runtime.md, "Agent and model"): the AI SDK's streamText
 * against an OpenAI-compatible chat-completions endpoint, with the meta-tools
 * and the plugins' tools; on-demand tools become active from the step after
 * load_capability. Every part of the model stream becomes a protocol event of
 * the run; provider errors, stalls and malformed streams become `error`
 * events with kind and retryable, then `done` — never a hang.
 */
import { cachedSchema } from './schema-cache.ts';
import { streamText, isStepCount, tool, APICallError, type ModelMessage, type ToolSet, type LanguageModel } from 'ai';
import type { ErrorKind } from '../lib/protocol/index.ts';
import type { NewMessage } from './store.ts';
import type { Run } from './runs.ts';
import type { OraclePlugin, PluginContext, PluginTool, TurnContext } from './plugin.ts';
import { loadedPlugins } from './meta-tools.ts';
import type { ClientAction, ClientTool, ToolCallRecord } from '../lib/protocol/index.ts';

export interface AgentDeps {
  model: (id?: string) => LanguageModel;
  plugins: () => { plugin: OraclePlugin<unknown>; ctx: PluginContext<unknown> }[];
  metaTools: Record<string, PluginTool<never>>;
  /** The tools of each active plugin, by plugin name. */
  pluginTools: () => Map<string, Record<string, PluginTool<never>>>;
  basePrompt: () => string;
  history: (sessionId: string) => ModelMessage[];
  loadState: (sessionId: string) => Record<string, unknown>;
  saveState: (sessionId: string, state: Record<string, unknown>) => void;
  /** Resolves once the rows are durable. */
  persist: (sessionId: string, msgs: NewMessage[]) => Promise<void>;
  maxSteps: number;
  /** Removes secrets (the model key) from text that leaves the runtime. */
  redact: (text: string) => string;
  stallTimeoutMs: number;
  toolTimeoutMs: number;
  hooks?: { onTurnStart?: (t: TurnContext) => void | Promise<void>; onTurnEnd?: (t: TurnContext, r: { status: string; text: string }) => void | Promise<void>; onError?: (e: unknown, t?: TurnContext) => void };
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
}

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

export function classifyError(err: unknown): { code: string; kind: ErrorKind; retryable: boolean; message: string } {
  const e = err as { name?: string; message?: string; cause?: unknown };
  const name = e?.name ?? '';
  const msg = String(e?.message ?? err);
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    return { code: 'provider_error', kind: 'provider', retryable: err.isRetryable, message: `the model provider failed${status ? ` with HTTP ${status}` : ''}: ${msg.slice(0, 200)}` };
  }
  if (/timeout|timed out/i.test(name) || /timeout|timed out/i.test(msg)) {
    return { code: 'model_timeout', kind: 'timeout', retryable: true, message: `the model stream stalled: ${msg.slice(0, 200)}` };
  }
  if (/JSONParse|TypeValidation|InvalidResponseData|EmptyResponseBody|NoOutput|NoContentGenerated/i.test(name) || /json|parse|invalid/i.test(msg)) {
    return { code: 'malformed_stream', kind: 'malformed_stream', retryable: true, message: `the model returned a malformed stream: ${msg.slice(0, 200)}` };
  }
  if (/fetch failed|ECONNREFUSED|ECONNRESET|socket/i.test(msg)) {
    return { code: 'provider_unreachable', kind: 'provider', retryable: true, message: `the model provider is unreachable: ${msg.slice(0, 200)}` };
  }
  return { code: 'internal_error', kind: 'internal', retryable: false, message: msg.slice(0, 200) };
}

export async function runTurn(deps: AgentDeps, run: Run, input: TurnInput): Promise<void> {
  const { sessionId, requestId } = run;
  const state = deps.loadState(sessionId);
  const turn: TurnContext = {
    userDid: run.userDid,
    sessionId,
    requestId,
    state,
    abortSignal: run.abort.signal,
    timezone: input.timezone,
    metadata: input.metadata,
    delegation: input.delegation,
    message: input.message,
    clientTools: input.tools,
    agActions: input.agActions,
  };
  run.emit({ event: 'run', data: { runId: run.runId, requestId } });
  const humanId = `${requestId}-human`;
  const prior = deps.history(sessionId);
  void deps.persist(sessionId, [{ id: humanId, type: 'human', content: input.message }]).catch((e: unknown) => deps.hooks?.onError?.(e));

  const toolRows = new Map<string, ToolCallRecord & { order: number }>();
  let reasoning = '';
  let status: 'finished' | 'aborted' | 'failed' = 'finished';
  let lastFinishReason = '';
  let stepCount = 0;
  const active = deps.plugins();
  let stopWatchdog = () => {};
  let stallFired = () => false;

  try {
    await deps.hooks?.onTurnStart?.(turn);
    // plugin state before the agent is compiled (user-preferences on turn 1)
    for (const { plugin, ctx } of active) if (plugin.loadState) Object.assign(state, await plugin.loadState(turn, ctx));

    const systemPrompt = async (): Promise<string> => {
      const parts = [deps.basePrompt()];
      for (const { plugin, ctx } of active) {
        const s = plugin.systemPrompt?.(state, ctx);
        if (s) parts.push(s);
        const extra = await plugin.middleware?.beforeModel?.(turn);
        if (extra) parts.push(extra);
      }
      return parts.filter(Boolean).join('\n\n');
    };

    const byPlugin = deps.pluginTools();
    const pluginOfTool = new Map<string, OraclePlugin<unknown>>();
    const tools: ToolSet = {};
    const wrap = (name: string, t: PluginTool<never>, owner?: OraclePlugin<unknown>) =>
      tool({
        description: t.description,
        inputSchema: cachedSchema(t.inputSchema),
        execute: async (toolInput: unknown, options?: { toolCallId?: string }) => {
          if (owner && owner.manifest.visibility === 'on-demand' && !loadedPlugins(state).includes(owner.name)) {
            throw new Error(`Tool ${name} is not loaded. Call load_capability(['${owner.name}']) first.`);
          }
          let inp = toolInput;
          for (const { plugin } of active) {
            const r = await plugin.middleware?.beforeTool?.(turn, { toolName: name, input: inp });
            if (r !== undefined) inp = r;
          }
          let output: unknown;
          try {
            output = await withTimeout(Promise.resolve().then(() => t.execute(inp as never, turn, { toolCallId: options?.toolCallId ?? '' })), t.timeoutMs ?? deps.toolTimeoutMs, name, run.abort.signal);
          } catch (e) {
            for (const { plugin } of active) await plugin.middleware?.afterTool?.(turn, { toolName: name, input: inp, error: (e as Error).message });
            throw e;
          }
          for (const { plugin } of active) await plugin.middleware?.afterTool?.(turn, { toolName: name, input: inp, output });
          return output;
        },
      } as never);
    for (const [name, t] of Object.entries(deps.metaTools)) tools[name] = wrap(name, t);
    for (const { plugin } of active) {
      for (const [name, t] of Object.entries(byPlugin.get(plugin.name) ?? {})) {
        tools[name] = wrap(name, t, plugin);
        pluginOfTool.set(name, plugin);
      }
    }
    // per-turn tools (the client's browser tools and actions): never shadow another tool
    for (const { plugin, ctx } of active) {
      for (const [name, t] of Object.entries(plugin.turnTools?.(turn, ctx) ?? {})) {
        if (tools[name]) continue;
        tools[name] = wrap(name, t, plugin);
        pluginOfTool.set(name, plugin);
      }
    }
    const activeTools = (): string[] => {
      const loaded = new Set(loadedPlugins(state));
      return Object.keys(tools).filter((n) => {
        const p = pluginOfTool.get(n);
        return !p || p.manifest.visibility !== 'on-demand' || loaded.has(p.name);
      });
    };

    // stall watchdog: one timer per run checking the time of the last part
    // (cheaper than resetting a timer per chunk), aborting the upstream call
    const stall = new AbortController();
    let lastPartAt = performance.now();
    const watchdog = setInterval(() => {
      if (performance.now() - lastPartAt > deps.stallTimeoutMs) stall.abort(new Error(`no data from the model for ${deps.stallTimeoutMs} ms`));
    }, Math.max(10, Math.min(1000, deps.stallTimeoutMs / 4)));
    watchdog.unref();
    stopWatchdog = () => clearInterval(watchdog);
    stallFired = () => stall.signal.aborted;
    const messages: ModelMessage[] = [...prior, { role: 'user', content: input.message }];
    deps.saveState(sessionId, state);
    const result = streamText({
      model: deps.model(input.model),
      instructions: await systemPrompt(),
      messages,
      tools,
      activeTools: activeTools(),
      // step 0 uses the instructions and tools above; later steps see what the turn's tools changed (load_capability, preferences)
      prepareStep: async ({ stepNumber }: { stepNumber: number }) => (stepNumber === 0 ? undefined : { activeTools: activeTools(), instructions: await systemPrompt() }),
      stopWhen: isStepCount(deps.maxSteps),
      abortSignal: AbortSignal.any([run.abort.signal, stall.signal]),
      maxRetries: 0,
      onError: () => {},
    } as never) as ReturnType<typeof streamText>;

    let reasoningOpen = false;
    let sawError = false;
    const closeReasoning = () => {
      if (reasoningOpen) {
        run.emit({ event: 'reasoning', data: { sessionId, requestId, reasoning, isComplete: true } });
        reasoningOpen = false;
      }
    };
    for await (const part of result.fullStream) {
      lastPartAt = performance.now();
      switch (part.type) {
        case 'reasoning-delta':
          if (!part.text) break;
          reasoningOpen = true;
          reasoning += part.text;
          run.emit({ event: 'reasoning', data: { sessionId, requestId, reasoning: part.text, isComplete: false } });
          break;
        case 'reasoning-end':
          closeReasoning();
          break;
        case 'text-delta':
          closeReasoning();
          if (part.text) run.emit({ event: 'message', data: { content: part.text } });
          break;
        case 'tool-call': {
          closeReasoning();
          const row = { id: part.toolCallId, name: part.toolName, args: part.input, status: 'isRunning' as const, order: toolRows.size };
          toolRows.set(part.toolCallId, row);
          run.emit({ event: 'tool_call', data: { sessionId, requestId, eventId: part.toolCallId, toolName: part.toolName, args: part.input, status: 'isRunning' } });
          break;
        }
        case 'tool-result': {
          const row = toolRows.get(part.toolCallId);
          if (row) Object.assign(row, { status: 'done', output: part.output });
          run.emit({ event: 'tool_call', data: { sessionId, requestId, eventId: part.toolCallId, toolName: part.toolName, args: part.input, status: 'done', output: part.output } });
          break;
        }
        case 'tool-error': {
          const message = deps.redact(part.error instanceof Error ? part.error.message : String(part.error));
          let row = toolRows.get(part.toolCallId);
          if (!row) {
            row = { id: part.toolCallId, name: part.toolName, args: part.input, status: 'error', order: toolRows.size };
            toolRows.set(part.toolCallId, row);
          }
          Object.assign(row, { status: 'error', error: message });
          run.emit({ event: 'tool_call', data: { sessionId, requestId, eventId: part.toolCallId, toolName: part.toolName, args: part.input, status: 'error', error: message } });
          break;
        }
        case 'finish-step':
          stepCount++;
          lastFinishReason = part.finishReason;
          for (const { plugin } of active) await plugin.middleware?.afterModel?.(turn, { text: run.text, finishReason: part.finishReason });
          break;
        case 'error': {
          if (run.abort.signal.aborted || stall.signal.aborted) break;
          sawError = true;
          const c = classifyError(part.error);
          run.emit({ event: 'error', data: { error: deps.redact(c.message), code: c.code, kind: c.kind, retryable: c.retryable, timestamp: new Date().toISOString() } });
          break;
        }
        case 'abort':
          break;
        default:
          break;
      }
    }
    closeReasoning();
    if (run.abort.signal.aborted) status = 'aborted';
    else if (stall.signal.aborted) {
      run.emit({ event: 'error', data: { error: `the model stream stalled: no data for ${deps.stallTimeoutMs} ms`, code: 'model_timeout', kind: 'timeout', retryable: true, timestamp: new Date().toISOString() } });
      status = 'failed';
    } else if (sawError) status = 'failed';
    else if (lastFinishReason === 'tool-calls' && stepCount >= deps.maxSteps) {
      run.emit({ event: 'error', data: { error: `the agent reached its step limit (${deps.maxSteps}) without an answer`, code: 'step_limit', kind: 'step_limit', retryable: false, timestamp: new Date().toISOString() } });
      status = 'failed';
    }
  } catch (err) {
    if (run.abort.signal.aborted) status = 'aborted';
    else if (stallFired()) {
      status = 'failed';
      run.emit({ event: 'error', data: { error: `the model stream stalled: no data for ${deps.stallTimeoutMs} ms`, code: 'model_timeout', kind: 'timeout', retryable: true, timestamp: new Date().toISOString() } });
    } else {
      status = 'failed';
      const c = classifyError(err);
      deps.hooks?.onError?.(err, turn);
      run.emit({ event: 'error', data: { error: deps.redact(c.message), code: c.code, kind: c.kind, retryable: c.retryable, timestamp: new Date().toISOString() } });
    }
  }

  stopWatchdog();
  // history with the stream's ids
  const rows: NewMessage[] = [];
  if (reasoning) rows.push({ id: `${requestId}-reasoning`, type: 'ai', content: '', reasoning });
  const calls = [...toolRows.values()].sort((a, b) => a.order - b.order);
  for (const c of calls) {
    rows.push({
      id: `${requestId}-ToolCall-${c.id}`,
      type: 'ai',
      content: { name: c.name, props: { id: c.id, args: c.args, status: c.status, output: c.status === 'error' ? { error: c.error } : c.output } },
    });
  }
  const toolCalls: ToolCallRecord[] = calls.map(({ order: _o, ...c }) => c);
  if (run.text || status === 'finished' || toolCalls.length > 0) {
    rows.push({ id: requestId, type: 'ai', content: run.text, toolCalls: toolCalls.length ? toolCalls : undefined, reasoning: reasoning || undefined });
  }
  try {
    deps.saveState(sessionId, state);
    await deps.persist(sessionId, rows);
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
  }
  try {
    await deps.hooks?.onTurnEnd?.(turn, { status, text: run.text });
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
  }
  run.emit({ event: 'done', data: status === 'finished' ? { status } : { status, partialText: run.text } });
}
