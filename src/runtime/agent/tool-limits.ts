/**
 * The size bounds of a tool call (runtime.md, "Limits of a tool call"): a model that repeats itself (the same
 * capability name 200,000 times) or a tool that returns megabytes must not turn one call into a history row
 * of hundreds of megabytes. A call's arguments are refused above MAX_TOOL_ARGS_CHARS (the tool does not run);
 * its result is cut to MAX_TOOL_RESULT_CHARS with a note the model reads; what the run streams and stores of
 * either is bounded alike.
 */

import { isToolImage } from '../plugin.ts';
import { MAX_TOOL_IMAGE_CHARS } from './tool-images.ts';

/** The most characters of JSON a tool call's arguments may have. */
const MAX_TOOL_ARGS_CHARS = 64 * 1024;
/** The most characters of JSON of a tool's result the model sees and the run streams and stores. */
const MAX_TOOL_RESULT_CHARS = 64 * 1024;

function jsonLength(v: unknown): number {
  try {
    return JSON.stringify(v)?.length ?? 0;
  } catch {
    return Infinity; // a cycle or a BigInt: not something to send anywhere
  }
}

/** Throws (the call fails with this message, the tool never runs) when the arguments are too large. */
export function checkToolArgs(name: string, input: unknown): void {
  const n = jsonLength(input);
  if (n > MAX_TOOL_ARGS_CHARS)
    throw new Error(
      `the arguments of ${name} are ${n} characters of JSON; a tool call's arguments may have at most ` +
        `${MAX_TOOL_ARGS_CHARS}: call it with less`,
    );
}

/**
 * The result as it is, or its first MAX_TOOL_RESULT_CHARS characters of JSON with a note to the model; an image
 * (toolImage) is bounded by its own size, MAX_TOOL_IMAGE_CHARS of base64.
 */
export function boundToolResult(name: string, output: unknown): unknown {
  if (isToolImage(output)) {
    if (output.data.length <= MAX_TOOL_IMAGE_CHARS) {
      // the image's text is bounded like any result: it is streamed, stored and sent to the model
      if (output.text.length <= MAX_TOOL_RESULT_CHARS) return output;
      const note = `… (the text of ${name}'s image was ${output.text.length} characters; only its first ${MAX_TOOL_RESULT_CHARS} are kept)`;
      return { ...output, text: output.text.slice(0, MAX_TOOL_RESULT_CHARS) + note };
    }
    throw new Error(
      `the image ${name} returned is ${output.data.length} characters of base64; a tool's image may have at most ` +
        `${MAX_TOOL_IMAGE_CHARS}`,
    );
  }
  const n = jsonLength(output);
  if (n <= MAX_TOOL_RESULT_CHARS) return output;
  const json = Number.isFinite(n) ? JSON.stringify(output) : String(output);
  return {
    truncated: true,
    note:
      `the result of ${name} was ${Number.isFinite(n) ? n : 'too many'} characters of JSON; only its first ` +
      `${MAX_TOOL_RESULT_CHARS} are kept (a tool's result is capped): ask for less if what you need is missing`,
    preview: json.slice(0, MAX_TOOL_RESULT_CHARS),
  };
}

/** What an event shows of a call's arguments: as they are, or their size when they are over the bound. */
export function shownArgs(input: unknown): unknown {
  const n = jsonLength(input);
  return n > MAX_TOOL_ARGS_CHARS ? { truncated: true, characters: n } : input;
}

/** The most characters of a tool call's error message an event shows. */
const MAX_TOOL_ERROR_CHARS = 2000;

/** A tool call's error message, cut (an invalid input's message quotes the whole input). */
export function shownError(message: string): string {
  return message.length > MAX_TOOL_ERROR_CHARS
    ? `${message.slice(0, MAX_TOOL_ERROR_CHARS)}… (${message.length} characters in all)`
    : message;
}
