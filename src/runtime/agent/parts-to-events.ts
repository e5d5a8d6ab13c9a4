/**
 * The parts of the model's stream (the AI SDK's fullStream) as protocol
 * events of the run: reasoning deltas and one closing frame without text
 * (the IXO SDK appends every frame's text, the closing one's too), text deltas, tool calls with their status, in-stream
 * errors
 * (classified and redacted). It also keeps what the end of the turn needs:
 * whether an error was reported, how many steps finished, the last finish
 * reason and the tokens used.
 */
import { NoSuchToolError, type TextStreamPart, type ToolSet } from 'ai';
import type { AnyEventInput } from '../../lib/protocol/index.ts';
import { classifyError, errorEvent } from './classify-error.ts';
import { shownArgs, shownError } from './tool-limits.ts';
import { shownOutput } from './tool-images.ts';

interface PartsToEventsOptions {
  sessionId: string;
  requestId: string;
  emit: (e: AnyEventInput) => void;
  redact: (text: string) => string;
  /** The runtime's clock, ms since the epoch: the time of an error event. */
  now: () => number;
  /** True once the run is aborted or stalled: a stream error is then not reported (the end of the turn says why). */
  cancelled: () => boolean;
  /**
   * The runtime's own message for a call of a tool that is not active (an
   * on-demand plugin's tool before load_capability), instead of the AI SDK's
   * NoSuchToolError; undefined for a tool the oracle does not have.
   */
  notLoaded?: (toolName: string) => string | undefined;
  /** How many characters of a delta may be sent (run-limits.ts, `fit`); default all. */
  fit?: (kind: 'message' | 'reasoning', chars: number) => number;
}

export class PartsToEvents {
  sawError = false;
  stepCount = 0;
  lastFinishReason = '';
  /** The model's tokens over every step (the stream's finish part). */
  usage: { inputTokens?: number; outputTokens?: number } | undefined;
  private reasoningOpen = false;
  private readonly noSuchTool = new Set<string>();
  private readonly o: PartsToEventsOptions;

  constructor(o: PartsToEventsOptions) {
    this.o = o;
  }

  /** Emits the events of one part. */
  push(part: TextStreamPart<ToolSet>): void {
    const { sessionId, requestId, emit } = this.o;
    switch (part.type) {
      case 'reasoning-delta': {
        const reasoning = this.fitted('reasoning', part.text);
        if (!reasoning) break;
        this.reasoningOpen = true;
        emit({ event: 'reasoning', data: { sessionId, requestId, reasoning, isComplete: false } });
        break;
      }
      case 'reasoning-end':
        this.closeReasoning();
        break;
      case 'text-delta': {
        this.closeReasoning();
        const content = this.fitted('message', part.text);
        if (content) emit({ event: 'message', data: { content } });
        break;
      }
      case 'tool-call':
        this.closeReasoning();
        if (part.invalid && NoSuchToolError.isInstance(part.error)) this.noSuchTool.add(part.toolCallId);
        this.toolCall(part, { status: 'isRunning' });
        break;
      case 'tool-result':
        this.toolCall(part, { status: 'done', output: shownOutput(part.output) });
        break;
      case 'tool-error': {
        // the AI SDK reports a call of an inactive tool on its tool-call part, and a plain message here
        const own = this.noSuchTool.has(part.toolCallId) ? this.o.notLoaded?.(part.toolName) : undefined;
        // an invalid input's message quotes the input: bounded like the arguments themselves
        const error = this.o.redact(
          shownError(own ?? (part.error instanceof Error ? part.error.message : String(part.error))),
        );
        this.toolCall(part, { status: 'error', error });
        break;
      }
      case 'finish':
        this.usage = { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens };
        break;
      case 'finish-step':
        this.stepCount++;
        this.lastFinishReason = part.finishReason;
        break;
      case 'error':
        if (this.o.cancelled()) break;
        this.sawError = true;
        emit(errorEvent(classifyError(part.error, this.o.now), this.o));
        break;
      default:
        break;
    }
  }

  /** A delta's text, cut where the run's bounds end it. */
  private fitted(kind: 'message' | 'reasoning', text: string): string {
    if (!text || !this.o.fit) return text;
    const n = this.o.fit(kind, text.length);
    return n < text.length ? text.slice(0, n) : text;
  }

  /** A tool call's event: its id, name and shown arguments, with its status and output or error. */
  private toolCall(
    part: { toolCallId: string; toolName: string; input: unknown },
    r: { status: 'isRunning' } | { status: 'done'; output: unknown } | { status: 'error'; error: string },
  ): void {
    this.o.emit({
      event: 'tool_call',
      data: {
        sessionId: this.o.sessionId,
        requestId: this.o.requestId,
        eventId: part.toolCallId,
        toolName: part.toolName,
        args: shownArgs(part.input),
        ...r,
      },
    });
  }

  /** The end of the stream: closes open reasoning. */
  end(): void {
    this.closeReasoning();
  }

  private closeReasoning(): void {
    if (!this.reasoningOpen) return;
    this.reasoningOpen = false;
    this.o.emit({
      event: 'reasoning',
      data: { sessionId: this.o.sessionId, requestId: this.o.requestId, reasoning: '', isComplete: true },
    });
  }
}
