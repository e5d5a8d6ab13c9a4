/**
 * A turn's model request sent before the turn is confirmed: a call's preemptive generation (LiveKit's term), sent on
 * the early transcription of what the user said, while the end of their turn is still being waited for. Nothing is
 * stored, charged or run for it: its parts wait unread, and a tool it calls waits, until a turn adopts it. The turn
 * adopts it only when it would send the very same request (model, instructions, messages, tools, bounds); then the
 * parts are the turn's, its tools run as the turn's, and the turn's aborts and stall watchdog end it. Any other
 * request (the user said more, the history changed, a plugin's prompt differs) cancels it and the turn sends its own.
 * Not adopted nor cancelled within EARLY_MODEL_TTL_MS, it cancels itself. Its text can be watched as it streams,
 * before a turn adopts it (a call synthesizes the answer's first words then: watchText).
 */
import type { TextStreamPart, ToolSet } from 'ai';
import { openModel, type ModelRequest, type ModelStream } from './model-stream.ts';

/** An early request no turn took this long after it was sent (ms) is cancelled. */
export const EARLY_MODEL_TTL_MS = 10_000;

type Adoption = Pick<ModelRequest, 'tools' | 'prepareStep'>;

export class EarlyModel {
  private state: 'waiting' | 'adopted' | 'cancelled' = 'waiting';
  private readonly abort = new AbortController();
  private readonly request: ModelRequest;
  private readonly adoption: Promise<Adoption>;
  private settle!: { adopt: (a: Adoption) => void; cancel: (e: unknown) => void };
  private parts: ReadableStream<TextStreamPart<ToolSet>>;
  private readonly timer: NodeJS.Timeout;

  constructor(request: ModelRequest) {
    this.request = request;
    this.adoption = new Promise<Adoption>((adopt, cancel) => (this.settle = { adopt, cancel }));
    this.adoption.catch(() => {});
    // a tool the model calls before the turn adopts the request runs once it has, as the turn's tool
    const tools: ToolSet = {};
    for (const [name, t] of Object.entries(request.tools)) {
      const execute = t.execute;
      tools[name] = execute
        ? ({
            ...t,
            execute: async (input: unknown, opts: unknown) =>
              (await this.adoption).tools[name]!.execute!(input as never, opts as never),
          } as typeof t)
        : t;
    }
    this.parts = openModel(
      {
        ...request,
        tools,
        // step 0 is the request itself; a later step follows a tool's result, which only an adopted request has
        prepareStep: async (step) =>
          step.stepNumber === 0 ? request.prepareStep?.(step) : (await this.adoption).prepareStep?.(step),
      },
      this.abort.signal,
    );
    this.timer = setTimeout(() => this.cancel(), EARLY_MODEL_TTL_MS).unref();
  }

  /**
   * Gives `listener` the reply's text as it streams, from its start, until it returns false or the turn adopts the
   * request; `undefined` once the reply's first step has ended (the rest, after a tool's result, is the turn's). A copy
   * of the stream: what the turn reads is unchanged.
   */
  watchText(listener: (delta: string | undefined) => boolean | void): void {
    if (this.state !== 'waiting') return;
    const [parts, watched] = this.parts.tee();
    this.parts = parts;
    void (async () => {
      const reader = watched.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (this.state !== 'waiting') return;
          if (done || value.type === 'finish-step') return void listener(undefined);
          if (value.type === 'text-delta' && listener(value.text) === false) return;
        }
      } catch {
        // the request failed or was cancelled: its reader tells the turn, if one adopted it
      } finally {
        reader.cancel().catch(() => {});
      }
    })();
  }

  /**
   * The parts of this request if it is the one `o` would send (then the request is `o`'s: its signals and watchdog
   * abort it, its tools run); undefined otherwise, and this one is cancelled.
   */
  adopt(o: ModelStream): AsyncIterable<TextStreamPart<ToolSet>> | undefined {
    if (this.state !== 'waiting' || !sameRequest(this.request, o)) {
      this.cancel();
      return undefined;
    }
    this.state = 'adopted';
    clearTimeout(this.timer);
    const signal = AbortSignal.any([...o.signals, o.watchdog.signal]);
    if (signal.aborted) this.abort.abort(signal.reason);
    else signal.addEventListener('abort', () => this.abort.abort(signal.reason), { once: true });
    this.settle.adopt({ tools: o.tools, prepareStep: o.prepareStep });
    return this.parts;
  }

  /** Ends the request unless a turn adopted it (then the turn's aborts end it). */
  cancel(): void {
    if (this.state !== 'waiting') return;
    this.state = 'cancelled';
    clearTimeout(this.timer);
    const reason = new Error('the early request was not the turn’s');
    this.settle.cancel(reason);
    this.abort.abort(reason);
  }

  get adopted(): boolean {
    return this.state === 'adopted';
  }
}

/**
 * Whether two requests ask the model the same: the same model, instructions, messages and bounds, and the same tools
 * (names, descriptions and schemas: a plugin's schema is one object across turns, schema-cache.ts; a per-turn
 * tool's gives the same JSON Schema).
 */
export function sameRequest(a: ModelRequest, b: ModelRequest): boolean {
  if (a.model !== b.model || a.instructions !== b.instructions) return false;
  if (a.maxSteps !== b.maxSteps || a.maxOutputTokens !== b.maxOutputTokens) return false;
  if (JSON.stringify(a.activeTools) !== JSON.stringify(b.activeTools)) return false;
  if (JSON.stringify(a.images) !== JSON.stringify(b.images)) return false;
  const names = Object.keys(a.tools);
  if (names.length !== Object.keys(b.tools).length) return false;
  for (const n of names) {
    const x = a.tools[n]!;
    const y = b.tools[n];
    if (!y || x.description !== y.description || !sameSchema(x.inputSchema, y.inputSchema)) return false;
  }
  return JSON.stringify(a.messages) === JSON.stringify(b.messages);
}

/** One schema object, or two that give the same JSON Schema (a per-turn tool makes its schema each turn). */
function sameSchema(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = jsonOf(a);
  return x !== undefined && x === jsonOf(b);
}

function jsonOf(schema: unknown): string | undefined {
  const json = (schema as { jsonSchema?: unknown } | undefined)?.jsonSchema;
  if (json === undefined || typeof (json as PromiseLike<unknown>).then === 'function') return undefined;
  return JSON.stringify(json);
}
