/**
 * Public reads of the registry (registry.md "Public reads"): the public part
 * of a domain record — its services, type, class and state — for anyone,
 * without an API key and with CORS open to every origin, so that a web page
 * can resolve an oracle's DID to its URL. Everything else in /v1 keeps its
 * key. The route sits in its own scope, outside the /v1 auth hook; the
 * daemon's rate limit (per client address) still applies.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { publicView } from '../../lib/registry/domain.ts';
import type { Registry } from '../registry/index.ts';
import * as S from './schemas.ts';

interface PublicPluginOptions {
  registry: Registry;
}

export const publicPlugin: FastifyPluginAsync<PublicPluginOptions> = async (fastify, { registry }) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // every reply of this scope, errors included, may be read by any page: it carries nothing private
  app.addHook('onSend', async (_req, reply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', 'x-request-id');
  });
  app.options('/domains/:did', { schema: { hide: true } }, async (_req, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, OPTIONS')
      .header('access-control-allow-headers', 'accept, content-type, authorization, x-request-id')
      .header('access-control-max-age', '600');
  });
  app.get(
    '/domains/:did',
    {
      schema: {
        tags: ['domains'],
        summary: 'Read the public part of a domain (services, type, state); no key, any origin',
        params: S.didParams,
      },
    },
    async (req) => publicView(await registry.domains.get(req.params.did)),
  );
};
