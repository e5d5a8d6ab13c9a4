/**
 * The selection area's error table (sampling.md, "Verifiable random
 * selection"; docs/selection.md): status, code and when. Statuses follow the
 * sampling table: 400 malformed input, 404 a file that is not there, 409 input
 * that contradicts another input (frame vs design, beacon vs commitment), 422
 * well-formed input that cannot be used (too few households, a beacon whose
 * signature does not verify). `sample verify` reports mismatches with exit 10
 * (EXIT_CODES.verificationFailed), not through this table.
 */
import { fieldErrorFactory } from '../errors.ts';

export const SELECTION_ERRORS = {
  file_not_found: { status: 404, when: 'a frame, design, commitment, proof, chain or beacon file does not exist' },
  invalid_json: { status: 400, when: 'a JSON input file does not parse' },
  invalid_design: {
    status: 400,
    when: 'the design file is neither `sample calc --json` output, a registry record nor a calc input',
  },
  invalid_frame: {
    status: 400,
    when: 'the frame CSV is empty, has no household_id column, or has an unterminated quoted field',
  },
  missing_stratum_column: { status: 400, when: 'the design is stratified and the frame has no stratum column' },
  blank_household_id: { status: 400, when: 'a frame row has an empty household_id (after trim)' },
  invalid_household_id: { status: 400, when: 'a household_id contains U+001F (the ticket separator)' },
  too_many_households: { status: 400, when: 'a stratum has more than 16,777,215 households' },
  invalid_commitment: { status: 400, when: 'the commitment file is not a cookstove-sampling/v1 commitment' },
  invalid_proof: { status: 400, when: 'the proof file is not a cookstove-sampling/v1 proof' },
  invalid_seed_hex: { status: 400, when: '--seed-hex is not an even-length hex string of 16 to 128 bytes' },
  invalid_manifest: { status: 400, when: 'a report manifest is not {title?, projects: [{projectId, design, ...}]}' },
  invalid_verifier_package: {
    status: 400,
    when: '`sample check` was given a file that is not a package.json of `sample report` (kind, version, or its inputs missing)',
  },
  invalid_round: { status: 400, when: '--round is not an integer >= 1' },
  invalid_published_at: {
    status: 400,
    when: "--published-at (or a manifest's publishedAt) is not an ISO 8601 date-time with a time zone",
  },
  duplicate_household: {
    status: 409,
    when: 'two frame rows have the same household_id after trim (same code and status as the sampling table)',
  },
  round_not_in_future: { status: 409, when: 'the chosen beacon round is not later than the commitment time' },
  frame_mismatch: { status: 409, when: 'draw was given a frame whose frameHash differs from the committed one' },
  population_mismatch: {
    status: 409,
    when: "the frame has more households than the design's population (in a stratum): the design must be recomputed for the frame, or the mismatch accepted explicitly (--accept-population-mismatch)",
  },
  design_inconsistent: {
    status: 409,
    when: "a design's sizes (N_h, calculatedSize, n_h, adjustedSize, erCoverage) do not follow from its own parameters by the sampling chain",
  },
  output_exists: {
    status: 409,
    when: 'an output file (commitment, selection.csv, proof.json) already exists and --force was not given',
  },
  unknown_stratum: {
    status: 422,
    when: 'a frame row names a stratum that is not in the design (same code and status as the sampling table)',
  },
  insufficient_frame: { status: 422, when: 'a stratum has fewer households in the frame than its sample size' },
} as const;

/** Builds a selection error naming the field (or file:line), the value and what is valid. */
export const selectionError = fieldErrorFactory(SELECTION_ERRORS);

/** Malformed frame CSV is invalid_frame in this area (see src/lib/csv.ts). */
export const frameCsvError = (where: string, value: string, valid: string, message: string) =>
  selectionError('invalid_frame', where, value, valid, { message });
