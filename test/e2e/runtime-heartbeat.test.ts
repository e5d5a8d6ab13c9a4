import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ heartbeatMs: 40, env: { CORS_ORIGINS: 'https://app.example' } });
});
afterAll(async () => {
  await h.close();
});

it('sends `: heartbeat` comments on a quiet stream (interval configurable; 15 s by default)', async () => {
  const u = await h.user();
  const s = await u.newSession();
  h.model.enqueue({
    steps: [
      { type: 'delay', ms: 300 },
      { type: 'text', text: 'late answer' },
    ],
  });
  const { raw, events } = await u.stream(s, 'slow please');
  expect(raw).toContain('\n\n: heartbeat\n\n');
  expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
});

it('answers CORS on JSON and SSE replies, exposing X-Request-Id and x-run-id', async () => {
  const u = await h.user();
  const s = await u.newSession();
  h.model.enqueue({ steps: [{ type: 'text', text: 'hi' }] });
  const res = await fetch(`${h.url}/messages/${s}`, {
    method: 'POST',
    headers: { ...(await u.headers()), 'content-type': 'application/json', origin: 'https://app.example' },
    body: JSON.stringify({ message: 'hi', stream: true }),
  });
  expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-run-id');
  expect(res.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('x-request-id');
  await res.text();
  const pre = await fetch(`${h.url}/sessions`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,x-auth-type,content-type',
    },
  });
  expect(pre.status).toBeLessThan(300);
  expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
});

it('a missing model configuration is a 503 before any stream starts', async () => {
  const h2 = await startHarness({ config: { name: 'No model', model: undefined }, env: { LLM_BASE_URL: '' } });
  try {
    const u = await h2.user();
    const s = await u.newSession();
    const r = await u.req('POST', `/messages/${s}`, { message: 'hi', stream: true });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ statusCode: 503, code: 'model_not_configured' });
  } finally {
    await h2.close();
  }
});
