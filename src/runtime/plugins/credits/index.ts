/**
 * credits (runtime.md): pay-to-use when oracle.config.json's price > 0.
 * Each turn costs `price` credits. A turn is bought by a paid claim: an unpaid
 * turn is refused before it starts with HTTP 402 {statusCode:402,
 * code:'payment_required', message, claims:[claimId], outstandingClaims:[…]};
 * the client accepts the oracle's contract (POST /credits/contract), pays the
 * claims (POST /credits/pay {claimIds, amount, reference?}) and sends the turn
 * again. The ledger (double entry, in the runtime's database) is readable at
 * GET /credits/ledger. See docs/plugins.md ("credits") for the decisions.
 */
import { z } from 'zod';
import {
  definePlugin,
  defineTool,
  type PaymentToVerify,
  type PaymentVerification,
  type PaymentVerifier,
  type PluginContext,
} from '../../plugin.ts';
import { OracleKitError, type ErrorBody } from '../../../lib/errors.ts';
import { getUser } from '../../auth.ts';
import { CreditsLedger, type Claim } from './ledger.ts';
import { CREDITS_ERRORS, creditsError } from './errors.ts';

const CreditsEnvSchema = z.object({
  CREDITS_DENOM: z
    .string()
    .regex(/^[a-zA-Z][a-zA-Z0-9/_-]{0,31}$/, 'a denomination name such as "credit" or "uixo"')
    .default('credit'),
});
type CreditsEnv = z.infer<typeof CreditsEnvSchema>;

/** The 402 of protocol.md: claims and outstandingClaims at the top level of the body. */
class PaymentRequiredError extends OracleKitError {
  readonly claims: string[];
  readonly outstandingClaims: Claim[];
  constructor(message: string, claims: string[], outstandingClaims: Claim[]) {
    super({ status: 402, code: 'payment_required', message });
    this.claims = claims;
    this.outstandingClaims = outstandingClaims;
  }
  override toBody(): ErrorBody {
    return { ...super.toBody(), claims: this.claims, outstandingClaims: this.outstandingClaims } as ErrorBody;
  }
}

const ledgers = new WeakMap<object, CreditsLedger>();
function ledgerOf(ctx: PluginContext<CreditsEnv>): CreditsLedger {
  let l = ledgers.get(ctx);
  if (!l) {
    l = new CreditsLedger(ctx.store.db, {
      oracleDid: ctx.store.oracleDid,
      price: ctx.config.price ?? 0,
      denom: ctx.env.CREDITS_DENOM,
      now: ctx.now,
      migrate: ctx.migrate,
    });
    ledgers.set(ctx, l);
  }
  return l;
}

/** The operator's verifier, asked once: a verifier that throws is a 503 the client may retry, not a 500. */
async function verifyOnce(verify: PaymentVerifier, p: PaymentToVerify): Promise<PaymentVerification> {
  try {
    return await verify(p);
  } catch (e) {
    throw Object.assign(
      creditsError(
        'payment_verification_unavailable',
        "the payment could not be verified now (the operator's payment verifier failed); the claims stay outstanding: retry shortly",
        { details: { retryable: true, retryAfterSeconds: 5 } },
      ),
      { cause: e },
    );
  }
}

const PayBodySchema = z.object({
  claimIds: z.array(z.string().min(1)).min(1).max(100),
  amount: z.number().positive(),
  reference: z.string().max(256).optional(),
});

export const creditsPlugin = definePlugin<CreditsEnv>({
  name: 'credits',
  version: '1.0.0',
  manifest: {
    title: 'Credits (pay-to-use)',
    summary: "Charges the oracle's price per turn: contract, claims, payments and a ledger.",
    whenToUse: ['the user asks how many credits or prepaid turns they have, or what they owe'],
    visibility: 'silent',
    stability: 'beta',
    category: 'billing',
    defaultState: 'on',
    dependsOn: [],
  },
  envSchema: CreditsEnvSchema,
  errors: CREDITS_ERRORS,
  detect: (config) => {
    const p = config.price;
    if (p === undefined || p === null || p === 0) return { exclude: 'price' };
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0)
      return {
        invalid: { field: 'price', why: `price must be a number ≥ 0 in oracle.config.json, got ${JSON.stringify(p)}` },
      };
    return undefined;
  },
  gateTurn: async (req, ctx) => {
    const g = await ledgerOf(ctx).gate(req.userDid, req.sessionId);
    if (g.ok) return { charged: { amount: g.amount, denom: ledgerOf(ctx).denom } };
    const l = ledgerOf(ctx);
    const contract = await l.contract(req.userDid);
    const how = contract
      ? 'POST /credits/pay {claimIds, amount}'
      : 'POST /credits/contract, then POST /credits/pay {claimIds, amount}';
    throw new PaymentRequiredError(
      `this oracle costs ${l.terms().price} ${l.denom} per turn: pay the claims (${how}) and send the message again`,
      g.claims,
      g.outstanding,
    );
  },
  tools: (ctx) => ({
    get_credits_status: defineTool({
      description:
        "The user's credits with this oracle: price per turn, prepaid turns left, turns used, amount paid, outstanding claims. Use when the user asks about their credits, balance or what they owe.",
      inputSchema: z.object({}),
      execute: async (_input, turn) => {
        const s = await ledgerOf(ctx).summary(turn.userDid);
        return {
          price: s.price,
          denom: s.denom,
          unit: s.unit,
          prepaidTurns: s.prepaidTurns,
          usedTurns: s.usedTurns,
          paid: s.paid,
          owed: s.owed,
          outstandingClaims: s.outstandingClaims.map((c) => c.claimId),
        };
      },
    }),
  }),
  routes: (app, ctx) => {
    app.get('/credits/contract', async (req) => {
      const l = ledgerOf(ctx);
      return { terms: l.terms(), contract: (await l.contract(getUser(req).did)) ?? null };
    });
    app.post('/credits/contract', async (req, reply) => {
      const { contract, created } = await ledgerOf(ctx).accept(getUser(req).did);
      return reply.status(created ? 201 : 200).send({ contract });
    });
    app.post('/credits/pay', { schema: { body: PayBodySchema } }, async (req) => {
      const body = req.body as z.infer<typeof PayBodySchema>;
      const did = getUser(req).did;
      const l = ledgerOf(ctx);
      const verify = ctx.host.verifyPayment;
      // without the operator's verifier a reported payment is an IOU (runtime.md, "Who may spend the model key")
      if (verify) {
        // the claims are checked before the verifier is asked, and shown to it: it binds the settlement to them
        const claims = await l.preview(did, body.claimIds, body.amount, body.reference);
        const v = await verifyOnce(verify, { userDid: did, ...body, claims, denom: l.denom });
        if (!v.settled)
          throw creditsError('payment_unverified', `the payment is not settled: ${v.reason.slice(0, 300)}`, {
            details: { claimIds: body.claimIds },
          });
      }
      const r = await l.pay(did, body.claimIds, body.amount, body.reference, { verified: verify !== undefined });
      return { ok: true, verified: verify !== undefined, ...r };
    });
    app.get('/credits/ledger', async (req) => {
      const did = getUser(req).did;
      const l = ledgerOf(ctx);
      return { ...(await l.summary(did)), entries: await l.entries(did) };
    });
  },
});
