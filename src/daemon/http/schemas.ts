/**
 * Zod schemas of every route: fastify validates requests with them and
 * @fastify/swagger turns them into the OpenAPI document served at /docs/json.
 * They are the one validation of shapes, types, enums and ranges (unknown
 * fields → 400 unknown_field; a bad query value → invalid_query, a bad body
 * → invalid_body, each naming the field): the registry's modules take their
 * inferred types (the `…Body`/`…Query` types below) and check only the rules
 * that need words of their own (DID syntax and methods, dates, metadata
 * limits, URLs, hashes) or the database, with the codes of
 * src/lib/registry/errors.ts. The sampling body's schema runs the sampling
 * engine's own validation (areaRule), so its errors keep sampling.md's codes.
 *
 * The reply schemas (second half) document what each route sends; they are
 * never run on a reply (routes.ts serializes the registry's replies with
 * plain JSON.stringify), so they describe src/daemon/registry/ and
 * src/lib/registry as they are, and test/unit/daemon/openapi.test.ts parses
 * live replies with them to keep the two in step.
 */
import { z } from 'zod';
import { isOracleKitError } from '../../lib/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';
import { DOMAIN_STATES, DOMAIN_TYPES, requireDid } from '../../lib/registry/domain.ts';
import { validateDesignInput } from '../../lib/sampling/design.ts';
import { PROPOSAL_STATUSES, VOTE_OPTIONS } from '../../lib/registry/tally.ts';
import { ROLES } from '../../lib/registry/types.ts';

const did = z
  .string()
  .max(4096)
  .describe('a DID (W3C syntax; did:key must decode to a key; did:ixo:entity: is 32 lowercase hex)');
const dateTime = z.string().max(64).describe('RFC 3339 date-time with a zone');

export const service = z.strictObject({
  id: z.string().max(256).describe('#api, #ws or another fragment'),
  type: z.string().max(64).describe('e.g. oracleService'),
  serviceEndpoint: z.string().max(2048).describe('http(s) URL without credentials'),
});

export const domainCreate = z.strictObject({
  type: required('type', z.string().max(32), `one of ${DOMAIN_TYPES.join(', ')}`).describe(
    'Organisation | Project | Asset | Device | Protocol | Oracle | Request (required)',
  ),
  class: did
    .nullable()
    .optional()
    .describe('DID of a registered, active Protocol domain (required except for type Protocol)'),
  protocol: did.nullable().optional().describe('alias of class'),
  controllers: z.array(did).max(64).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().describe('object, name recommended; <= 16 KiB, depth <= 8'),
  services: z.array(service).max(64).optional(),
  validFrom: dateTime.nullable().optional(),
  validUntil: dateTime.nullable().optional(),
  alsoKnownAs: z.string().max(1024).nullable().optional().describe('natural key, unique per class among live domains'),
});

export const domainPatch = domainCreate.partial();

/** ?limit=: an integer 1..200 (default 50). */
const limit = z
  .string()
  .regex(/^\d{1,3}$/, 'an integer 1..200')
  .transform(Number)
  .pipe(z.number().int().min(1, 'an integer 1..200').max(200, 'an integer 1..200'))
  .optional();

export const domainQuery = z.strictObject({
  type: z.enum(DOMAIN_TYPES).optional(),
  status: z.enum(DOMAIN_STATES).optional(),
  state: z.enum(DOMAIN_STATES).optional().describe('alias of status'),
  controller: z.string().max(4096).optional(),
  class: z.string().max(4096).optional(),
  q: z.string().max(256).optional().describe('search text: name, alsoKnownAs or the id'),
  limit,
  cursor: z.string().max(64).optional(),
});

export const didParams = z.object({ did: z.string().max(8192) });
export const idParams = z.object({ id: z.string().max(256) });
export const designParams = z.object({ designId: z.string().max(256) });

/**
 * A rule of an area run inside a schema (the sampling engine's validation, the
 * DID rule): a fault leaves as a zod issue carrying the area's own error body
 * (`params.error`), which toErrorBody (src/lib/errors.ts) sends as it is — so
 * the sampling inputs keep sampling.md's codes while the schema stays their
 * one validation.
 */
function areaRule<I, O>(fn: (v: I) => O) {
  return (v: I, ctx: z.RefinementCtx): O => {
    try {
      return fn(v);
    } catch (e) {
      if (!isOracleKitError(e)) throw e;
      ctx.addIssue({
        code: 'custom',
        message: e.message,
        path: e.field ? [e.field] : [],
        params: { error: e.toBody() },
      });
      return z.NEVER;
    }
  };
}

/**
 * A required field whose absence is 400 missing_field naming it (registry.md
 * "Errors"), not the invalid_body of a wrong value: the schema checks the
 * value when present, the rule the absence.
 */
function required<T extends z.ZodType>(field: string, schema: T, valid: string) {
  return schema.optional().transform(
    areaRule((v: z.output<T> | undefined) => {
      if (v === undefined)
        throw registryError('missing_field', `${field} is missing; valid: ${valid}`, { field, valid });
      return v as z.output<T>;
    }),
  );
}

/** POST /v1/sampling's body, an object: its projectId, its inputs as sent, and as the engine validated them; throws the area's error. */
function samplingRule({ projectId, ...input }: Record<string, unknown>) {
  return {
    projectId: requireDid('projectId', projectId),
    /** The inputs as sent: stored with the design, and the base of its recalculations. */
    input,
    /** The inputs as the engine validated them (validateDesignInput, the same check as `sample calc`). */
    valid: validateDesignInput(input),
  };
}

export const samplingBody = z
  .record(z.string(), z.unknown())
  .transform(areaRule(samplingRule))
  .describe(
    "sampling.md inputs (population, expectedMean, expectedSD | expectedProportion, dropoutRate, confidence?, precision?, erCoverage?, stratification?) plus projectId (a DID); validated by the sampling engine, with sampling.md's codes",
  );

/**
 * Schemas whose whole check is an area's rule over a JSON object, with the
 * rule itself: the daemon's validator compiler (server.ts) runs the rule
 * directly on a body that is an object, and the schema only when that fails
 * (or the body is not an object), so every error still comes from the schema,
 * as before, and a valid body costs no copy by z.record and no parse context.
 * The result is the schema's: z.record(z.string(), z.unknown()) passes a JSON
 * object's keys and values through as they are.
 */
export const directRules = new Map<z.ZodType, (body: Record<string, unknown>) => unknown>([
  [samplingBody, samplingRule],
]);

export const samplingQuery = z.strictObject({
  projectId: z.string().max(4096).optional(),
  limit,
  cursor: z.string().max(64).optional(),
});

export const recalcBody = z.strictObject({
  period: z.string().max(64).optional(),
  observedMean: z.number().optional(),
  observedSD: z.number().optional(),
  observedProportion: z.number().optional(),
  dropoutRate: z.number().optional(),
  population: z.number().optional(),
  erCoverage: z.number().optional(),
  strata: z
    .array(z.strictObject({ name: z.string().max(64), mean: z.number().optional(), sd: z.number().optional() }))
    .max(100)
    .optional(),
});

export const verificationBody = z.strictObject({
  status: z.enum(['submitted', 'approved', 'rejected']),
  reason: z.string().max(2000).optional(),
});

export const proposalBody = z.strictObject({
  package: z.strictObject({
    documents: z
      .array(
        z.strictObject({ url: z.string().max(2048), hash: z.string().max(256), name: z.string().max(256).optional() }),
      )
      .min(1)
      .max(64),
  }),
  description: z.string().max(4000).optional(),
});

export const voteBody = z.strictObject({ option: z.enum(VOTE_OPTIONS) });

export const keyCreateBody = z.strictObject({
  did: z.string().max(4096),
  roles: z
    .array(z.string().max(32))
    .min(1)
    .max(5)
    .describe(`of ${ROLES.join(', ')} (another is 400 invalid_role)`),
  label: z.string().max(128).optional(),
  proof: z
    .strictObject({
      challenge: z
        .string()
        .max(512)
        .describe(
          '"oraclekit-api-key <did> <roles, sorted, comma-separated> <time as toISOString()>", issued within the last 5 minutes',
        ),
      signature: z
        .string()
        .max(128)
        .describe("the DID's key's signature over the challenge's UTF-8 bytes, 64 bytes base64url"),
    })
    .optional()
    .describe(
      'a DID proof (registry.md, "DID proof at key creation"); required when the deployment sets requireDidProof',
    ),
});

export type DomainCreate = z.infer<typeof domainCreate>;
export type DomainPatch = z.infer<typeof domainPatch>;
export type DomainQuery = z.infer<typeof domainQuery>;
export type SamplingBody = z.output<typeof samplingBody>;
export type SamplingQuery = z.infer<typeof samplingQuery>;
export type RecalcBody = z.infer<typeof recalcBody>;
export type VerificationBody = z.infer<typeof verificationBody>;
export type ProposalBody = z.infer<typeof proposalBody>;
export type VoteBody = z.infer<typeof voteBody>;
export type KeyCreateBody = z.infer<typeof keyCreateBody>;

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
