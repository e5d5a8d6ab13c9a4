/**
 * The route schemas that belong to HTTP: path parameters, and the replies.
 * The request bodies and queries are the registry's own input schemas
 * (src/daemon/registry/inputs.ts), re-exported here so that routes.ts finds
 * every schema of a route in one module; @fastify/swagger turns them all
 * into the OpenAPI document served at /docs/json.
 *
 * The reply schemas document what each route sends; they are never run on a
 * reply (routes.ts serializes the registry's replies with plain
 * JSON.stringify), so they describe src/daemon/registry/ and src/lib/registry
 * as they are, and test/unit/daemon/openapi.test.ts parses live replies with
 * them to keep the two in step.
 */
import { z } from 'zod';
import { DOMAIN_STATES, DOMAIN_TYPES } from '../../lib/registry/domain.ts';
import { PROPOSAL_STATUSES } from '../../lib/registry/tally.ts';
import { ROLES } from '../../lib/registry/types.ts';
import { dateTime, did, service } from '../registry/inputs.ts';

export {
  domainCreate,
  domainPatch,
  domainQuery,
  keyCreateBody,
  proposalBody,
  recalcBody,
  samplingBody,
  samplingQuery,
  verificationBody,
  voteBody,
} from '../registry/inputs.ts';

export const didParams = z.object({ did: z.string().max(8192) });
export const idParams = z.object({ id: z.string().max(256) });
export const designParams = z.object({ designId: z.string().max(256) });

// ------------------------------------------------------------------ replies

/** The one error body of the daemon (src/daemon/http/errors.ts), for every 4xx. */
export const errorBody = z
  .object({
    statusCode: z.number().int().min(400).max(599).describe('the HTTP status again'),
    code: z.string().describe('a code of src/lib/registry/errors.ts, or of sampling.md for the sampling engine'),
    message: z.string().describe('what went wrong, naming the field and what is valid'),
    field: z.string().optional().describe('the field, query parameter or header at fault'),
    details: z.record(z.string(), z.unknown()).optional().describe('more: value, valid, issues, need/have …'),
  })
  .describe('Error: {statusCode, code, message, field?, details?}');

const isoTime = z.string().describe('ISO 8601 UTC time, e.g. 2026-01-31T12:00:00.000Z');
const page = <T extends z.ZodType>(item: T, what: string) =>
  z
    .object({
      items: z.array(item),
      nextCursor: z.string().nullable().describe('pass as ?cursor= for the next page; null on the last'),
    })
    .describe(`A page of ${what}`);

const stratum = z.object({
  name: z.string(),
  weight: z.number().describe('share of the population, the weights sum to 1'),
  population: z.number().int().describe('households apportioned to the stratum (largest remainder)'),
  mean: z.number(),
  sd: z.number(),
  cv: z.number().nullable().describe('null when beyond the largest double (docs/sampling.md, "Extreme numbers")'),
  n0: z.number().nullable().describe('null when beyond the largest double; n_fpc is then N (a census)'),
  n_fpc: z.number(),
  calculatedSize: z.number().int(),
  sampleSize: z.number().int().describe('after the dropout adjustment'),
  census: z.boolean().describe('the whole stratum is sampled'),
  dropoutRate: z
    .number()
    .optional()
    .describe("the stratum's own dropout rate, when it has one (else the design's applies to its sampleSize)"),
});

export const designRecord = z
  .object({
    designId: z.string().describe('UUIDv7'),
    projectId: did,
    version: z.number().int().describe('1, then +1 per recalculation'),
    previousDesignId: z.string().nullable().describe('the version this one recalculates'),
    parameters: z.object({
      confidence: z.number().describe('0.95'),
      precision: z.number().describe('0.05 (relative)'),
      precisionType: z.literal('relative'),
      population: z.number().int(),
      expectedMean: z.number().describe('the proportion p when expectedProportion was given'),
      expectedSD: z.number().describe('sqrt(p(1-p)) when expectedProportion was given'),
      expectedProportion: z.number().optional(),
      calculatedSize: z.number().int(),
      adjustedSize: z.number().int().describe('calculatedSize / (1 - dropoutRate), rounded up'),
      dropoutRate: z.number(),
      erCoverage: z.number(),
      erCoverageSource: z.enum(['input', '1 - dropoutRate']),
    }),
    stratification: z.object({ method: z.enum(['proportional', 'none']), strata: z.array(stratum) }),
    verification: z.object({
      status: z.enum(['draft', 'submitted', 'approved', 'rejected']),
      verifier: z.string().nullable().describe('DID of the verifier who approved or rejected'),
      timestamp: isoTime.nullable(),
      reason: z.string().optional(),
    }),
    flags: z.array(z.string()).describe('e.g. census'),
    input: z.record(z.string(), z.unknown()).describe('the sampling.md inputs the design was computed from'),
    change: z
      .object({
        period: z.string().nullable(),
        previousAdjustedSize: z.number().int(),
        adjustedSize: z.number().int(),
        direction: z.enum(['up', 'down', 'same']),
        by: z.number().int(),
      })
      .optional()
      .describe('recalculations only: how the size moved from the previous version'),
    createdBy: did.describe('DID of the key that made it'),
    createdAt: isoTime,
  })
  .describe('A sample design record (sampling.md)');

export const designPage = page(designRecord, 'sample designs');

export const domainView = z
  .object({
    id: did.describe('did:ixo:entity:<32 lowercase hex>, assigned by the registry'),
    type: z.enum(DOMAIN_TYPES),
    class: did.nullable().describe('DID of the Protocol domain; null for a Protocol'),
    controllers: z.array(did),
    metadata: z.record(z.string(), z.unknown()),
    services: z.array(service),
    validFrom: dateTime.nullable(),
    validUntil: dateTime.nullable(),
    alsoKnownAs: z.string().nullable(),
    state: z.enum(DOMAIN_STATES),
    version: z.number().int().describe('the ETag; send it back as If-Match to PATCH'),
    createdAt: isoTime,
    updatedAt: isoTime,
    deactivatedAt: isoTime.nullable(),
    active: z.boolean().describe('derived: not deactivated and now within validFrom..validUntil'),
    eligible: z.boolean().describe('derived: verified and active'),
  })
  .describe('A domain, with active and eligible derived on read');

export const domainPage = page(domainView, 'domains');

const fraction = z.object({
  fraction: z.string().describe('exact, "n/d"'),
  decimal: z.number().describe('for display only'),
});

export const proposalView = z
  .object({
    id: z.string().describe('prp_<20 hex>'),
    domainId: did,
    status: z.enum(PROPOSAL_STATUSES),
    outcome: z.enum(PROPOSAL_STATUSES).exclude(['executed']).describe('status, with executed shown as passed'),
    rule: z
      .discriminatedUnion('rule', [
        z.object({
          rule: z.literal('threshold_quorum'),
          quorum: fraction,
          threshold: fraction,
          vetoThreshold: fraction,
        }),
        z.object({ rule: z.literal('absolute_count'), k: z.number().int() }),
        z.object({ rule: z.literal('absolute_percentage'), p: fraction }),
      ])
      .describe('the tally rule in force when the proposal was made'),
    revoting: z.boolean(),
    snapshot: z.array(z.object({ did, weight: z.number().int() })).describe('the eligible voters and their weights'),
    tally: z.object({
      yes: z.string().describe('weights as decimal integer strings (exact)'),
      no: z.string(),
      abstain: z.string(),
      veto: z.string(),
      voters: z.number().int().describe('voters in the snapshot'),
      voted: z.number().int().describe('voters who voted'),
      totalWeight: z.string(),
      votedWeight: z.string(),
      yesCount: z.number().int(),
    }),
    deadline: isoTime,
    package: z.object({
      documents: z.array(z.object({ url: z.string(), hash: z.string(), name: z.string().optional() })),
    }),
    description: z.string().nullable(),
    proposer: did,
    createdAt: isoTime,
    closedAt: isoTime.nullable(),
  })
  .describe('A verification proposal: status, tally and rule');

export const domainProposal = z
  .object({
    domain: domainView,
    proposal: proposalView.nullable().describe("the domain's latest proposal; null when it never had one"),
  })
  .describe('A domain and its latest verification proposal');

export const keyCreated = z
  .object({
    id: z.string().describe('key_<12 hex>'),
    key: z.string().describe('the secret: shown this once, stored only as its SHA-256'),
    did,
    roles: z.array(z.enum(ROLES)),
    createdAt: isoTime,
  })
  .describe('The new API key');

export const keyList = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        prefix: z.string().describe('the first 16 characters of the key, to recognise it'),
        did,
        roles: z.array(z.enum(ROLES)),
        label: z.string().nullable(),
        createdAt: isoTime,
        revokedAt: isoTime.nullable(),
      }),
    ),
  })
  .describe('API keys, without their secrets');

export const keyRevoked = z
  .object({ id: z.string(), revokedAt: isoTime })
  .describe('The key is revoked (revoking it again keeps the first revokedAt)');

/** A route's replies: the success status with its schema, and the error body for every 4xx. */
export const replies = <C extends 200 | 201, T extends z.ZodType>(status: C, schema: T) =>
  ({ [status]: schema, '4xx': errorBody }) as { [K in C]: T } & { '4xx': typeof errorBody };
