/**
 * Who may spend the operator's model key: a turn may name only a model that
 * GET /models lists (400 otherwise, nothing reaches the provider); an
 * allow-list of users (403 for others, HTTP and socket); a per-user turn rate
 * limit (429 with Retry-After); a priced oracle's payments go through the
 * operator's verifier, and without one the boot log says they are IOUs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionSocket, startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { say } from '../helpers/scripted-model-server.ts';
import { mintInvocation } from '../../src/lib/ucan/ucan.ts';
import type { PaymentToVerify } from '../../src/runtime/plugin.ts';

describe('models a turn may name', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ config: { name: 'Models', model: 'scripted-model', models: ['scripted-small'] } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('refuses a model GET /models does not list with 400 model_not_listed; nothing reaches the provider', async () => {
    const u = await h.user();
    const sessionId = await u.newSession();
    const listed = (await (await fetch(`${h.url}/models`)).json()) as { models: { id: string }[] };
    expect(listed.models.map((m) => m.id)).toEqual(['scripted-model', 'scripted-small']);
    const before = h.model.requests.length;
    for (const stream of [false, true]) {
      const r = await u.req('POST', `/messages/${sessionId}`, {
        message: 'hi',
        model: 'openai/o1-pro-EXPENSIVE',
        stream,
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({
        statusCode: 400,
        code: 'model_not_listed',
        field: 'model',
        details: { valid: 'scripted-model, scripted-small' },
      });
      expect(r.body.message).toContain('openai/o1-pro-EXPENSIVE');
    }
    expect(h.model.requests.length).toBe(before);
    h.model.enqueue(say('small'));
    const ok = await u.stream(sessionId, 'hi', { model: 'scripted-small' });
    expect(ok.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
    expect(h.model.requests.at(-1)!.body.model).toBe('scripted-small');
  });
});

describe('an allow-list of users and a per-user turn rate limit', () => {
  let h: Harness;
  let allowedDid: string;
  let allowed: Awaited<ReturnType<Harness['user']>>;
  beforeAll(async () => {
    // the allowed user's key is made first, then the oracle that admits it
    const probe = await startHarness();
    allowed = await probe.user();
    allowedDid = allowed.did;
    await probe.close();
    h = await startHarness({ env: { ORACLE_ALLOWED_USERS: allowedDid, ORACLE_USER_TURNS_PER_MINUTE: '2' } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('admits only the listed users (HTTP and socket); another did:key gets 403 user_not_allowed', async () => {
    const stranger = await h.user();
    const r = await stranger.req('GET', '/sessions');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'user_not_allowed', message: expect.stringContaining(stranger.did) });
    const headers = {
      authorization: `Bearer ${await mintInvocation({ issuer: allowed.signer, audience: h.oracleDid })}`,
      'x-auth-type': 'ucan',
    };
    expect((await fetch(`${h.url}/sessions`, { headers })).status).toBe(200);
    const hs = await new Promise<{ code?: string }>((resolve) => {
      const s = sessionSocket(h.url, 'x', { invocation: '' });
      void mintInvocation({ issuer: stranger.signer, audience: h.oracleDid }).then((t) => {
        s.auth = { invocation: t };
        s.connect();
      });
      s.on('connect_error', (e: Error & { data?: { code: string } }) => {
        s.close();
        resolve({ code: e.data?.code });
      });
    });
    expect(hs.code).toBe('user_not_allowed');
  });

  it('refuses a third turn within a minute with 429 rate_limited and Retry-After', async () => {
    const u = {
      ...allowed,
      async post(path: string, body: unknown) {
        const r = await fetch(h.url + path, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${await mintInvocation({ issuer: allowed.signer, audience: h.oracleDid })}`,
            'x-auth-type': 'ucan',
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
        return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
      },
    };
    const sessionId = (await u.post('/sessions', {})).body.sessionId as string;
    for (let i = 0; i < 2; i++) {
      h.model.enqueue(say(`turn ${i}`));
      expect((await u.post(`/messages/${sessionId}`, { message: `turn ${i}` })).status).toBe(200);
    }
    const third = await u.post(`/messages/${sessionId}`, { message: 'one more' });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'rate_limited', details: { limitPerMinute: 2 } });
    const retry = Number(third.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(60);
  });
});

describe("a priced oracle's payments", () => {
  it('without a verifier: the boot log says payments are IOUs, and the pay reply says verified: false', async () => {
    const h = await startHarness({ config: { name: 'Priced', model: 'scripted-model', price: 1 } });
    try {
      expect(h.lines.some((l) => /payments: not verified .*IOU/.test(l))).toBe(true);
      const u = await h.user();
      const sessionId = await u.newSession();
      const claim = (await u.req('POST', `/messages/${sessionId}`, { message: 'hi' })).body.claims[0];
      await u.req('POST', '/credits/contract', {});
      const paid = await u.req('POST', '/credits/pay', { claimIds: [claim], amount: 1 });
      expect(paid.body).toMatchObject({ ok: true, verified: false });
    } finally {
      await h.close();
    }
  });

  it('with a verifier: a payment it does not find settled is refused (402 payment_unverified) and buys no turn', async () => {
    const asked: PaymentToVerify[] = [];
    const settled = new Set(['tx-settled']);
    const h = await startHarness({
      config: { name: 'Priced', model: 'scripted-model', price: 1 },
      verifyPayment: async (p) => {
        asked.push(p);
        return p.reference && settled.has(p.reference)
          ? { settled: true }
          : { settled: false, reason: `no settlement ${p.reference ?? '(no reference)'}` };
      },
    });
    try {
      expect(h.lines.some((l) => /payments: not verified/.test(l))).toBe(false);
      const u = await h.user();
      const sessionId = await u.newSession();
      const claim = (await u.req('POST', `/messages/${sessionId}`, { message: 'hi' })).body.claims[0];
      await u.req('POST', '/credits/contract', {});
      const iou = await u.req('POST', '/credits/pay', { claimIds: [claim], amount: 1, reference: 'tx-made-up' });
      expect(iou.status).toBe(402);
      expect(iou.body).toMatchObject({ code: 'payment_unverified', message: expect.stringContaining('tx-made-up') });
      expect((await u.req('POST', `/messages/${sessionId}`, { message: 'hi' })).status).toBe(402);
      const real = await u.req('POST', '/credits/pay', { claimIds: [claim], amount: 1, reference: 'tx-settled' });
      expect(real.body).toMatchObject({ ok: true, verified: true });
      expect(asked.map((a) => [a.userDid, a.claimIds, a.amount, a.denom, a.reference])).toEqual([
        [u.did, [claim], 1, 'credit', 'tx-made-up'],
        [u.did, [claim], 1, 'credit', 'tx-settled'],
      ]);
      h.model.enqueue(say('paid for'));
      expect((await u.req('POST', `/messages/${sessionId}`, { message: 'hi' })).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
