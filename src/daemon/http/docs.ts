/** The OpenAPI document of the routes at /docs/json, and the swagger-ui page at /docs. */
import type { FastifyInstance } from 'fastify';

export async function installDocs(app: FastifyInstance, version: string): Promise<void> {
  const { jsonSchemaTransform } = await import('fastify-type-provider-zod');
  const swagger = (await import('@fastify/swagger')).default;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'oraclekit registry',
        version,
        description: 'Sample designs, domains, verification proposals and votes (registry.md).',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  const ui = (await import('@fastify/swagger-ui')).default;
  await app.register(ui, { routePrefix: '/docs' });
}
