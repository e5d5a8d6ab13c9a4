/**
 * The beacon area's error table: drand chain info, round JSON, BLS verification and fetching a
 * round from a relay. Statuses: 400 malformed input, 409 input that contradicts the commitment or
 * a pinned chain or the clock (a round not produced yet), 422 a round whose signature does not
 * verify, 503 no relay answered.
 */
import { fieldErrorFactory } from '../errors.ts';

export const BEACON_ERRORS = {
  invalid_chain_info: {
    status: 400,
    when: 'chain info lacks public_key, period, genesis_time, hash or schemeID, or names an unsupported scheme',
  },
  invalid_beacon: {
    status: 400,
    when: 'a beacon round JSON lacks round, randomness or signature (or previous_signature on a chained scheme)',
  },
  beacon_round_mismatch: { status: 409, when: 'the beacon round given is not the committed (or requested) round' },
  chain_mismatch: { status: 409, when: 'the chain info contradicts the committed one or a well-known drand chain' },
  invalid_beacon_signature: {
    status: 422,
    when: 'the beacon randomness is not sha256(signature) or the BLS signature does not verify against the chain public key',
  },
  round_not_produced: { status: 409, when: 'the requested round is later than now: the chain has not produced it yet' },
  beacon_unreachable: { status: 503, when: 'no drand relay answered with the round (network, time-out or HTTP error)' },
} as const;

export type BeaconErrorCode = keyof typeof BEACON_ERRORS;

/** Builds a beacon error naming the field (or file), the value and what is valid. */
export const beaconError = fieldErrorFactory(BEACON_ERRORS);
