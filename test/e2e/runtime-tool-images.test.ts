/**
 * A plugin whose tool returns an image, called 30 times in parallel in one step with 4 MiB of base64 each (the most one
 * image may have) and a 3 MB text: each model request of the turn carries the turn's newest images within
 * ORACLE_TURN_MAX_IMAGES and ORACLE_TURN_MAX_IMAGE_BYTES (older ones replaced by a note the model reads), a later step
 * does not resend the dropped ones, the image's text is cut like any tool result in the model's view, the stream and
 * the history, and the oracle's memory stays bounded (its RSS, sampled through the turn, is printed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say, type ChatRequestBody } from '../helpers/scripted-model-server.ts';
import { definePlugin, defineTool, toolImage } from '../../src/runtime/plugin.ts';
import { MAX_TOOL_IMAGE_CHARS } from '../../src/runtime/agent/tool-images.ts';
import { testManifest } from '../helpers/test-plugin.ts';

const CALLS = 30;
const MAX_IMAGES = 8;
const MAX_IMAGE_BYTES = 16 * 1024 * 1024;
const TEXT_CHARS = 3_000_000;
const RESULT_CHARS = 65_536;

/** 4 MiB of base64 (3 MiB of bytes), different for each call so no two images share memory. */
const imageData = (n: number) => Buffer.alloc((MAX_TOOL_IMAGE_CHARS / 4) * 3, n).toString('base64');

const camera = definePlugin({
  name: 'big-images',
  version: '1.0.0',
  manifest: testManifest('Big images', 'returns the largest images a tool may'),
  tools: () => ({
    snapshot: defineTool({
      description: 'returns an image',
      inputSchema: z.object({ n: z.number().int(), longText: z.boolean().optional() }),
      execute: ({ n, longText }) =>
        toolImage({
          mediaType: 'image/png',
          data: imageData(n),
          width: 2048,
          height: 2048,
          text: longText ? 't'.repeat(TEXT_CHARS) : `snapshot ${n}`,
        }),
    }),
  }),
});

type Part = { type: string; text?: string; image_url?: { url: string } };

/** The image parts a model request carries, and how many characters of base64 they hold. */
function imagesOf(body: ChatRequestBody): { count: number; chars: number; dropNotes: number } {
  const parts = body.messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => m.content as Part[]);
  const images = parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url);
  return {
    count: images.length,
    chars: images.reduce((s, u) => s + u.length - u.indexOf(',') - 1, 0),
    dropNotes: parts.filter((p) => p.type === 'text' && p.text!.startsWith('(This image was dropped')).length,
  };
}

describe("a turn's tool images", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      plugins: [camera],
      env: { ORACLE_TURN_MAX_IMAGES: String(MAX_IMAGES), ORACLE_TURN_MAX_IMAGE_BYTES: String(MAX_IMAGE_BYTES) },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('30 parallel images of 4 MiB in one step: every request within the per-turn bounds, the text cut, RSS bounded', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const before = h.model.requests.length;
    // step 1: 30 parallel calls (the last with a 3 MB text); step 2: one more image; step 3: the answer
    h.model.enqueue(
      {
        steps: Array.from({ length: CALLS }, (_, i) => ({
          type: 'tool_call' as const,
          name: 'snapshot',
          args: { n: i, longText: i === CALLS - 1 },
          id: `img${i}`,
        })),
      },
      { steps: [{ type: 'tool_call', name: 'snapshot', args: { n: 99 }, id: 'img99' }] },
      say('I looked.'),
    );
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const { events, raw } = await u.stream(sessionId, 'take 30 snapshots');
    clearInterval(sampler);
    const ending = events.filter((e) => e.event === 'error' || e.event === 'done');
    expect(ending.at(-1), JSON.stringify(ending)).toMatchObject({ event: 'done', data: { status: 'finished' } });

    const requests = h.model.requests.slice(before).map((r) => r.body);
    expect(requests).toHaveLength(3);
    const sizes = requests.map((b) => JSON.stringify(b).length);
    for (const b of requests.slice(1)) {
      const i = imagesOf(b);
      expect(i.count).toBeLessThanOrEqual(MAX_IMAGES);
      expect(i.chars).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
      expect(i.count + i.dropNotes).toBe(b === requests[1] ? CALLS : CALLS + 1);
    }
    // step 2 keeps the newest that fit (4 of 4 MiB); step 3 the newest image and 3 of step 1's
    expect(imagesOf(requests[1]!)).toMatchObject({ count: 4, dropNotes: CALLS - 4 });
    expect(imagesOf(requests[2]!)).toMatchObject({ count: 4, dropNotes: CALLS + 1 - 4 });
    for (const s of sizes.slice(1)) expect(s).toBeLessThan(MAX_IMAGE_BYTES + 1024 * 1024);

    // the 3 MB text: cut to the result bound in what the model reads, what streams and what the history keeps
    const longResult = requests[1]!.messages.find((m) => m.tool_call_id === `img${CALLS - 1}`)!;
    expect(String(longResult.content).length).toBeLessThan(RESULT_CHARS + 1000);
    expect(String(longResult.content)).toContain(`the text of snapshot's image was ${TEXT_CHARS} characters`);
    expect(raw.length).toBeLessThan(200_000);
    const history = await u.req('GET', `/messages/${sessionId}`);
    expect(JSON.stringify(history.body).length).toBeLessThan(200_000);

    const mb = (b: number) => Math.round(b / 1024 / 1024);
    console.log(
      `[tool-images] model requests ${sizes.map(mb).join(', ')} MB (unbounded: about ${mb(CALLS * MAX_TOOL_IMAGE_CHARS)} MB each); ` +
        `RSS ${mb(rss0)} MB before the turn, ${mb(peak)} MB at its peak`,
    );
    // the tools' own 120 MiB of base64 and a handful of bounded requests, not 120 MiB per step
    expect(peak - rss0).toBeLessThan(600 * 1024 * 1024);
  }, 120_000);
});
