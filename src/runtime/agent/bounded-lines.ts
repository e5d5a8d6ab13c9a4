/**
 * The model provider's reply, bounded line by line: the provider's SSE parser keeps a line in memory until its end,
 * so one endless `data:` line (a hostile or broken endpoint sending a 30 MB delta) would be held, parsed and copied
 * whole before any bound of the run could see it. A line longer than ORACLE_MODEL_MAX_LINE_BYTES errors the reply's
 * body at that byte; the turn then ends with `error` code `model_line_too_long` (kind `limit`, classify-error.ts).
 * A provider's real lines are a few hundred bytes (one token, or a tool call's arguments).
 */

/** Why the reply was cut; classify-error.ts maps it to `model_line_too_long`. */
export class ModelLineTooLongError extends Error {
  override readonly name = 'ModelLineTooLongError';
  readonly maxLineBytes: number;
  constructor(maxLineBytes: number) {
    super(
      `a line of the model provider's stream is longer than ${maxLineBytes} bytes (ORACLE_MODEL_MAX_LINE_BYTES); ` +
        'the reply was cut there',
    );
    this.maxLineBytes = maxLineBytes;
  }
}

/** The body's bytes as they come, erroring once a line (bytes between two \n) is longer than `max`. */
function boundLines(max: number): TransformStream<Uint8Array, Uint8Array> {
  let line = 0;
  return new TransformStream({
    transform(chunk, ctl) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        if (line + nl - start > max) return ctl.error(new ModelLineTooLongError(max));
        line = 0;
        start = nl + 1;
      }
      line += chunk.length - start;
      if (line > max) return ctl.error(new ModelLineTooLongError(max));
      ctl.enqueue(chunk);
    },
  });
}

/** A fetch for the model provider whose replies' bodies have lines of at most `maxLineBytes` bytes. */
export function lineBoundedFetch(maxLineBytes: number, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const { status, statusText, headers } = res;
    return new Response(res.body.pipeThrough(boundLines(maxLineBytes)), { status, statusText, headers });
  };
}
