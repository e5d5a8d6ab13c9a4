import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { toolImage } from '../../../../src/runtime/plugin.ts';
import { imagesToUserMessages, shownOutput, toolModelOutput } from '../../../../src/runtime/agent/tool-images.ts';
import { boundToolResult } from '../../../../src/runtime/agent/tool-limits.ts';

const image = toolImage({ mediaType: 'image/png', data: 'iVBORw0KGgo=', width: 2, height: 1, text: 'a frame' });

const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'look', input: {} }],
});
const result = (id: string, output: unknown): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'look', output: toolModelOutput({ output }) }],
});

describe("a tool's image", () => {
  it('reaches the model as text and an image part; other results as the AI SDK sends them', () => {
    expect(toolModelOutput({ output: image })).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'a frame' },
        { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ],
    });
    expect(toolModelOutput({ output: 'sunny' })).toEqual({ type: 'text', value: 'sunny' });
    expect(toolModelOutput({ output: { t: 21, at: undefined } })).toEqual({ type: 'json', value: { t: 21 } });
    expect(toolModelOutput({ output: undefined })).toEqual({ type: 'json', value: null });
  });

  it('moves to one user message after the tool messages of its step, once', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'look' },
      call('a'),
      result('a', image),
      result('b', { ok: true }),
    ];
    const moved = imagesToUserMessages(messages)!;
    expect(moved.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    const tool = moved[2] as Extract<ModelMessage, { role: 'tool' }>;
    expect(tool.content[0]).toMatchObject({
      output: { type: 'text', value: 'a frame\n(The image follows in the next message.)' },
    });
    expect(moved[4]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The image look returned (call a):' },
        { type: 'file', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ],
    });
    expect(imagesToUserMessages(moved)).toBeUndefined();
    expect(imagesToUserMessages(messages.slice(0, 2))).toBeUndefined();
  });

  it('is shown in events and the history by its text and size, without its pixels', () => {
    expect(shownOutput(image)).toEqual({
      text: 'a frame',
      image: { mediaType: 'image/png', width: 2, height: 1, bytes: 9 },
    });
    expect(shownOutput({ a: 1 })).toEqual({ a: 1 });
  });

  it('passes the result bound by its own size: a large image whole, an oversized one refused', () => {
    const big = toolImage({ ...image, data: 'A'.repeat(1_000_000) });
    expect(boundToolResult('look', big)).toBe(big);
    const huge = toolImage({ ...image, data: 'A'.repeat(5 * 1024 * 1024) });
    expect(() => boundToolResult('look', huge)).toThrow("a tool's image may have at most 4194304");
  });

  it("cuts an image's text like any result", () => {
    const chatty = boundToolResult('look', toolImage({ ...image, text: 't'.repeat(3_000_000) })) as typeof image;
    expect(chatty.text.length).toBeLessThan(64 * 1024 + 200);
    expect(chatty.text).toContain('only its first 65536 are kept');
    expect(chatty.data).toBe(image.data);
    expect(shownOutput(chatty)).toMatchObject({ image: { bytes: 9 } });
  });

  it('sends at most the newest images of a turn within the count and byte bounds; older ones become a note', () => {
    const big = (n: number) => toolImage({ ...image, data: String(n).padStart(2, '0') + 'A'.repeat(998) });
    const step: ModelMessage[] = [{ role: 'user', content: 'look 30 times' }];
    for (let i = 0; i < 30; i++) step.push(call(`c${i}`), result(`c${i}`, big(i)));
    const files = (ms: ModelMessage[]) =>
      ms.flatMap((m) =>
        m.role === 'user' && typeof m.content !== 'string' ? m.content.filter((p) => p.type === 'file') : [],
      );
    const notes = (ms: ModelMessage[]) =>
      ms.flatMap((m) =>
        m.role === 'user' && typeof m.content !== 'string'
          ? m.content.filter((p) => p.type === 'text' && p.text.includes('was dropped'))
          : [],
      );
    const byCount = imagesToUserMessages(step, { maxImages: 4, maxImageBytes: 1e9 })!;
    const marks = (ms: ModelMessage[]) => files(ms).map((f) => (f as { data: string }).data.slice(0, 2));
    expect(marks(byCount)).toEqual(['26', '27', '28', '29']);
    expect(notes(byCount)).toHaveLength(26);
    const byBytes = imagesToUserMessages(step, { maxImages: 100, maxImageBytes: 2500 })!;
    expect(files(byBytes)).toHaveLength(2);
    // a later step: what was kept is bounded again with the step's new images, the newest win
    const later = [...byCount, call('d'), result('d', big(5))];
    const again = imagesToUserMessages(later, { maxImages: 4, maxImageBytes: 1e9 })!;
    expect(marks(again)).toEqual(['27', '28', '29', '05']);
  });
});
