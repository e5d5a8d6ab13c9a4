/**
 * Zod schemas of every route (request side): fastify validates with them and
 * @fastify/swagger turns them into the OpenAPI document served at /docs/json.
 * They check shape and types (unknown fields → 400 unknown_field); the rules
 * that need words of their own (DID syntax and methods, dates, metadata
 * limits, URLs) are checked after them in src/lib/registry, with the codes
 * of src/lib/registry/errors.ts. The sampling body is left to the sampling
 * engine, so its errors keep sampling.md's codes.
 */
import { z } from 'zod';

const did = z.string().max(4096).describe('a DID (W3C syntax; did:key must decode to a key; did:ixo:entity: is 32 lowercase hex)');
const dateTime = z.string().max(64).describe('RFC 3339 date-time with a zone');

export const service = z.strictObject({
  id: z.string().max(256).describe('#api, #ws or another fragment'),
  type: z.string().max(64).describe('e.g. oracleService'),
  serviceEndpoint: z.string().max(2048).describe('http(s) URL without credentials'),
});

export const domainCreate = z.strictObject({
  type: z.string().max(32).describe('Organisation | Project | Asset | Device | Protocol | Oracle | Request'),
  class: did.nullable().optional().describe('DID of a registered, active Protocol domain (required except for type Protocol)'),
  protocol: did.nullable().optional().describe('alias of class'),
  controllers: z.array(did).max(64).optional(),
  metadata: z.record(z.string(), z.unknown()).optional().describe('object, name recommended; <= 16 KiB, depth <= 8'),
  services: z.array(service).max(64).optional(),
  validFrom: dateTime.nullable().optional(),
  validUntil: dateTime.nullable().optional(),
  alsoKnownAs: z.string().max(1024).nullable().optional().describe('natural key, unique per class among live domains'),
});

export const domainPatch = domainCreate.partial();

export const domainQuery = z.strictObject({
  type: z.string().max(32).optional(),
  status: z.string().max(32).optional(),
  state: z.string().max(32).optional(),
  controller: z.string().max(4096).optional(),
  class: z.string().max(4096).optional(),
  q: z.string().max(1024).optional(),
  limit: z.string().max(8).optional(),
  cursor: z.string().max(64).optional(),
});

export const didParams = z.object({ did: z.string().max(8192) });
export const idParams = z.object({ id: z.string().max(256) });
export const designParams = z.object({ designId: z.string().max(256) });

export const samplingBody = z
  .record(z.string(), z.unknown())
  .describe('sampling.md inputs (population, expectedMean, expectedSD | expectedProportion, dropoutRate, confidence?, precision?, erCoverage?, stratification?) plus projectId (a DID)');

export const samplingQuery = z.strictObject({
  projectId: z.string().max(4096).optional(),
  limit: z.string().max(8).optional(),
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
  strata: z.array(z.strictObject({ name: z.string().max(64), mean: z.number().optional(), sd: z.number().optional() })).max(100).optional(),
});

export const verificationBody = z.strictObject({
  status: z.enum(['submitted', 'approved', 'rejected']),
  reason: z.string().max(2000).optional(),
});

export const proposalBody = z.strictObject({
  package: z.strictObject({
    documents: z.array(z.strictObject({ url: z.string().max(2048), hash: z.string().max(256), name: z.string().max(256).optional() })).min(1).max(64),
  }),
  description: z.string().max(4000).optional(),
});

export const voteBody = z.strictObject({ option: z.enum(['yes', 'no', 'abstain', 'veto']) });

export const keyCreateBody = z.strictObject({
  did: z.string().max(4096),
  roles: z.array(z.string().max(32)).min(1).max(5),
  label: z.string().max(128).optional(),
});
