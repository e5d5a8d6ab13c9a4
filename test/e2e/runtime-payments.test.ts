/**
 * A settled payment pays once: two instances of one priced oracle on one database (SQLite file, PostgreSQL) with a
 * verifier that only asks "is this reference settled for this amount?" (the shape a careless operator writes). The
 * runtime records each verified reference and refuses it again — for the same user's next claim and for another
 * user — with 409 payment_reference_used, whichever instance is asked; the verifier is shown the user, the claims and
 * the amount; a verifier that throws is a retryable 503 payment_verification_unavailable, not a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, type Harness } from '../helpers/runtime-harness.ts';
import { BACKENDS, backendDatabases } from '../helpers/postgres.ts';
import { say } from '../helpers/scripted-model-server.ts';
import { generateMnemonic } from '../../src/lib/keys/keys.ts';
import type { PaymentToVerify } from '../../src/runtime/plugin.ts';

type User = Awaited<ReturnType<Harness['user']>>;

describe.each(BACKENDS)('payment references on %s', (backend) => {
  const databases = backendDatabases(backend);
  const asked: PaymentToVerify[] = [];
  /** The settlements a chain holds: reference → amount. */
  const chain = new Map([
    ['tx-1', 1],
    ['tx-2', 1],
  ]);
  let A: Harness;
  let B: Harness;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'oraclekit-pay-'));
    const db = databases.fresh('rt_pay');
    const where = db ? { databaseUrl: db } : { dbPath: join(dir, 'oracle.db') };
    const signingMnemonic = generateMnemonic();
    const start = () =>
      startHarness({
        ...where,
        signingMnemonic,
        config: { name: 'Priced', model: 'scripted-model', price: 1 },
        verifyPayment: async (p) => {
          asked.push(p);
          if (p.reference === 'tx-boom') throw new Error('the chain node is down');
          return p.reference && chain.get(p.reference) === p.amount
            ? { settled: true }
            : { settled: false, reason: `no settlement ${p.reference}` };
        },
      });
    A = await start(); // the first applies the migrations
    B = await start();
  });
  afterAll(async () => {
    await A.close();
    await B.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The user's outstanding claim (a turn refused with 402), with the contract accepted. */
  async function claimOf(h: Harness, u: User, sessionId: string): Promise<string> {
    const r = await u.req('POST', `/messages/${sessionId}`, { message: 'hi' });
    expect(r.status, JSON.stringify(r.body)).toBe(402);
    await u.req('POST', '/credits/contract', {});
    return r.body.claims[0];
  }

  it('a verified reference pays once: the same user again and another user are refused on either instance', async () => {
    const u = await A.user();
    const onB = { ...u, req: (m: string, p: string, b?: unknown) => reqAs(B, u, m, p, b) };
    const s = await u.newSession();
    const first = await claimOf(A, u, s);
    const paid = await u.req('POST', '/credits/pay', { claimIds: [first], amount: 1, reference: 'tx-1' });
    expect(paid.body).toMatchObject({ ok: true, verified: true });
    const shown = asked.at(-1)!;
    expect(shown).toMatchObject({ userDid: u.did, claimIds: [first], amount: 1, denom: 'credit', reference: 'tx-1' });
    expect(shown.claims).toEqual([expect.objectContaining({ claimId: first, amount: 1, sessionId: s })]);
    A.model.enqueue(say('bought'));
    expect((await u.req('POST', `/messages/${s}`, { message: 'hi' })).status).toBe(200);

    // the same user's next claim, paid with the same reference, on the other instance
    const second = await claimOf(B, onB as User, s);
    const again = await onB.req('POST', '/credits/pay', { claimIds: [second], amount: 1, reference: 'tx-1' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'payment_reference_used', field: 'reference' });
    expect((await onB.req('POST', `/messages/${s}`, { message: 'hi' })).status).toBe(402);

    // another user presenting the reference
    const v = await B.user();
    const vs = await reqAs(B, v, 'POST', '/sessions', {});
    const theirs = await claimOf(B, { ...v, req: (m, p, b) => reqAs(B, v, m, p, b) } as User, vs.body.sessionId);
    const stolen = await reqAs(B, v, 'POST', '/credits/pay', { claimIds: [theirs], amount: 1, reference: 'tx-1' });
    expect(stolen.status).toBe(409);
    expect(stolen.body.code).toBe('payment_reference_used');
    // a fresh settlement still pays
    const fresh = await onB.req('POST', '/credits/pay', { claimIds: [second], amount: 1, reference: 'tx-2' });
    expect(fresh.body).toMatchObject({ ok: true, verified: true });
  });

  it('a verifier that throws gives 503 payment_verification_unavailable (retryable); the claim stays payable', async () => {
    const u = await A.user();
    const s = await u.newSession();
    const claim = await claimOf(A, u, s);
    chain.set('tx-later', 1);
    const r = await u.req('POST', '/credits/pay', { claimIds: [claim], amount: 1, reference: 'tx-boom' });
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({ code: 'payment_verification_unavailable', details: { retryable: true } });
    expect(r.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(r.body)).not.toContain('chain node');
    const ok = await u.req('POST', '/credits/pay', { claimIds: [claim], amount: 1, reference: 'tx-later' });
    expect(ok.body).toMatchObject({ ok: true, verified: true });
  });
});

/** A request of user `u` (its own key) to harness `h`. */
async function reqAs(h: Harness, u: User, method: string, path: string, body?: unknown) {
  const headers = await u.headers(body === undefined ? {} : { 'content-type': 'application/json' });
  const res = await fetch(h.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}
