/** Stratified design inputs as the sampling, selection and report tests build them. */

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
