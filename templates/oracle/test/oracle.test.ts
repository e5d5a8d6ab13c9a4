/**
 * Boots this oracle (the real runtime) with a scripted model from
 * oraclekit/testing (in-process: no model provider, no network) and talks to
 * it over HTTP on loopback as a user would: a UCAN invocation per request, a
 * session, a message whose answer comes from this project's own tool — paid
 * for first when oracle.config.json sets a price (the credits plugin: 402 with
 * the claims, the contract, the payment, then the answer). It checks what the
 * oracle does, not how oraclekit words its logs, so an upgrade of oraclekit
 * keeps it green. `npm test` typechecks first (tsc). test/harness.ts starts the
 * oracle and signs the user in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, lastToolResult, say } from 'oraclekit/testing';
import { localTime } from '../src/plugins/local-time.ts';
import { config, start, userOf, type Reply, type Running } from './harness.ts';

/** This oracle's price per turn (oracle.config.json); 0 is free. */
const price = config.price ?? 0;

/** The turn the model plays: call the project's tool, then answer with its result. */
function scriptLocalTime(o: Running): void {
  o.model.enqueue(callTool('get_local_time', {}), (body) =>
    say(`It is now ${(lastToolResult(body) as { timeZone: string }).timeZone} time.`),
  );
}

/** What a client does when an oracle charges: the 402's claims, the contract, the payment of exactly the price. */
async function payFor(user: Awaited<ReturnType<typeof userOf>>, unpaid: Reply, amount: number) {
  expect(unpaid.status).toBe(402);
  expect(unpaid.body).toMatchObject({ statusCode: 402, code: 'payment_required', claims: [expect.any(String)] });
  const claims = unpaid.body.claims as string[];
  expect((await user.post('/credits/contract', {})).status).toBeLessThan(300);
  const paid = await user.post('/credits/pay', { claimIds: claims, amount });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return claims;
}

let oracle: Running;
beforeAll(async () => {
  oracle = await start();
});
afterAll(async () => {
  await oracle?.app.close();
});

describe('the oracle', () => {
  it(`loads the weather plugin and its own local-time plugin${price > 0 ? ', and credits for its price' : ''}`, () => {
    const status = oracle.app.plugins.status();
    expect(status.loaded).toEqual(expect.arrayContaining(['weather', 'local-time']));
    if (price > 0) expect(status.loaded).toContain('credits');
    else expect(status.loaded).not.toContain('credits');
  });

  it('answers /health with its name and DID from oracle.config.json', async () => {
    const r = await fetch(`${oracle.url}/health`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ name: config.name, oracleDid: config.oracleDid });
  });

  it(`answers a user through its own tool${price > 0 ? ` (after paying ${price} for the turn)` : ''}`, async () => {
    const user = await userOf(oracle);
    if (price > 0) await payFor(user, await user.ask('What time is it?'), price);
    scriptLocalTime(oracle);
    const m = await user.ask('What time is it?');
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.message.content).toBe('It is now Africa/Nairobi time.');
    // the model was offered the project's tool from the first step
    expect(oracle.model.requests[0]!.body.tools?.map((t) => t.function.name)).toContain('get_local_time');
  });

  it('tells the model what went wrong when its tool fails, so the model can answer', async () => {
    const user = await userOf(oracle);
    if (price > 0) await payFor(user, await user.ask('What time is it on Mars?'), price);
    oracle.model.enqueue(callTool('get_local_time', { timeZone: 'Mars/Olympus' }), (body) =>
      say(`Sorry: ${String(lastToolResult(body))}`),
    );
    const m = await user.ask('What time is it on Mars?');
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.message.content).toBe(
      'Sorry: unknown time zone "Mars/Olympus"; use an IANA name such as Europe/Paris',
    );
  });

  // at its own price; a free oracle shows the same path at an example price (what setting `price` in oracle.config.json
  // does)
  it(`charges ${price > 0 ? 'its price' : 'a price (0.5 per turn, when oracle.config.json sets one)'}: 402 with the claim, the contract, the payment, then the answer`, async () => {
    const o = price > 0 ? oracle : await start({ price: 0.5 });
    try {
      const user = await userOf(o);
      const asked = o.model.requests.length;
      const unpaid = await user.ask('What time is it?');
      expect(unpaid.status).toBe(402);
      expect(unpaid.body.outstandingClaims).toEqual([
        expect.objectContaining({ claimId: unpaid.body.claims[0], amount: o.price, status: 'outstanding' }),
      ]);
      expect(o.model.requests.length).toBe(asked); // refused before the model was asked
      // the terms, and a payment before accepting them is refused
      expect((await user.get('/credits/contract')).body).toMatchObject({
        terms: { price: o.price, unit: 'turn' },
        contract: null,
      });
      expect((await user.post('/credits/pay', { claimIds: unpaid.body.claims, amount: o.price })).body).toMatchObject({
        code: 'contract_required',
      });
      // asking again without paying gives the same claim
      expect((await user.ask('What time is it?')).body.claims).toEqual(unpaid.body.claims);
      const claims = await payFor(user, unpaid, o.price);
      scriptLocalTime(o);
      const answered = await user.ask('What time is it?');
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body.message.content).toBe('It is now Africa/Nairobi time.');
      // the payment bought exactly one turn
      expect((await user.get('/credits/ledger')).body).toMatchObject({
        paid: o.price,
        usedTurns: 1,
        prepaidTurns: 0,
        owed: 0,
      });
      const next = await user.ask('And now?');
      expect(next.status).toBe(402);
      expect(next.body.claims).not.toEqual(claims);
    } finally {
      if (o !== oracle) await o.app.close();
    }
  });

  it('refuses a request without credentials', async () => {
    const r = await fetch(`${oracle.url}/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(401);
  });
});

describe('the local-time plugin', () => {
  it('formats a time zone and refuses an unknown one', () => {
    const at = Date.parse('2026-01-01T12:00:00Z');
    expect(localTime('Africa/Nairobi', at)).toMatchObject({
      timeZone: 'Africa/Nairobi',
      iso: '2026-01-01T12:00:00.000Z',
    });
    expect(localTime('Africa/Nairobi', at).local).toContain('15:00:00');
    expect(() => localTime('Mars/Olympus', at)).toThrow(/unknown time zone/);
  });
});
