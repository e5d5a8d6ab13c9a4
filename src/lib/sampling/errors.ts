/**
 * The sampling area's error table (sampling.md, "Errors"): status, code and
 * when. Every error names the field, the value and what would be valid.
 */
import { fieldErrorFactory } from '../errors.ts';

export const SAMPLING_ERRORS = {
  missing_parameter: { status: 400, when: 'a required input is absent' },
  unknown_field: { status: 400, when: 'a field the design does not know (a typo such as "dropout" for "dropoutRate")' },
  conflicting_parameters: {
    status: 400,
    when: 'expectedProportion given together with expectedMean or expectedSD; two extra tables asked for in one CSV',
  },
  invalid_population: { status: 400, when: 'population is not an integer from 1 to 2^53 − 1' },
  invalid_mean: { status: 400, when: 'a mean is not a finite number > 0' },
  invalid_sd: { status: 400, when: 'an SD is not a finite number > 0' },
  invalid_proportion: { status: 400, when: 'expectedProportion is not in (0, 1)' },
  invalid_dropout: { status: 400, when: 'dropoutRate is not in [0, 1) (a percentage such as 15 is invalid)' },
  invalid_er_coverage: { status: 400, when: 'erCoverage is not in [0, 1]' },
  invalid_weight: { status: 400, when: 'a stratum weight is not a number in (0, 1]' },
  invalid_strata: { status: 400, when: 'stratification is not {enabled, strata: [...]} with 1 to 100 strata' },
  invalid_stratum_name: {
    status: 400,
    when: 'a stratum name is empty, longer than 64 characters or has control characters',
  },
  'confidence_must_be_0.95': { status: 400, when: 'confidence given and not 0.95 (95/5 is mandatory)' },
  'precision_must_be_0.05': { status: 400, when: 'precision given and not 0.05 (95/5 is mandatory)' },
  missing_column: { status: 400, when: 'an observations CSV lacks a required column (household, value)' },
  invalid_observation: { status: 400, when: 'an observation value is not a finite number, or a row is malformed' },
  duplicate_household: { status: 409, when: 'a household appears twice in an observations CSV' },
  unknown_stratum: { status: 422, when: 'an observation names a stratum the design does not have' },
  too_few_observations: { status: 422, when: 'fewer than 2 observations in a group (no SD with n - 1)' },
  more_observations_than_households: {
    status: 422,
    when: "a stratum (or the population) has more observation rows than households (its N_h): the data are not of this design's population, or the design is for a smaller one",
  },
  strata_not_observed: {
    status: 422,
    when: 'recalc printed its result, but a stratum of the design has no completed observation: its precision was not checked',
  },
  invalid_previous: {
    status: 400,
    when: 'the previous design file is not a design (sample calc --json output or a registry record)',
  },
  duplicate_stratum: { status: 409, when: 'two stratum names equal after trim and case-fold' },
  weights_do_not_sum_to_1: { status: 409, when: 'stratum weights sum to more than 1e-6 away from 1' },
  insufficient_population: { status: 422, when: 'adjustedSize > N (or > N_h for a stratum)' },
  empty_stratum: { status: 422, when: 'a stratum apportioned 0 households' },
} as const;

export type SamplingErrorCode = keyof typeof SAMPLING_ERRORS;

const fieldError = fieldErrorFactory(SAMPLING_ERRORS);

/**
 * Builds a sampling error naming the field, the value and what is valid. A
 * non-finite number (a JSON 1e400 parses to Infinity) is named as such, not
 * as the `null` that JSON would show.
 */
export const samplingError: typeof fieldError = (code, field, value, valid, extra) => {
  if (typeof value === 'number' && !Number.isFinite(value) && extra?.message === undefined) {
    return fieldError(code, field, value, valid, {
      ...extra,
      message: `${field} = ${value} is invalid (not a finite number); valid: ${valid}`,
    });
  }
  return fieldError(code, field, value, valid, extra);
};
