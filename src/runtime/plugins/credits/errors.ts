/** The credits plugin's own error codes (merged with the runtime's at boot; payment_required is the protocol's). */
import { pluginErrorFactory } from '../../plugin.ts';

export const CREDITS_ERRORS = {
  payment_mismatch: { status: 400, when: 'the amount paid is not the total of the claims paid' },
  claim_not_found: { status: 404, when: "no such claim among the caller's own" },
  contract_required: { status: 409, when: "a payment before the caller accepted the oracle's contract" },
  claim_not_outstanding: { status: 409, when: 'the claim is already paid or used' },
  payment_reference_used: {
    status: 409,
    when: 'the payment reference already paid claims on this oracle (a verified payment pays once, for one user)',
  },
  payment_verification_unavailable: {
    status: 503,
    when: "the operator's payment verifier failed (threw) instead of answering; the claims stay outstanding: retry shortly",
  },
  payment_unverified: {
    status: 402,
    when: "the operator's payment verifier did not find the payment settled; the claims stay outstanding",
  },
} as const;

export const creditsError = pluginErrorFactory(CREDITS_ERRORS);
