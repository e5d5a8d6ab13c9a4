/**
 * Images a tool returns (toolImage, plugin.ts): the model receives each as an image part of the turn. The
 * OpenAI-compatible Chat Completions API takes image parts in user messages only (a tool message's content is text),
 * so the tool's result says the image follows, and the image goes in a user message right after the step's tool
 * results, for every later step of the turn. What the run streams and stores of such a result is its text and the
 * image's size: the pixels go to the model provider, never into the history.
 */
import type { FilePart, ModelMessage, TextPart, ToolResultPart } from 'ai';
import { isToolImage } from '../plugin.ts';

/** The most bytes of base64 an image of a tool may have (about 3 MB of image); a larger one is refused. */
export const MAX_TOOL_IMAGE_CHARS = 4 * 1024 * 1024;

/**
 * The images of a turn one model request carries (ORACLE_TURN_MAX_IMAGES, ORACLE_TURN_MAX_IMAGE_BYTES): the newest
 * that fit; each older one is replaced by a line saying it was dropped, before the request is sent. A step whose tools
 * return 30 images of 4 MiB would otherwise send 120 MiB, and every later step again.
 */
export interface ImageLimits {
  maxImages: number;
  /** Characters of base64, summed over the images kept. */
  maxImageBytes: number;
}

export const DEFAULT_IMAGE_LIMITS: ImageLimits = { maxImages: 8, maxImageBytes: 16 * 1024 * 1024 };

/** The AI SDK's toModelOutput for every tool: an image as text and an image part, anything else as the SDK does. */
export function toolModelOutput({ output }: { output: unknown }): ToolResultPart['output'] {
  if (isToolImage(output))
    return {
      type: 'content',
      value: [
        { type: 'text', text: output.text },
        { type: 'image-data', data: output.data, mediaType: output.mediaType },
      ],
    };
  if (typeof output === 'string') return { type: 'text', value: output };
  const json = output === undefined ? undefined : JSON.stringify(output);
  return { type: 'json', value: json === undefined ? null : JSON.parse(json) };
}

/** What an event and the history show of a tool's result: an image's text and size, not its pixels. */
export function shownOutput(output: unknown): unknown {
  if (!isToolImage(output)) return output;
  const { text, mediaType, width, height } = output;
  return { text, image: { mediaType, width, height, bytes: Math.floor((output.data.length * 3) / 4) } };
}

/**
 * The messages with each tool result's images moved to a user message after the tool messages of its step
 * (undefined: there was none). A moved result keeps its text and says the image follows; the AI SDK keeps the change
 * for later steps, so nothing is moved twice.
 */
export function imagesToUserMessages(
  messages: ModelMessage[],
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
): ModelMessage[] | undefined {
  let moved = false;
  let images: (TextPart | FilePart)[] = [];
  const out: ModelMessage[] = [];
  const flush = () => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const m of messages) {
    if (m.role !== 'tool') {
      flush();
      out.push(m);
      continue;
    }
    const content = m.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'content') return part;
      const media = part.output.value.filter((v) => v.type === 'image-data');
      if (media.length === 0) return part;
      moved = true;
      const text = part.output.value.flatMap((v) => (v.type === 'text' ? [v.text] : [])).join('\n');
      images.push({ type: 'text', text: `The image ${part.toolName} returned (call ${part.toolCallId}):` });
      for (const v of media) images.push({ type: 'file', data: v.data, mediaType: v.mediaType });
      const output = { type: 'text', value: `${text}\n(The image follows in the next message.)`.trim() } as const;
      return { ...part, output } satisfies ToolResultPart;
    });
    out.push({ ...m, content });
  }
  flush();
  const dropped = dropOlderImages(out, limits);
  return moved || dropped ? out : undefined;
}

/**
 * Keeps the newest images of the user messages within `limits` (walking from the last message back); each older one
 * becomes a text part saying so. True when one was dropped (the messages were changed in place).
 */
function dropOlderImages(messages: ModelMessage[], limits: ImageLimits): boolean {
  let count = 0;
  let bytes = 0;
  let dropped = false;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    if (!m.content.some((p) => p.type === 'file' && typeof p.data === 'string')) continue;
    const content = [...m.content].reverse().map((p) => {
      if (p.type !== 'file' || typeof p.data !== 'string') return p;
      if (count + 1 <= limits.maxImages && bytes + p.data.length <= limits.maxImageBytes) {
        count++;
        bytes += p.data.length;
        return p;
      }
      dropped = true;
      return {
        type: 'text' as const,
        text:
          `(This image was dropped: a turn sends at most its ${limits.maxImages} newest images, ` +
          `${limits.maxImageBytes} bytes of base64 in all; call the tool again if you need it.)`,
      };
    });
    messages[i] = { ...m, content: content.reverse() } as ModelMessage;
  }
  return dropped;
}
