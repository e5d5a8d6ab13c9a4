/**
 * Paying a priced oracle (the credits plugin, docs/plugins.md "credits"):
 * what a turn costs, what is owed, and paying the outstanding claims with the
 * client's identity — the contract (`POST /credits/contract`, idempotent),
 * then `POST /credits/pay {claimIds, amount}`. The payer is the
 * authenticated DID: a payment is the user's signed commitment. Used by the
 * chat's `/pay`; any client can do the same after a PaymentRequiredError.
 */
import type { OracleClient } from './client.ts';
import { OracleClientError } from './errors.ts';

export interface OutstandingClaim {
  claimId: string;
  amount: number;
  denom: string;
  sessionId?: string;
  status: string;
  createdAt: string;
}

export interface CreditsStatus {
  price: number;
  denom: string;
  unit: string;
  /** Claims refused turns created and nobody paid yet. */
  outstandingClaims: OutstandingClaim[];
  /** Their total. */
  owed: number;
  prepaidTurns: number;
}

export interface Payment {
  paymentId: string;
  amount: number;
  denom: string;
  /** The claims paid. */
  paid: string[];
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * The price and what is owed (`GET /credits/ledger`). An oracle without the credits plugin: `OracleClientError` 404.
 * @example
 * const { owed, denom } = await creditsStatus(client);
 */
export async function creditsStatus(client: OracleClient): Promise<CreditsStatus> {
  const l = await client.json<Record<string, unknown>>('GET', '/credits/ledger');
  const claims = (Array.isArray(l.outstandingClaims) ? l.outstandingClaims : []) as OutstandingClaim[];
  return {
    price: num(l.price),
    denom: typeof l.denom === 'string' ? l.denom : 'credit',
    unit: typeof l.unit === 'string' ? l.unit : 'turn',
    outstandingClaims: claims,
    owed: typeof l.owed === 'number' ? l.owed : claims.reduce((s, c) => s + num(c.amount), 0),
    prepaidTurns: num(l.prepaidTurns),
  };
}

/**
 * Pays claims: by default every outstanding claim, for their total. Accepts
 * the oracle's contract first (idempotent). With `expectAmount` the payment
 * is refused before anything is sent when the total differs (what the user
 * confirmed is what is paid). Nothing outstanding: `OracleClientError` 409
 * `nothing_to_pay`.
 * @example
 * const { owed } = await creditsStatus(client);
 * if (await askTheUser(`Pay ${owed}?`)) await payClaims(client, { expectAmount: owed });
 */
export async function payClaims(
  client: OracleClient,
  o: { claimIds?: string[]; expectAmount?: number; reference?: string } = {},
): Promise<Payment> {
  const status = await creditsStatus(client);
  const claims = o.claimIds
    ? status.outstandingClaims.filter((c) => o.claimIds!.includes(c.claimId))
    : status.outstandingClaims;
  if (o.claimIds) {
    const missing = o.claimIds.filter((id) => !claims.some((c) => c.claimId === id));
    if (missing.length)
      throw new OracleClientError(
        404,
        'claim_not_found',
        `claimIds: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not outstanding; outstanding: ${status.outstandingClaims.map((c) => c.claimId).join(', ') || 'none'}`,
        { field: 'claimIds', value: missing },
      );
  }
  if (!claims.length)
    throw new OracleClientError(
      409,
      'nothing_to_pay',
      'there is nothing to pay: no outstanding claims (a claim is created when the oracle refuses a turn with 402)',
      {},
    );
  const amount = claims.reduce((s, c) => s + num(c.amount), 0);
  if (o.expectAmount !== undefined && Math.abs(o.expectAmount - amount) > 1e-9) {
    throw new OracleClientError(
      409,
      'payment_mismatch',
      `expectAmount: ${o.expectAmount} is not what the claims total now (${amount} ${status.denom})`,
      { field: 'expectAmount', value: o.expectAmount, details: { expected: amount } },
    );
  }
  await client.json('POST', '/credits/contract', undefined, {});
  const r = await client.json<{ paymentId: string; amount: number; paid?: unknown[] }>(
    'POST',
    '/credits/pay',
    undefined,
    { claimIds: claims.map((c) => c.claimId), amount, ...(o.reference ? { reference: o.reference } : {}) },
  );
  const paid = (r.paid ?? []).map((p) => (typeof p === 'string' ? p : String((p as { claimId?: string }).claimId)));
  return { paymentId: r.paymentId, amount: r.amount, denom: status.denom, paid };
}
