/**
 * One agent turn (runtime.md, "Agent and model"): the model loop
 * (model-stream.ts) against the host's model, with the meta-tools and the plugins' tools;
 * on-demand tools become active from the step after load_capability. Every
 * part of the model stream becomes a protocol event of the run; provider
 * errors, stalls and malformed streams become `error` events with a code,
 * kind and retryable, then `done` — never a hang. The turn's history rows
 * are the run's events folded by reduceTurn. A turn given an early request
 * (a call's, sent before the end of the user's turn: early-model.ts) uses it
 * when its own request is the same.
 */
import type { ModelMessage } from 'ai';
import { messageIds } from '../../lib/protocol/index.ts';
import type { Run } from '../run.ts';
import type { PreemptedTurn, TurnContext } from '../plugin.ts';
import type { AgentDeps, TurnInput } from './types.ts';
import { runHook } from './hooks.ts';
import { buildToolSet } from './tool-set.ts';
import { startWatchdog, type Watchdog } from './watchdog.ts';
import { streamModel, type ModelRequest } from './model-stream.ts';
import { EarlyModel } from './early-model.ts';
import { boundRun } from './run-limits.ts';
import { PartsToEvents } from './parts-to-events.ts';
import { classifyError, errorEvent, stallError, stepLimitError, storageError } from './classify-error.ts';
import { historyRows } from './history-rows.ts';
import { DEFAULT_IMAGE_LIMITS } from './tool-images.ts';

type TurnStatus = 'finished' | 'aborted' | 'failed';
type Bounds = ReturnType<typeof boundRun>;
type Usage = { inputTokens?: number; outputTokens?: number };

export async function runTurn(deps: AgentDeps, run: Run, input: TurnInput, early?: EarlyTurn): Promise<void> {
  try {
    await runTurnOnce(deps, run, input, early);
  } finally {
    early?.cancel(); // a turn that ended before its model request did not take it
  }
}

async function runTurnOnce(deps: AgentDeps, run: Run, input: TurnInput, early: EarlyTurn | undefined): Promise<void> {
  // bounded from its first await: a turn stuck anywhere (a plugin hook, a tool, the model) ends at maxMs
  const bounds = boundRun(run, deps.limits);
  const opened = await openTurn(deps, run, input, bounds);
  if (!opened) return;
  const { turn, state } = opened;
  let status: TurnStatus = 'finished';
  // the stall watchdog starts with the model call (streamTurn), not before the plugins' hooks
  const stall: { watchdog?: Watchdog } = {};
  let usage: Usage | undefined;
  try {
    const parts = await streamTurn(deps, run, input, { ...opened, bounds, stall, early });
    usage = parts.usage;
    const stop = stopReason(deps, run, bounds, stall.watchdog);
    if (stop) status = stop;
    else if (parts.sawError) status = 'failed';
    else if (parts.lastFinishReason === 'tool-calls' && parts.stepCount >= deps.maxSteps) {
      run.emit(errorEvent(stepLimitError(deps.maxSteps), deps));
      status = 'failed';
    }
  } catch (err) {
    const stop = stopReason(deps, run, bounds, stall.watchdog);
    if (stop) status = stop;
    else {
      status = 'failed';
      deps.hooks?.onError?.(err, turn);
      run.emit(errorEvent(classifyError(err, deps.now), deps));
    }
  }
  stall.watchdog?.stop();
  bounds.stop();
  run.endStream();
  await closeTurn(deps, run, input, { turn, state, status, usage });
}

/**
 * The turn's context and history, and the user's message made durable. The `run` frame says the turn was accepted:
 * it goes out once the message is stored, so a crash after it never loses the message; a message that cannot be
 * stored fails the turn before the model runs (undefined: the turn is over).
 */
async function openTurn(deps: AgentDeps, run: Run, input: TurnInput, bounds: Bounds) {
  const { sessionId, requestId } = run;
  const state = await deps.loadState(sessionId);
  const turn: TurnContext = {
    userDid: run.userDid,
    sessionId,
    requestId,
    state,
    abortSignal: AbortSignal.any([run.abort.signal, bounds.signal]),
    timezone: input.timezone,
    metadata: input.metadata,
    delegation: input.delegation,
    message: input.message,
    clientTools: input.tools,
    agActions: input.agActions,
  };
  const prior = await deps.history(sessionId);
  let humanStored = true;
  try {
    await deps.persist(sessionId, [{ id: messageIds.human(requestId), type: 'human', content: input.message }]);
    run.accept();
  } catch (e) {
    humanStored = false;
    deps.hooks?.onError?.(e);
    run.accept(e);
  }
  run.emit({ event: 'run', data: { runId: run.runId, requestId } });
  if (!humanStored) {
    bounds.stop();
    run.emit(errorEvent(storageError('the message', run.storageFault), deps));
    run.emit({ event: 'done', data: { status: 'failed', partialText: '' } });
    return undefined;
  }
  return { turn, state, prior };
}

/** The plugins' hooks, the tools and the model loop of the turn, each part of the stream as the run's events. */
async function streamTurn(
  deps: AgentDeps,
  run: Run,
  input: TurnInput,
  t: {
    turn: TurnContext;
    state: Record<string, unknown>;
    prior: ModelMessage[];
    bounds: Bounds;
    stall: { watchdog?: Watchdog };
    early: EarlyTurn | undefined;
  },
): Promise<PartsToEvents> {
  const { turn, state, bounds } = t;
  const active = deps.plugins();
  await deps.hooks?.onTurnStart?.(turn);
  const composed = await composeTurn(deps, turn, active);
  const { notLoaded, systemPrompt } = composed;
  const watchdog = (t.stall.watchdog = startWatchdog(deps.stallTimeoutMs));
  deps.saveState(run.sessionId, state);
  const parts = new PartsToEvents({
    sessionId: run.sessionId,
    requestId: run.requestId,
    emit: run.emit.bind(run),
    redact: deps.redact,
    now: deps.now,
    cancelled: () => run.abort.signal.aborted || watchdog.signal.aborted || bounds.signal.aborted,
    notLoaded,
    fit: bounds.fit,
  });
  const request = modelRequest(deps, input, t.prior, composed, await systemPrompt());
  await streamModel(
    {
      ...request,
      signals: [run.abort.signal, bounds.signal],
      watchdog,
      halt: () => bounds.signal.aborted, // nothing more of this stream is kept
    },
    async (part) => {
      parts.push(part);
      if (part.type === 'finish-step')
        await runHook(active, ({ plugin }) =>
          plugin.middleware?.afterModel?.(turn, { text: run.text, finishReason: part.finishReason }),
        );
    },
    t.early?.take(),
  );
  parts.end();
  return parts;
}

type Composed = Awaited<ReturnType<typeof composeTurn>>;

/** The plugins' state, the turn's tools and its instructions (read again at each step): what its requests ask. */
async function composeTurn(deps: AgentDeps, turn: TurnContext, active: ReturnType<AgentDeps['plugins']>) {
  const { state } = turn;
  // plugin state before the agent is compiled (user-preferences on turn 1)
  for (const s of await runHook(active, ({ plugin, ctx }) => plugin.loadState?.(turn, ctx))) Object.assign(state, s);
  const systemPrompt = async (): Promise<string> => {
    const parts = await runHook(active, async ({ plugin, ctx }) => [
      plugin.systemPrompt?.(state, ctx),
      await plugin.middleware?.beforeModel?.(turn),
    ]);
    return [deps.basePrompt(), ...parts.flat()].filter(Boolean).join('\n\n');
  };
  const tools = await buildToolSet(
    { turn, active, timeoutMs: deps.toolTimeoutMs },
    { metaTools: deps.metaTools, pluginTools: deps.pluginTools() },
  );
  return { ...tools, systemPrompt };
}

/** The turn's model request: its history and the user's message, its tools and instructions, its bounds. */
function modelRequest(
  deps: AgentDeps,
  input: TurnInput,
  prior: ModelMessage[],
  { tools, activeTools, systemPrompt }: Composed,
  instructions: string,
): ModelRequest {
  return {
    model: deps.model(input.model),
    instructions,
    messages: [...prior, { role: 'user', content: input.message }],
    tools,
    activeTools: activeTools(),
    // step 0 uses the instructions and tools above; later steps see what the turn's tools changed
    // (load_capability, preferences)
    prepareStep: async ({ stepNumber }) =>
      stepNumber === 0 ? undefined : { activeTools: activeTools(), instructions: await systemPrompt() },
    maxSteps: deps.maxSteps,
    maxOutputTokens: deps.limits.maxOutputTokens,
    images: {
      maxImages: deps.limits.maxImages ?? DEFAULT_IMAGE_LIMITS.maxImages,
      maxImageBytes: deps.limits.maxImageBytes ?? DEFAULT_IMAGE_LIMITS.maxImageBytes,
    },
  };
}

/**
 * A turn's model request sent before the turn is confirmed (early-model.ts): made as the turn would make it, from the
 * session's history and state and the plugins' hooks (the host's onTurnStart is the confirmed turn's alone), with
 * nothing stored. The turn given it (runTurn) takes it, and uses it if its own request is the same; `cancel` ends it.
 */
export class EarlyTurn implements PreemptedTurn {
  private readonly abort = new AbortController();
  private model: EarlyModel | undefined;
  private spent = false;
  /** Text listeners given before the request was sent. */
  private readonly watching: ((delta: string | undefined) => boolean | void)[] = [];

  /** `allowed`: whether the turn may be sent now (the session is the user's, it runs no turn, its model is known). */
  constructor(
    deps: AgentDeps,
    o: { userDid: string; sessionId: string; input: TurnInput },
    allowed: () => Promise<boolean>,
  ) {
    allowed()
      .then((ok) => (ok && !this.spent ? this.send(deps, o) : undefined))
      .then(
        (m) => {
          if (this.spent) m?.cancel();
          else this.model = m;
          for (const l of this.watching.splice(0)) this.model?.watchText(l);
        },
        (e: unknown) => deps.hooks?.onError?.(e),
      );
  }

  private async send(
    deps: AgentDeps,
    { userDid, sessionId, input }: { userDid: string; sessionId: string; input: TurnInput },
  ): Promise<EarlyModel | undefined> {
    const [state, prior] = await Promise.all([deps.loadState(sessionId), deps.history(sessionId)]);
    const turn: TurnContext = {
      userDid,
      sessionId,
      requestId: '', // the confirmed turn's is not known yet
      state,
      abortSignal: this.abort.signal,
      timezone: input.timezone,
      metadata: input.metadata,
      delegation: input.delegation,
      message: input.message,
      clientTools: input.tools,
      agActions: input.agActions,
    };
    const composed = await composeTurn(deps, turn, deps.plugins());
    const instructions = await composed.systemPrompt();
    if (this.spent) return undefined;
    return new EarlyModel(modelRequest(deps, input, prior, composed, instructions));
  }

  watchText(listener: (delta: string | undefined) => boolean | void): void {
    if (this.model) this.model.watchText(listener);
    else if (!this.spent) this.watching.push(listener);
  }

  /** The early request if it was sent by now (a turn that would wait for it gains nothing); the handle is spent. */
  take(): EarlyModel | undefined {
    this.spent = true;
    const m = this.model;
    this.model = undefined;
    return m;
  }

  cancel(): void {
    this.spent = true;
    this.abort.abort();
    this.model?.cancel();
    this.model = undefined;
  }
}

/** A stop the turn did not choose — its bounds, an abort, a stall — with its error event; undefined: none. */
function stopReason(deps: AgentDeps, run: Run, bounds: Bounds, watchdog?: Watchdog): TurnStatus | undefined {
  const exceeded = bounds.exceeded();
  if (exceeded) {
    run.emit(errorEvent(exceeded, deps));
    return 'failed';
  }
  if (run.abort.signal.aborted) return 'aborted';
  if (watchdog?.signal.aborted) {
    run.emit(errorEvent(stallError(deps.stallTimeoutMs), deps));
    return 'failed';
  }
  return undefined;
}

/**
 * Stores how the turn ended (its rows, the human row with its status and usage), tells the hooks, and sends `done`.
 * Nothing is reported finished that was not stored.
 */
async function closeTurn(
  deps: AgentDeps,
  run: Run,
  input: TurnInput,
  o: { turn: TurnContext; state: Record<string, unknown>; status: TurnStatus; usage: Usage | undefined },
): Promise<void> {
  const { sessionId, requestId } = run;
  const { turn, usage } = o;
  let status = o.status;
  const spent =
    usage || input.charged ? { usage: { ...usage, ...(input.charged ? { charged: input.charged } : {}) } } : {};
  try {
    deps.saveState(sessionId, o.state);
    // the human row again, now with how the turn ended: what a resumed chat shows of it
    const human = { id: messageIds.human(requestId), type: 'human' as const, content: input.message };
    await deps.persist(sessionId, [
      { ...human, turn: { status, ...spent } },
      ...historyRows(
        status === 'aborted' && run.heard !== undefined ? { ...run.turn, text: run.heard } : run.turn,
        status,
        sessionId,
        run.events,
      ),
    ]);
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
    // a stopped turn stays stopped (its session may be gone: deleting a session stops its turn, and its rows then
    // have nowhere to go)
    if (status !== 'aborted') {
      run.storageFault = e;
      run.emit(errorEvent(storageError("the turn's history", e), deps));
      status = 'failed';
    }
  }
  try {
    await deps.hooks?.onTurnEnd?.(turn, { status, text: run.text });
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
  }
  run.emit({
    event: 'done',
    data: status === 'finished' ? { status, ...spent } : { status, partialText: run.text, ...spent },
  });
}
