/**
 * credits through the agent: a priced oracle refuses an unpaid turn with the
 * 402 body of protocol.md (claim ids), accepts it after the contract and pay
 * routes, and the double-entry ledger balances.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { callTool, lastToolResult, say } from '../helpers/scripted-model-server.ts';
import { PaymentRequiredBodySchema } from '../../src/lib/protocol/index.ts';

describe.each(BACKENDS)('the credits plugin on %s', (backend) => {
  const databases = backendDatabases(backend);
  /** A harness on a fresh database of this backend. */
  const start = (o: Parameters<typeof startHarness>[0] = {}) =>
    startHarness({ ...o, databaseUrl: databases.fresh('rt_credits') });

  let h: Harness;
  beforeAll(async () => {
    h = await start({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } });
  });
  afterAll(async () => {
    await h.close();
  });

  describe('credits: pay-to-use', () => {
    it('402 with claim ids → contract → pay → the turn runs → the next turn needs a new claim; the ledger balances', async () => {
      expect(h.lines).toContain('[boot] loaded: credits');
      expect(h.app.plugins.status().loaded).toContain('credits');
      const u = await h.user();
      const sessionId = await u.newSession();

      // an unpaid turn: refused before any model call, over HTTP (not a stream)
      const before = h.model.requests.length;
      const r1 = await u.req('POST', `/messages/${sessionId}`, { message: 'hello', stream: true });
      expect(r1.status).toBe(402);
      expect(r1.headers.get('content-type')).toMatch(/application\/json/);
      const body = PaymentRequiredBodySchema.parse(r1.body);
      expect(body).toMatchObject({ statusCode: 402, code: 'payment_required' });
      expect(body.message).toMatch(/2\.5 credit per turn/);
      expect(body.claims).toHaveLength(1);
      const claimId = body.claims[0]!;
      expect(body.outstandingClaims).toEqual([
        { claimId, amount: 2.5, denom: 'credit', sessionId, status: 'outstanding', createdAt: expect.any(String) },
      ]);
      expect(h.model.requests.length).toBe(before);

      // asking again does not pile up claims
      const r2 = await u.req('POST', `/messages/${sessionId}`, { message: 'hello' });
      expect(r2.status).toBe(402);
      expect(r2.body.claims).toEqual([claimId]);

      // paying needs the contract first
      const early = await u.req('POST', '/credits/pay', { claimIds: [claimId], amount: 2.5 });
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('contract_required');
      const terms = await u.req('GET', '/credits/contract');
      expect(terms.body).toEqual({
        terms: { oracleDid: h.oracleDid, price: 2.5, denom: 'credit', unit: 'turn' },
        contract: null,
      });
      const c1 = await u.req('POST', '/credits/contract', {});
      expect(c1.status).toBe(201);
      expect(c1.body.contract).toMatchObject({
        oracleDid: h.oracleDid,
        userDid: u.did,
        price: 2.5,
        denom: 'credit',
        unit: 'turn',
      });
      const c2 = await u.req('POST', '/credits/contract', {});
      expect(c2.status).toBe(200);
      expect(c2.body.contract.contractId).toBe(c1.body.contract.contractId);

      // wrong amount, unknown claim, another user's claim
      expect((await u.req('POST', '/credits/pay', { claimIds: [claimId], amount: 1 })).body).toMatchObject({
        statusCode: 400,
        code: 'payment_mismatch',
        field: 'amount',
        details: { expected: 2.5 },
      });
      expect((await u.req('POST', '/credits/pay', { claimIds: ['claim-nope'], amount: 2.5 })).body).toMatchObject({
        statusCode: 404,
        code: 'claim_not_found',
      });
      const other = await h.user();
      await other.req('POST', '/credits/contract', {});
      expect((await other.req('POST', '/credits/pay', { claimIds: [claimId], amount: 2.5 })).status).toBe(404);
      expect((await u.req('POST', '/credits/pay', { claimIds: [], amount: 2.5 })).status).toBe(400);

      // pay
      const paid = await u.req('POST', '/credits/pay', { claimIds: [claimId], amount: 2.5, reference: 'tx-123' });
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({
        ok: true,
        amount: 2.5,
        paymentId: expect.any(String),
        paid: [{ claimId, status: 'paid' }],
      });
      expect((await u.req('POST', '/credits/pay', { claimIds: [claimId], amount: 2.5 })).body.code).toBe(
        'claim_not_outstanding',
      );

      // the paid turn runs; the agent reads the credits through its tool
      h.model.enqueue(callTool('get_credits_status', {}, 'call_credits'), (b) => {
        const s = lastToolResult(b) as { usedTurns: number; prepaidTurns: number; paid: number };
        return say(`You used ${s.usedTurns} turn, have ${s.prepaidTurns} prepaid and paid ${s.paid}.`);
      });
      const { events } = await u.stream(sessionId, 'How many credits do I have?');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'finished' } });
      expect(events.map((e) => (e.event === 'message' ? e.data.content : '')).join('')).toBe(
        'You used 1 turn, have 0 prepaid and paid 2.5.',
      );

      // the next turn needs a new claim
      const r3 = await u.req('POST', `/messages/${sessionId}`, { message: 'again' });
      expect(r3.status).toBe(402);
      expect(r3.body.claims).toHaveLength(1);
      expect(r3.body.claims[0]).not.toBe(claimId);

      // the ledger
      const ledger = await u.req('GET', '/credits/ledger');
      expect(ledger.body).toMatchObject({
        price: 2.5,
        paid: 2.5,
        prepaidBalance: 0,
        prepaidTurns: 0,
        usedTurns: 1,
        owed: 2.5,
      });
      expect(ledger.body.outstandingClaims.map((c: { claimId: string }) => c.claimId)).toEqual(r3.body.claims);
      const entries = ledger.body.entries as { kind: string; account: string; amount: number }[];
      expect(entries.map((e) => [e.kind, e.account, e.amount])).toEqual([
        ['payment', `user:${u.did}`, -2.5],
        ['payment', `escrow:${u.did}`, 2.5],
        ['usage', `escrow:${u.did}`, -2.5],
        ['usage', `oracle:${h.oracleDid}`, 2.5],
      ]);
      expect(entries.reduce((a, e) => a + e.amount, 0)).toBe(0);
      const total = Number(
        (await h.app.runtime.db.get<{ s: number }>('SELECT SUM(amount_micro) AS s FROM credits_ledger'))!.s,
      );
      expect(total).toBe(0);
      const earned = Number(
        (await h.app.runtime.db.get<{ s: number }>(
          'SELECT SUM(amount_micro) AS s FROM credits_ledger WHERE account = ?',
          [`oracle:${h.oracleDid}`],
        ))!.s,
      );
      expect(earned).toBe(2_500_000);
    });

    it('the credits routes need authentication', async () => {
      const r = await fetch(`${h.url}/credits/ledger`);
      expect(r.status).toBe(401);
    });
  });
});
