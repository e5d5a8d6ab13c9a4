import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ heartbeatMs: 40 });
});
afterAll(async () => {
  await h.close();
});

it('sends `: heartbeat` comments on a quiet stream (interval configurable; 15 s by default)', async () => {
  const u = await h.user();
  const s = await u.newSession();
  h.model.enqueue({ steps: [{ type: 'delay', ms: 300 }, { type: 'text', text: 'late answer' }] });
  const { raw, events } = await u.stream(s, 'slow please');
  expect(raw).toContain('\n\n: heartbeat\n\n');
  expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
});
