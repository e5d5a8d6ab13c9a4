/**
 * The /v1 registry API (registry.md) and the /admin/v1 key management, as
 * fastify plugins. Handlers are thin: the schemas validate, the registry's
 * resource module does the work, writes go through the storage's group
 * commit (`registry.db.write`) and are answered once durable.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySerializerCompiler } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ZodApp as App } from '../../runtime/routes.ts';
import type { Registry } from '../registry/index.ts';
import type { Created } from '../registry/idempotency.ts';
import type { DesignRecord } from '../../lib/registry/types.ts';
import { authenticate, bearer, requireRole, tokenMatches } from './auth.ts';
import { notFound, unknownRouteEarly } from '../../runtime/http/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';
import * as S from './schemas.ts';

interface RegistryPluginOptions {
  registry: Registry;
}

const idemKey = (req: FastifyRequest): string | undefined => {
  const h = req.headers['idempotency-key'];
  return Array.isArray(h) ? h.join(',') : h;
};

/** The authenticated principal of a request (its key's, set by the onRequest hook). */
const P = (req: FastifyRequest) => req.principal!;
/** The OpenAPI security of a route that needs a key. */
const security = [{ bearer: [] }];

const etag = (v: number) => `"${v}"`;

/**
 * The reply schemas of these routes (S.replies) are there for /docs/json
 * only: both plugins below serialize a reply with plain JSON.stringify in
 * their own scope, rather than zod's serializer (set at the root, server.ts),
 * which would check every reply the registry built itself against its schema.
 * test/unit/daemon/openapi.test.ts parses live replies with the schemas
 * instead, to keep the two in step.
 */
const documentOnly: FastifySerializerCompiler<unknown> = () => JSON.stringify;

export const registryPlugin: FastifyPluginAsync<RegistryPluginOptions> = async (fastify, { registry }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.setSerializerCompiler(documentOnly);
  app.decorateRequest('principal', null);
  // /v1 takes JSON only: a text/plain body is 415, not a string handed to the schemas
  app.removeContentTypeParser('text/plain');
  // the key's auth, then (an unknown /v1 route being authenticated first: 401 before 404) the early 404 of an
  // unknown route whose body is still to come
  app.addHook('onRequest', async (req) => {
    req.principal = await authenticate(registry, req);
  });
  app.addHook('onRequest', unknownRouteEarly);
  app.setNotFoundHandler(notFound);
  designRoutes(app, registry);
  designActionRoutes(app, registry);
  domainRoutes(app, registry);
  domainStateRoutes(app, registry);
  proposalRoutes(app, registry);
};

/** POST /v1/sampling, the list of designs and one design. */
function designRoutes(app: App, registry: Registry): void {
  app.post(
    '/sampling',
    {
      schema: {
        tags: ['sampling'],
        summary: 'Compute and store a design',
        security,
        body: S.samplingBody,
        response: S.replies(201, S.designRecord),
      },
    },
    async (req, reply) => {
      const r = await registry.db.write(() =>
        // the body as sent (projectId and the inputs) is what an Idempotency-Key is bound to
        registry.idempotency.run(
          P(req),
          idemKey(req),
          'POST /v1/sampling',
          () => ({ projectId: req.body.projectId, ...req.body.input }),
          async () => designCreated(await registry.designs.create(P(req), req.body)),
        ),
      );
      return sendCreated(reply, r);
    },
  );
  app.get(
    '/sampling',
    {
      schema: {
        tags: ['sampling'],
        summary: 'List designs (paged)',
        security,
        querystring: S.samplingQuery,
        response: S.replies(200, S.designPage),
      },
    },
    async (req) => registry.designs.list(req.query),
  );
  app.get(
    '/sampling/:designId',
    {
      schema: {
        tags: ['sampling'],
        summary: 'Read a design',
        security,
        params: S.designParams,
        response: S.replies(200, S.designRecord),
      },
    },
    async (req) => registry.designs.get(req.params.designId),
  );
}

/** A design's recalculation and verification. */
function designActionRoutes(app: App, registry: Registry): void {
  app.post(
    '/sampling/:designId/recalculations',
    {
      schema: {
        tags: ['sampling'],
        summary: 'A new version from observed values',
        security,
        params: S.designParams,
        body: S.recalcBody,
        response: S.replies(201, S.designRecord),
      },
    },
    async (req, reply) => {
      const d = await registry.db.write(() => registry.designs.recalculate(P(req), req.params.designId, req.body));
      return sendCreated(reply, { ...designCreated(d), replayed: false });
    },
  );
  app.post(
    '/sampling/:designId/verification',
    {
      schema: {
        tags: ['sampling'],
        summary: 'Submit, approve or reject (verifier)',
        security,
        params: S.designParams,
        body: S.verificationBody,
        response: S.replies(200, S.designRecord),
      },
    },
    async (req) => registry.db.write(() => registry.designs.verify(P(req), req.params.designId, req.body)),
  );
}

/** Registering, listing and reading domains. */
function domainRoutes(app: App, registry: Registry): void {
  app.post(
    '/domains',
    {
      schema: {
        tags: ['domains'],
        summary: 'Register a domain',
        security,
        body: S.domainCreate,
        response: S.replies(201, S.domainView),
      },
    },
    async (req, reply) => {
      const r = await registry.db.write(() =>
        registry.idempotency.run(
          P(req),
          idemKey(req),
          'POST /v1/domains',
          () => req.body,
          async () => {
            const d = await registry.domains.create(P(req), req.body);
            return { status: 201, body: d, location: `/v1/domains/${d.id}` };
          },
        ),
      );
      reply.header('etag', etag(r.body.version));
      return sendCreated(reply, r);
    },
  );
  app.get(
    '/domains',
    {
      schema: {
        tags: ['domains'],
        summary: 'List domains (filters, cursor)',
        security,
        querystring: S.domainQuery,
        response: S.replies(200, S.domainPage),
      },
    },
    async (req) => registry.domains.list(req.query),
  );
  app.get(
    '/domains/:did',
    {
      schema: {
        tags: ['domains'],
        summary: 'Read a domain',
        security,
        params: S.didParams,
        response: S.replies(200, S.domainView),
      },
    },
    async (req, reply) => {
      const d = await registry.domains.get(req.params.did);
      reply.header('etag', etag(d.version));
      return d;
    },
  );
}

/** Changing a domain: its fields (If-Match), its deactivation, its verification proposals and state. */
function domainStateRoutes(app: App, registry: Registry): void {
  app.patch(
    '/domains/:did',
    {
      schema: {
        tags: ['domains'],
        summary: 'Change a domain (controllers; If-Match)',
        security,
        params: S.didParams,
        body: S.domainPatch,
        response: S.replies(200, S.domainView),
      },
    },
    async (req, reply) => {
      const im = req.headers['if-match'];
      const d = await registry.db.write(() =>
        registry.domains.patch(P(req), req.params.did, Array.isArray(im) ? im.join(',') : im, req.body),
      );
      reply.header('etag', etag(d.version));
      return d;
    },
  );
  app.post(
    '/domains/:did/deactivate',
    {
      schema: {
        tags: ['domains'],
        summary: 'Deactivate (terminal)',
        security,
        params: S.didParams,
        response: S.replies(200, S.domainView),
      },
    },
    async (req, reply) => {
      const d = await registry.db.write(() => registry.domains.deactivate(P(req), req.params.did));
      reply.header('etag', etag(d.version));
      return d;
    },
  );
  app.post(
    '/domains/:did/verification-proposals',
    {
      schema: {
        tags: ['proposals'],
        summary: 'Submit a verification proposal (representative)',
        security,
        params: S.didParams,
        body: S.proposalBody,
        response: S.replies(201, S.proposalView),
      },
    },
    async (req, reply) => {
      requireRole(P(req), 'representative', 'admin');
      const p = await registry.db.write(() => registry.proposals.propose(P(req), req.params.did, req.body));
      return reply.code(201).header('location', `/v1/proposals/${p.id}`).send(p);
    },
  );
  app.get(
    '/domains/:did/verification-proposals',
    {
      schema: {
        tags: ['proposals'],
        summary: "The domain's latest proposal (settled)",
        security,
        params: S.didParams,
        response: S.replies(200, S.domainProposal),
      },
    },
    async (req) => {
      const d = await registry.domains.get(req.params.did);
      return { domain: d, proposal: await registry.proposals.latestOf(d.id) };
    },
  );
}

/** Verification proposals and their votes. */
function proposalRoutes(app: App, registry: Registry): void {
  app.get(
    '/proposals/:id',
    {
      schema: {
        tags: ['proposals'],
        summary: 'Status, tally and rule',
        security,
        params: S.idParams,
        response: S.replies(200, S.proposalView),
      },
    },
    async (req) => registry.proposals.get(req.params.id),
  );
  app.post(
    '/proposals/:id/votes',
    {
      schema: {
        tags: ['proposals'],
        summary: 'Vote (voter in the snapshot)',
        security,
        params: S.idParams,
        body: S.voteBody,
        response: S.replies(200, S.proposalView),
      },
    },
    async (req) => {
      requireRole(P(req), 'voter');
      return registry.db.write(() => registry.proposals.vote(P(req), req.params.id, req.body));
    },
  );
}

/** The 201 of a design just stored: its record, and where to read it. */
function designCreated(d: DesignRecord): Created<DesignRecord> {
  return { status: 201, body: d, location: `/v1/sampling/${d.designId}` };
}

function sendCreated(reply: FastifyReply, r: Created<unknown> & { replayed: boolean }) {
  if (r.location) reply.header('location', r.location);
  if (r.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(r.status).send(r.body);
}

interface AdminPluginOptions {
  registry: Registry;
  token?: string;
}

/** /admin/v1/keys: create, list, revoke API keys (discovery token or an admin key). */
export const adminPlugin: FastifyPluginAsync<AdminPluginOptions> = async (fastify, { registry, token }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.setSerializerCompiler(documentOnly);
  app.addHook('onRequest', async (req) => {
    const presented = bearer(req);
    if (tokenMatches(token, presented)) return;
    if (!presented) throw registryError('unauthenticated', 'send Authorization: Bearer <discovery token or admin key>');
    const p = await registry.keys.authenticate(presented);
    if (!p) throw registryError('unauthenticated', 'the token or key is unknown or revoked');
    requireRole(p, 'admin');
  });
  app.addHook('onRequest', unknownRouteEarly);
  app.setNotFoundHandler(notFound);
  app.post(
    '/keys',
    {
      schema: {
        tags: ['admin'],
        summary: 'Create an API key (shown once)',
        security,
        body: S.keyCreateBody,
        response: S.replies(201, S.keyCreated),
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          await registry.db.write(() =>
            registry.keys.create(req.body.did, req.body.roles, req.body.label, req.body.proof),
          ),
        ),
  );
  app.get(
    '/keys',
    {
      schema: { tags: ['admin'], summary: 'List API keys (no secrets)', security, response: S.replies(200, S.keyList) },
    },
    async () => ({ items: await registry.keys.list() }),
  );
  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        tags: ['admin'],
        summary: 'Revoke an API key',
        security,
        params: S.idParams,
        response: S.replies(200, S.keyRevoked),
      },
    },
    async (req) => registry.db.write(() => registry.keys.revoke(req.params.id)),
  );
};
