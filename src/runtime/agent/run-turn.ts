/**
 * One agent turn (runtime.md, "Agent and model"): the model loop
 * (model-stream.ts) against the host's model, with the meta-tools and the plugins' tools;
 * on-demand tools become active from the step after load_capability. Every
 * part of the model stream becomes a protocol event of the run; provider
 * errors, stalls and malformed streams become `error` events with a code,
 * kind and retryable, then `done` — never a hang. The turn's history rows
 * are the run's events folded by reduceTurn.
 */
import type { ModelMessage } from 'ai';
import { messageIds } from '../../lib/protocol/index.ts';
import type { Run } from '../run.ts';
import type { TurnContext } from '../plugin.ts';
import type { AgentDeps, TurnInput } from './types.ts';
import { runHook } from './hooks.ts';
import { buildToolSet } from './tool-set.ts';
import { startWatchdog, type Watchdog } from './watchdog.ts';
import { streamModel } from './model-stream.ts';
import { boundRun } from './run-limits.ts';
import { PartsToEvents } from './parts-to-events.ts';
import { classifyError, errorEvent, stallError, stepLimitError, storageError } from './classify-error.ts';
import { historyRows } from './history-rows.ts';

type TurnStatus = 'finished' | 'aborted' | 'failed';

export async function runTurn(deps: AgentDeps, run: Run, input: TurnInput): Promise<void> {
  const { sessionId, requestId } = run;
  // bounded from its first await: a turn stuck anywhere (a plugin hook, a tool, the model) ends at maxMs
  const bounds = boundRun(run, deps.limits);
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
  const emit = run.emit.bind(run);
  const prior = await deps.history(sessionId);
  // the `run` frame says the turn was accepted: it goes out once the user's message is durable, so a crash
  // after it never loses the message; a message that cannot be stored fails the turn before the model runs
  let humanStored = true;
  try {
    await deps.persist(sessionId, [{ id: messageIds.human(requestId), type: 'human', content: input.message }]);
    run.accept();
  } catch (e) {
    humanStored = false;
    deps.hooks?.onError?.(e);
    run.accept(e);
  }
  emit({ event: 'run', data: { runId: run.runId, requestId } });
  if (!humanStored) {
    bounds.stop();
    emit(errorEvent(storageError('the message', run.storageFault), deps.redact));
    emit({ event: 'done', data: { status: 'failed', partialText: '' } });
    return;
  }

  const active = deps.plugins();
  let status: TurnStatus = 'finished';
  let watchdog: Watchdog | undefined;
  let usage: { inputTokens?: number; outputTokens?: number } | undefined;
  const stalled = () => watchdog?.signal.aborted === true;

  try {
    await deps.hooks?.onTurnStart?.(turn);
    // plugin state before the agent is compiled (user-preferences on turn 1)
    for (const s of await runHook(active, ({ plugin, ctx }) => plugin.loadState?.(turn, ctx))) Object.assign(state, s);

    const systemPrompt = async (): Promise<string> => {
      const parts = await runHook(active, async ({ plugin, ctx }) => [
        plugin.systemPrompt?.(state, ctx),
        await plugin.middleware?.beforeModel?.(turn),
      ]);
      return [deps.basePrompt(), ...parts.flat()].filter(Boolean).join('\n\n');
    };
    const { tools, activeTools, notLoaded } = await buildToolSet(
      { turn, active, timeoutMs: deps.toolTimeoutMs },
      { metaTools: deps.metaTools, pluginTools: deps.pluginTools() },
    );

    watchdog = startWatchdog(deps.stallTimeoutMs);
    const messages: ModelMessage[] = [...prior, { role: 'user', content: input.message }];
    deps.saveState(sessionId, state);
    const parts = new PartsToEvents({
      sessionId,
      requestId,
      emit,
      redact: deps.redact,
      cancelled: () => run.abort.signal.aborted || stalled() || bounds.signal.aborted,
      notLoaded,
    });
    await streamModel(
      {
        model: deps.model(input.model),
        instructions: await systemPrompt(),
        messages,
        tools,
        activeTools: activeTools(),
        // step 0 uses the instructions and tools above; later steps see what the turn's tools changed
        // (load_capability, preferences)
        prepareStep: async ({ stepNumber }) =>
          stepNumber === 0 ? undefined : { activeTools: activeTools(), instructions: await systemPrompt() },
        maxSteps: deps.maxSteps,
        maxOutputTokens: deps.limits.maxOutputTokens,
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
    );
    parts.end();
    usage = parts.usage;
    const exceeded = bounds.exceeded();
    if (exceeded) {
      emit(errorEvent(exceeded, deps.redact));
      status = 'failed';
    } else if (run.abort.signal.aborted) status = 'aborted';
    else if (stalled()) {
      emit(errorEvent(stallError(deps.stallTimeoutMs), deps.redact));
      status = 'failed';
    } else if (parts.sawError) status = 'failed';
    else if (parts.lastFinishReason === 'tool-calls' && parts.stepCount >= deps.maxSteps) {
      emit(errorEvent(stepLimitError(deps.maxSteps), deps.redact));
      status = 'failed';
    }
  } catch (err) {
    const exceeded = bounds.exceeded();
    if (exceeded) {
      status = 'failed';
      emit(errorEvent(exceeded, deps.redact));
    } else if (run.abort.signal.aborted) status = 'aborted';
    else if (stalled()) {
      status = 'failed';
      emit(errorEvent(stallError(deps.stallTimeoutMs), deps.redact));
    } else {
      status = 'failed';
      deps.hooks?.onError?.(err, turn);
      emit(errorEvent(classifyError(err), deps.redact));
    }
  }

  watchdog?.stop();
  bounds.stop();
  const spent =
    usage || input.charged ? { usage: { ...usage, ...(input.charged ? { charged: input.charged } : {}) } } : {};
  try {
    deps.saveState(sessionId, state);
    // the human row again, now with how the turn ended: what a resumed chat shows of it
    const human = { id: messageIds.human(requestId), type: 'human' as const, content: input.message };
    await deps.persist(sessionId, [
      { ...human, turn: { status, ...spent } },
      ...historyRows(run.turn, status, sessionId, run.events),
    ]);
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
    // nothing is reported finished that was not stored; a stopped turn stays stopped (its session may be
    // gone: deleting a session stops its turn, and its rows then have nowhere to go)
    if (status !== 'aborted') {
      run.storageFault = e;
      emit(errorEvent(storageError("the turn's history", e), deps.redact));
      status = 'failed';
    }
  }
  try {
    await deps.hooks?.onTurnEnd?.(turn, { status, text: run.text });
  } catch (e) {
    deps.hooks?.onError?.(e, turn);
  }
  emit({
    event: 'done',
    data: status === 'finished' ? { status, ...spent } : { status, partialText: run.text, ...spent },
  });
}
