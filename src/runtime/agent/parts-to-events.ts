/**
 * The parts of the model's stream (the AI SDK's fullStream) as protocol
 * events of the run: reasoning deltas and one closing frame without text
 * (the IXO SDK appends every frame's text, the closing one's too), text deltas, tool calls with their status, in-stream errors
 * (classified and redacted). It also keeps what the end of the turn needs:
 * whether an error was reported, how many steps finished and the last
 * finish reason.
 */
import type { TextStreamPart, ToolSet } from 'ai';
import type { AnyEventInput } from '../../lib/protocol/index.ts';
import { classifyError, errorEvent } from './classify-error.ts';

export interface PartsToEventsOptions {
  sessionId: string;
  requestId: string;
  emit: (e: AnyEventInput) => void;
  redact: (text: string) => string;
  /** True once the run is aborted or stalled: a stream error is then not reported (the end of the turn says why). */
  cancelled: () => boolean;
}

export class PartsToEvents {
  sawError = false;
  stepCount = 0;
  lastFinishReason = '';
  private reasoningOpen = false;
  private readonly o: PartsToEventsOptions;

  constructor(o: PartsToEventsOptions) {
    this.o = o;
  }

  /** Emits the events of one part. */
  push(part: TextStreamPart<ToolSet>): void {
    const { sessionId, requestId, emit } = this.o;
    switch (part.type) {
      case 'reasoning-delta':
        if (!part.text) break;
        this.reasoningOpen = true;
        emit({ event: 'reasoning', data: { sessionId, requestId, reasoning: part.text, isComplete: false } });
        break;
      case 'reasoning-end':
        this.closeReasoning();
        break;
      case 'text-delta':
        this.closeReasoning();
        if (part.text) emit({ event: 'message', data: { content: part.text } });
        break;
      case 'tool-call':
        this.closeReasoning();
        emit({
          event: 'tool_call',
          data: {
            sessionId,
            requestId,
            eventId: part.toolCallId,
            toolName: part.toolName,
            args: part.input,
            status: 'isRunning',
          },
        });
        break;
      case 'tool-result':
        emit({
          event: 'tool_call',
          data: {
            sessionId,
            requestId,
            eventId: part.toolCallId,
            toolName: part.toolName,
            args: part.input,
            status: 'done',
            output: part.output,
          },
        });
        break;
      case 'tool-error': {
        const error = this.o.redact(part.error instanceof Error ? part.error.message : String(part.error));
        emit({
          event: 'tool_call',
          data: {
            sessionId,
            requestId,
            eventId: part.toolCallId,
            toolName: part.toolName,
            args: part.input,
            status: 'error',
            error,
          },
        });
        break;
      }
      case 'finish-step':
        this.stepCount++;
        this.lastFinishReason = part.finishReason;
        break;
      case 'error':
        if (this.o.cancelled()) break;
        this.sawError = true;
        emit(errorEvent(classifyError(part.error), this.o.redact));
        break;
      default:
        break;
    }
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
