/**
 * The model loop a turn and a sub-agent share: the AI SDK's streamText with
 * the tools, the step limit, the output bound and the aborts (the caller's
 * signals and the stall watchdog's). Each part of the stream touches the
 * watchdog and goes to `onPart`, until the stream ends or `halt()` says stop.
 * Errors of the stream arrive as `error` parts; what they mean is the
 * caller's to decide. Before each step, images tools returned move to a user
 * message (tool-images.ts). A request sent before its turn was confirmed
 * (early-model.ts) stands for the turn's own when it is the same request.
 */
import { streamText, isStepCount, type LanguageModel, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import type { Watchdog } from './watchdog.ts';
import { imagesToUserMessages, type ImageLimits } from './tool-images.ts';
import type { EarlyModel } from './early-model.ts';

export interface ModelStream {
  model: LanguageModel;
  instructions: string;
  messages: ModelMessage[];
  tools: ToolSet;
  /** The names callable at step 0 (default all). */
  activeTools?: string[];
  /** What changes after step 0 (active tools, instructions). */
  prepareStep?: (o: { stepNumber: number }) => Promise<{ activeTools: string[]; instructions: string } | undefined>;
  maxSteps: number;
  maxOutputTokens: number;
  /** Abort the model call (the run's abort, its bounds); the watchdog's is added. */
  signals: AbortSignal[];
  watchdog: Watchdog;
  /** The images one model request carries (tool-images.ts; default DEFAULT_IMAGE_LIMITS). */
  images?: ImageLimits;
  /** Checked before each part: true drops the rest of the stream. */
  halt?: () => boolean;
}

export async function streamModel(
  o: ModelStream,
  onPart: (part: TextStreamPart<ToolSet>) => void | Promise<void>,
  early?: EarlyModel,
): Promise<void> {
  // the request sent early is the turn's when it is the very request the turn would send (early-model.ts)
  const parts = early?.adopt(o) ?? openModel(o, AbortSignal.any([...o.signals, o.watchdog.signal]));
  for await (const part of parts) {
    if (o.halt?.()) break;
    o.watchdog.touch();
    await onPart(part);
  }
}

/** What the model is asked: the request a turn sends, without how its stream is consumed. */
export type ModelRequest = Omit<ModelStream, 'signals' | 'watchdog' | 'halt'>;

/** Sends the request (the AI SDK's streamText sends it at once); its parts wait until they are read. */
export function openModel(o: ModelRequest, signal: AbortSignal): ReadableStream<TextStreamPart<ToolSet>> {
  const result = streamText({
    model: o.model,
    instructions: o.instructions,
    messages: o.messages,
    tools: o.tools,
    ...(o.activeTools ? { activeTools: o.activeTools } : {}),
    prepareStep: async (step: { stepNumber: number; messages: ModelMessage[] }) => {
      const changed = await o.prepareStep?.(step);
      const messages = imagesToUserMessages(step.messages, o.images);
      return changed || messages ? { ...changed, ...(messages ? { messages } : {}) } : undefined;
    },
    stopWhen: isStepCount(o.maxSteps),
    maxOutputTokens: o.maxOutputTokens,
    abortSignal: signal,
    maxRetries: 0,
    onError: () => {},
  } as never) as ReturnType<typeof streamText>;
  return result.fullStream;
}
