/**
 * What the registry's resource modules take: the zod schemas of the /v1 and
 * /admin/v1 request bodies and queries, and their inferred types. Fastify
 * validates each request with its schema (src/daemon/http/routes.ts) and
 * @fastify/swagger documents it at /docs/json; the modules take the parsed
 * value and check only the rules that need words of their own (DID syntax and
 * methods, dates, metadata limits, URLs, hashes) or the database, with the
 * codes of src/lib/registry/errors.ts.
 *
 * The schemas are the one validation of shapes, types, enums and ranges
 * (unknown fields → 400 unknown_field; a bad query value → invalid_query, a
 * bad body → invalid_body, each naming the field). The sampling body's
 * schema runs the sampling engine's own validation (areaRule), so its errors
 * keep sampling.md's codes.
 */
import { z } from 'zod';
import { isOracleKitError } from '../../lib/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';
import { DOMAIN_STATES, DOMAIN_TYPES, requireDid } from '../../lib/registry/domain.ts';
import { validateDesignInput, type DesignInput } from '../../lib/sampling/design.ts';
import { VOTE_OPTIONS } from '../../lib/registry/tally.ts';
import { ROLES } from '../../lib/registry/types.ts';

export const did = z
  .string()
  .max(4096)
  .describe('a DID (W3C syntax; did:key must decode to a key; did:ixo:entity: is 32 lowercase hex)');
export const dateTime = z.string().max(64).describe('RFC 3339 date-time with a zone');

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

/**
 * POST /v1/sampling's body, an object: its projectId, its inputs as sent, and as the engine validated them; throws the
 * area's error.
 */
function samplingRule({ projectId, ...input }: Record<string, unknown>): {
  projectId: string;
  input: Record<string, unknown>;
  valid: DesignInput;
} {
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
    'sampling.md inputs (population, expectedMean, expectedSD | expectedProportion, dropoutRate, confidence?, ' +
      "precision?, erCoverage?, stratification?) plus projectId (a DID); validated by the sampling engine, with sampling.md's codes",
  );

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
          '"oraclekit-api-key <did> <roles, sorted, comma-separated> <time as toISOString()>", issued within the ' +
            'last 5 minutes',
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
