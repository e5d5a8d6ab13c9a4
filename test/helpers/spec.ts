/** The sampling contract's reference cases, kept in test/fixtures (provenance in its README). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '../fixtures');

interface SamplingCases {
  constants: { z: number };
  cases: {
    id: string;
    note: string;
    input: Record<string, unknown>;
    expected: Record<string, unknown> & { strata?: Record<string, unknown>[] };
  }[];
  errors: { id: string; note: string; input: Record<string, unknown>; status: number; code: string }[];
  selection_vectors: {
    ids: string[];
    stratum: string;
    n: number;
    beaconRandomness: string;
    frameHash: string;
    seed: string;
    selected: string[];
    replacement_order_first5: string[];
  }[];
}

export function samplingCases(): SamplingCases {
  return JSON.parse(readFileSync(join(FIXTURES, 'sampling-cases.json'), 'utf8')) as SamplingCases;
}
