/**
 * The headless client's payment functions (src/client/payments.ts) against a
 * real runtime with the credits plugin and a price (scripted model server):
 * a 402, then creditsStatus shows the claim, payClaims accepts the contract
 * and pays with the client's identity, and the same message is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OracleClient,
  PaymentRequiredError,
  creditsStatus,
  generateSigner,
  payClaims,
  OracleClientError,
} from '../../../src/client/index.ts';
import { startHarness, type Harness } from '../../helpers/runtime-harness.ts';
import { say } from '../../helpers/scripted-model-server.ts';

let h: Harness;
let free: Harness;
beforeAll(async () => {
  h = await startHarness({ config: { name: 'Priced Oracle', model: 'scripted-model', price: 2.5 } });
  free = await startHarness();
});
afterAll(async () => {
  await h?.close();
  await free?.close();
});

describe('payClaims / creditsStatus', () => {
  it('402 → status → pay (contract accepted on the way) → the message is answered', async () => {
    const client = await OracleClient.connect({ baseUrl: h.url, signer: await generateSigner() });
    const { sessionId } = await client.createSession();
    const refused = await client.send(sessionId, 'hello').result.catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PaymentRequiredError);
    const claimId = (refused as PaymentRequiredError).claims[0]!;

    const s = await creditsStatus(client);
    expect(s).toMatchObject({ price: 2.5, denom: 'credit', unit: 'turn', owed: 2.5 });
    expect(s.outstandingClaims.map((c) => c.claimId)).toEqual([claimId]);

    // what the user confirmed is what is paid: a different amount is refused before anything is sent
    await expect(payClaims(client, { expectAmount: 1 })).rejects.toMatchObject({
      code: 'payment_mismatch',
      body: { field: 'expectAmount', details: { expected: 2.5 } },
    });
    await expect(payClaims(client, { claimIds: ['claim-nope'] })).rejects.toMatchObject({
      status: 404,
      code: 'claim_not_found',
    });

    const p = await payClaims(client, { expectAmount: 2.5, reference: 'test-ref' });
    expect(p).toMatchObject({ amount: 2.5, denom: 'credit', paid: [claimId] });
    expect(p.paymentId).toBeTruthy();
    expect((await creditsStatus(client)).outstandingClaims).toEqual([]);
    await expect(payClaims(client)).rejects.toMatchObject({ status: 409, code: 'nothing_to_pay' });

    h.model.enqueue(say('Paid answer.'));
    const r = await client.send(sessionId, 'hello').result;
    expect(r.status).toBe('finished');
    expect(r.text).toBe('Paid answer.');
  });

  it('an oracle without the credits plugin: a 404 OracleClientError', async () => {
    const client = await OracleClient.connect({ baseUrl: free.url, signer: await generateSigner() });
    const e = await creditsStatus(client).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OracleClientError);
    expect((e as OracleClientError).status).toBe(404);
  });
});
