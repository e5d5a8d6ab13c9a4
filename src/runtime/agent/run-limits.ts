/**
 * The bounds of one run (runtime.md, "Limits of a run"): how long it may last, how much answer and reasoning
 * it may produce, and how large its event log may grow (what a rejoin replays, what the run's row stores and
 * what several instances fan out). A model that streams without end can otherwise take the whole process
 * down. The first bound crossed aborts the model stream; the turn then ends `failed` with that bound's
 * `error` (kind `limit`). A delta that would cross the output or event-log bound is cut at the bound before it is
 * sent (`fit`): one delta of 30 MB sends, stores and replays no more than a stream of small ones.
 */
import type { AnyEvent } from '../../lib/protocol/index.ts';
import type { Run } from '../run.ts';
import { limitError, type ClassifiedError } from './classify-error.ts';

export interface RunLimits {
  /** The most tokens the model may produce per step (sent to the provider). */
  maxOutputTokens: number;
  /** The longest a run may last, in ms. */
  maxMs: number;
  /** The most characters of answer and reasoning a run may produce. */
  maxOutputChars: number;
  /** The largest a run's event log may grow: the JSON of each event plus EVENT_OVERHEAD. */
  maxEventBytes: number;
  /** The most images of tools one model request of the turn carries (tool-images.ts): the newest; default 8. */
  maxImages?: number;
  /** The most characters of base64 of those images, in all; default 16 MiB. */
  maxImageBytes?: number;
}

/** What an event costs in memory besides its JSON (the object, its id, the SSE frame around it). */
const EVENT_OVERHEAD = 100;

interface RunBounds {
  /** Aborted once a bound is crossed. */
  readonly signal: AbortSignal;
  /**
   * How many of the `chars` characters of an answer or reasoning delta may still be sent (all of them, or fewer when
   * the delta would cross the output or event-log bound: that bound is then crossed).
   */
  fit(kind: 'message' | 'reasoning', chars: number): number;
  /** The bound crossed, if any. */
  exceeded(): ClassifiedError | undefined;
  stop(): void;
}

/** What a delta's event costs besides its characters: the JSON around a message's content, a reasoning's fields. */
const DELTA_FRAME = { message: 16, reasoning: 160 } as const;

/** The size of an event in the log and the characters of output it adds (text deltas cost no stringify). */
function sizeOf(e: AnyEvent): { bytes: number; output: number } {
  if (e.event === 'message')
    return { bytes: e.data.content.length + DELTA_FRAME.message, output: e.data.content.length };
  if (e.event === 'reasoning')
    return { bytes: e.data.reasoning.length + DELTA_FRAME.reasoning, output: e.data.reasoning.length };
  return { bytes: JSON.stringify(e.data).length, output: 0 };
}

export function boundRun(run: Run, limits: RunLimits): RunBounds {
  const ctl = new AbortController();
  let hit: ClassifiedError | undefined;
  const trip = (e: ClassifiedError) => {
    if (hit) return;
    hit = e;
    ctl.abort(new Error(e.message));
  };
  const timer = setTimeout(() => trip(limitError('run_too_long', limits.maxMs)), limits.maxMs);
  timer.unref();
  let bytes = 0;
  let output = 0;
  const off = run.subscribe(0, (e) => {
    const s = sizeOf(e);
    bytes += s.bytes + EVENT_OVERHEAD;
    output += s.output;
    if (output > limits.maxOutputChars) trip(limitError('output_too_large', limits.maxOutputChars));
    else if (bytes > limits.maxEventBytes) trip(limitError('events_too_large', limits.maxEventBytes));
  });
  return {
    signal: ctl.signal,
    fit(kind, chars) {
      const output_ = limits.maxOutputChars - output;
      const bytes_ = limits.maxEventBytes - bytes - EVENT_OVERHEAD - DELTA_FRAME[kind];
      const n = Math.max(0, Math.min(chars, output_, bytes_));
      if (n < chars)
        trip(
          output_ <= bytes_
            ? limitError('output_too_large', limits.maxOutputChars)
            : limitError('events_too_large', limits.maxEventBytes),
        );
      return n;
    },
    exceeded: () => hit,
    stop: () => {
      clearTimeout(timer);
      off();
    },
  };
}
