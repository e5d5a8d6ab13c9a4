/** Design inputs as the sampling, selection and report tests build them, and the `sample calc` flags they share. */

/** The unstratified design the CLI tests compute: 8 000 households, mean 3.1, SD 1.7, 10 % dropout. */
export const SIMPLE_CALC_ARGS = ['-N', '8000', '--mean', '3.1', '--sd', '1.7', '--dropout', '0.1'];

/** A design of two strata, north 55 % and south 45 % of 6 000 households (mean 1.2, SD 0.5, 10 % dropout). */
export const NORTH_SOUTH_CALC_ARGS = [
  ...['-N', '6000', '--mean', '1.2', '--sd', '0.5', '--dropout', '0.1'],
  ...['--stratum', 'north=0.55', '--stratum', 'south=0.45'],
];

interface StratumSpec {
  name: string;
  weight: number;
  mean?: number;
  sd?: number;
  dropoutRate?: number;
}

/** The reference case's three strata, each with its own mean and SD (15 000 households: 196 / 646 / 784 at 8 %). */
export const COOKSTOVE_STRATA: readonly StratumSpec[] = [
  { name: 'lpg', weight: 0.5, mean: 2.6, sd: 0.9 },
  { name: 'biomass', weight: 0.3, mean: 1.8, sd: 1.2 },
  { name: 'electric', weight: 0.2, mean: 1.4, sd: 1.1 },
];

/** Two strata of equal weight, North and South, on the overall mean and SD. */
export const NORTH_SOUTH_HALVES: readonly StratumSpec[] = [
  { name: 'North', weight: 0.5 },
  { name: 'South', weight: 0.5 },
];

/** The strata of NORTH_SOUTH_CALC_ARGS: north 55 %, south 45 %. */
export const NORTH_SOUTH_55_45: readonly StratumSpec[] = [
  { name: 'north', weight: 0.55 },
  { name: 'south', weight: 0.45 },
];

/** A stratified design input (a fresh object each call): overall mean 2 and SD 1, dropout 0.1 unless given. */
export function stratifiedInput(
  population: number,
  strata: readonly StratumSpec[],
  over: { expectedMean?: number; expectedSD?: number; dropoutRate?: number } = {},
) {
  return {
    population,
    expectedMean: 2,
    expectedSD: 1,
    dropoutRate: 0.1,
    ...over,
    stratification: { enabled: true, strata: strata.map((s) => ({ ...s })) },
  };
}
