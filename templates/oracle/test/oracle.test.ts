/**
 * Boots this oracle (the real runtime) with a scripted model from
 * oraclekit/testing (in-process: no model provider, no network) and talks to
 * it over HTTP on loopback as a user would: a UCAN invocation per request, a
 * session, a message whose answer comes from this project's own tool — paid
 * for first when oracle.config.json sets a price (the credits plugin: 402 with
 * the claims, the contract, the payment, then the answer). It checks what the
 * oracle does, not how oraclekit words its logs, so an upgrade of oraclekit
 * keeps it green. `npm test` typechecks first (tsc), then runs it with Node's
 * own test runner (node:test, node:assert). test/harness.ts starts the oracle
 * and signs the user in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
  assert.equal(unpaid.status, 402);
  assert.equal(unpaid.body.statusCode, 402);
  assert.equal(unpaid.body.code, 'payment_required');
  const claims = unpaid.body.claims as string[];
  assert.equal(claims.length, 1);
  assert.equal(typeof claims[0], 'string');
  assert.ok((await user.post('/credits/contract', {})).status < 300);
  const paid = await user.post('/credits/pay', { claimIds: claims, amount });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  return claims;
}

let oracle: Running;
before(async () => {
  oracle = await start();
});
after(async () => {
  await oracle?.app.close();
});

describe('the oracle', () => {
  it(`loads the weather plugin and its own local-time plugin${price > 0 ? ', and credits for its price' : ''}`, () => {
    const status = oracle.app.plugins.status();
    for (const name of ['weather', 'local-time']) assert.ok(status.loaded.includes(name), `${name} not loaded`);
    assert.equal(status.loaded.includes('credits'), price > 0);
  });

  it('answers /health with its name and DID from oracle.config.json', async () => {
    const r = await fetch(`${oracle.url}/health`);
    assert.equal(r.status, 200);
    const health = await r.json();
    assert.equal(health.name, config.name);
    assert.equal(health.oracleDid, config.oracleDid);
  });

  it(`answers a user through its own tool${price > 0 ? ` (after paying ${price} for the turn)` : ''}`, async () => {
    const user = await userOf(oracle);
    if (price > 0) await payFor(user, await user.ask('What time is it?'), price);
    scriptLocalTime(oracle);
    const m = await user.ask('What time is it?');
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.message.content, 'It is now Africa/Nairobi time.');
    // the model was offered the project's tool from the first step
    assert.ok(oracle.model.requests[0]!.body.tools?.some((t) => t.function.name === 'get_local_time'));
  });

  it('tells the model what went wrong when its tool fails, so the model can answer', async () => {
    const user = await userOf(oracle);
    if (price > 0) await payFor(user, await user.ask('What time is it on Mars?'), price);
    oracle.model.enqueue(callTool('get_local_time', { timeZone: 'Mars/Olympus' }), (body) =>
      say(`Sorry: ${String(lastToolResult(body))}`),
    );
    const m = await user.ask('What time is it on Mars?');
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(
      m.body.message.content,
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
      assert.equal(unpaid.status, 402);
      const outstanding = unpaid.body.outstandingClaims as { claimId: string; amount: number; status: string }[];
      assert.equal(outstanding.length, 1);
      assert.equal(outstanding[0]!.claimId, unpaid.body.claims[0]);
      assert.equal(outstanding[0]!.amount, o.price);
      assert.equal(outstanding[0]!.status, 'outstanding');
      assert.equal(o.model.requests.length, asked); // refused before the model was asked
      // the terms, and a payment before accepting them is refused
      const terms = (await user.get('/credits/contract')).body;
      assert.equal(terms.terms.price, o.price);
      assert.equal(terms.terms.unit, 'turn');
      assert.equal(terms.contract, null);
      const early = await user.post('/credits/pay', { claimIds: unpaid.body.claims, amount: o.price });
      assert.equal(early.body.code, 'contract_required');
      // asking again without paying gives the same claim
      assert.deepEqual((await user.ask('What time is it?')).body.claims, unpaid.body.claims);
      const claims = await payFor(user, unpaid, o.price);
      scriptLocalTime(o);
      const answered = await user.ask('What time is it?');
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      assert.equal(answered.body.message.content, 'It is now Africa/Nairobi time.');
      // the payment bought exactly one turn
      const ledger = (await user.get('/credits/ledger')).body;
      assert.deepEqual(
        { paid: ledger.paid, usedTurns: ledger.usedTurns, prepaidTurns: ledger.prepaidTurns, owed: ledger.owed },
        { paid: o.price, usedTurns: 1, prepaidTurns: 0, owed: 0 },
      );
      const next = await user.ask('And now?');
      assert.equal(next.status, 402);
      assert.notDeepEqual(next.body.claims, claims);
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
    assert.equal(r.status, 401);
  });
});

describe('the local-time plugin', () => {
  it('formats a time zone and refuses an unknown one', () => {
    const at = Date.parse('2026-01-01T12:00:00Z');
    const t = localTime('Africa/Nairobi', at);
    assert.equal(t.timeZone, 'Africa/Nairobi');
    assert.equal(t.iso, '2026-01-01T12:00:00.000Z');
    assert.match(t.local, /15:00:00/);
    assert.throws(() => localTime('Mars/Olympus', at), /unknown time zone/);
  });
});
