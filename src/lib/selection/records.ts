/**
 * The files of a selection: the commitment (published before any randomness
 * exists) and the proof (everything needed to recompute the draw). Both are
 * JSON; their digests are SHA-256 of the canonical JSON (sorted keys, no
 * whitespace), so re-indenting a file does not change them.
 */
import { z } from 'zod';
import { selectionError } from './errors.ts';
import { ALGORITHM, canonicalJson, sha256Hex } from './hash.ts';

const hex32 = z.string().regex(/^[0-9a-f]{64}$/);
const hex = z.string().regex(/^([0-9a-f]{2})*$/);

const ChainSchema = z.object({
  public_key: hex,
  period: z.number().int().min(1),
  genesis_time: z.number().int().min(0),
  hash: hex32,
  schemeID: z.string(),
  groupHash: z.string().optional(),
  metadata: z.object({ beaconID: z.string().optional() }).optional(),
});

const CommitmentSchema = z.object({
  kind: z.literal('oraclekit/selection-commitment'),
  version: z.literal(1),
  algorithm: z.literal(ALGORITHM),
  committedAt: z.iso.datetime(),
  designId: z.string().min(1),
  projectId: z.string().optional(),
  design: z.object({
    parameters: z.record(z.string(), z.unknown()),
    stratification: z.record(z.string(), z.unknown()),
    /** The design file's provenance block, verbatim, when it had one. */
    provenance: z.record(z.string(), z.unknown()).optional(),
  }),
  frame: z.object({
    file: z.string(),
    fileSha256: hex32,
    households: z.number().int().min(1),
    columns: z.array(z.string()),
    frameHash: hex32,
  }),
  strata: z
    .array(
      z.object({
        name: z.string().min(1),
        households: z.number().int().min(1),
        sampleSize: z.number().int().min(1),
        frameHash: hex32,
      }),
    )
    .min(1),
  beacon: z.object({
    chain: ChainSchema,
    round: z.number().int().min(1),
    roundTime: z.iso.datetime(),
  }),
  /**
   * Present when the committer accepted a frame larger than the design's population (populationMismatch in design.ts).
   */
  populationMismatch: z
    .object({
      accepted: z.literal(true),
      strata: z.array(
        z.object({
          name: z.string(),
          designPopulation: z.number(),
          frameHouseholds: z.number(),
          plannedCompleted: z.number(),
          precision: z.number(),
        }),
      ),
      needed: z.array(z.object({ name: z.string(), sampleSize: z.number() })).nullable(),
      command: z.string(),
    })
    .optional(),
});
export type Commitment = z.infer<typeof CommitmentSchema>;

const RankedSchema = z.object({ rank: z.number().int().min(1), household_id: z.string(), ticket: hex32 });

const ProofSchema = z.object({
  kind: z.literal('oraclekit/selection-proof'),
  version: z.literal(1),
  algorithm: z.literal(ALGORITHM),
  drawnAt: z.iso.datetime(),
  commitmentDigest: hex32,
  designId: z.string(),
  frameHash: hex32,
  randomness: z.discriminatedUnion('source', [
    z.object({
      source: z.literal('drand'),
      chainHash: hex32,
      round: z.number().int().min(1),
      randomness: hex32,
      signature: hex,
      previous_signature: hex.optional(),
    }),
    z.object({ source: z.literal('verifier'), randomness: hex.min(32), note: z.string().optional() }),
  ]),
  seed: hex32,
  strata: z
    .array(
      z.object({
        name: z.string(),
        households: z.number().int(),
        sampleSize: z.number().int(),
        sample: z.array(RankedSchema),
        orderDigest: hex32,
      }),
    )
    .min(1),
  selection: z.object({ file: z.string(), sha256: hex32, rows: z.number().int() }),
});
export type Proof = z.infer<typeof ProofSchema>;

function issueText(e: z.ZodError): { field: string; message: string } {
  const i = e.issues[0]!;
  return { field: i.path.join('.') || '(root)', message: i.message };
}

export function parseCommitment(raw: unknown, source = 'commitment'): Commitment {
  const r = CommitmentSchema.safeParse(raw);
  if (!r.success) {
    const { field, message } = issueText(r.error);
    throw selectionError(
      'invalid_commitment',
      `${source}.${field}`,
      undefined,
      `a ${ALGORITHM} commitment written by \`sample select commit\``,
      {
        message: `${source}.${field}: ${message}; valid: a ${ALGORITHM} commitment written by \`oraclekit sample select commit\``,
      },
    );
  }
  return r.data;
}

export function parseProof(raw: unknown, source = 'proof'): Proof {
  const r = ProofSchema.safeParse(raw);
  if (!r.success) {
    const { field, message } = issueText(r.error);
    throw selectionError(
      'invalid_proof',
      `${source}.${field}`,
      undefined,
      `a ${ALGORITHM} proof written by \`sample select draw\``,
      {
        message: `${source}.${field}: ${message}; valid: a ${ALGORITHM} proof written by \`oraclekit sample select draw\``,
      },
    );
  }
  return r.data;
}

/** SHA-256 of the canonical JSON of a commitment (what the proof refers to). */
export function commitmentDigest(c: Commitment): string {
  return sha256Hex(canonicalJson(c));
}
