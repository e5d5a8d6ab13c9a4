/**
 * The OpenAPI document of the routes at /docs/json, and a page at /docs: swagger-ui's (try a request from the page)
 * when its package @fastify/swagger-ui is installed beside oraclekit, an optional package like the runtime's
 * (plugins/packaged.ts) that the CLI does not install (11 MB); else a plain page of the same document (each
 * operation, its summary, a link to the JSON) saying which package gives the interactive one.
 */
import type { FastifyInstance } from 'fastify';
import { packageInstalled } from '../../runtime/plugins/packaged.ts';

export const DOCS_UI_PACKAGE = '@fastify/swagger-ui';

interface Operation {
  summary?: string;
  description?: string;
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The plain page: every operation of the document, by path, with its summary. */
function plainPage(
  doc: { info?: { title?: string; version?: string }; paths?: Record<string, unknown> },
  ui: string,
): string {
  const rows: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths ?? {}))
    for (const [method, op] of Object.entries(ops as Record<string, Operation>))
      rows.push(
        `<tr><td><code>${escape(method.toUpperCase())}</code></td><td><code>${escape(path)}</code></td>` +
          `<td>${escape(op.summary ?? op.description ?? '')}</td></tr>`,
      );
  const title = escape(`${doc.info?.title ?? 'API'} ${doc.info?.version ?? ''}`.trim());
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>` +
    `<h1>${title}</h1><p>The OpenAPI document: <a href="/docs/json">/docs/json</a>. For the interactive page, ` +
    `install its package beside oraclekit: <code>npm install -g ${ui}</code> (or, in a project, ` +
    `<code>npm install ${ui}</code>).</p>` +
    `<table><thead><tr><th>method</th><th>path</th><th>summary</th></tr></thead><tbody>${rows.join('')}` +
    `</tbody></table></body></html>`
  );
}

export async function installDocs(app: FastifyInstance, version: string, ui = DOCS_UI_PACKAGE): Promise<void> {
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
  if (packageInstalled(ui)) {
    const swaggerUi = ((await import(ui)) as { default: Parameters<FastifyInstance['register']>[0] }).default;
    await app.register(swaggerUi, { routePrefix: '/docs' });
    return;
  }
  app.get('/docs/json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').send(plainPage(app.swagger() as Parameters<typeof plainPage>[0], ui)),
  );
}
