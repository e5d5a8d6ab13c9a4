/**
 * The stall watchdog of a model stream: one timer per run checking the time
 * of the last part (cheaper than resetting a timer per chunk); when no part
 * came for `timeoutMs` it aborts its signal, which aborts the upstream call.
 */
export interface Watchdog {
  /** Aborted when the stream stalled. */
  readonly signal: AbortSignal;
  /** A part arrived. */
  touch(): void;
  stop(): void;
}

export function startWatchdog(timeoutMs: number): Watchdog {
  const stall = new AbortController();
  let lastPartAt = performance.now();
  const timer = setInterval(
    () => {
      if (performance.now() - lastPartAt > timeoutMs)
        stall.abort(new Error(`no data from the model for ${timeoutMs} ms`));
    },
    Math.max(10, Math.min(1000, timeoutMs / 4)),
  );
  timer.unref();
  return {
    signal: stall.signal,
    touch: () => {
      lastPartAt = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}
