/**
 * The daemon's /docs without its optional package @fastify/swagger-ui (the global CLI does not install it): the
 * OpenAPI document at /docs/json as ever, and a plain page of it at /docs naming the package of the interactive one.
 * With the package (a devDependency here), /docs is swagger-ui's page: test/unit/daemon/api.test.ts.
 */
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { installDocs } from '../../../src/daemon/http/docs.ts';

describe('/docs without @fastify/swagger-ui', () => {
  it('serves the document and a plain page of its operations that names the package', async () => {
    const app = Fastify({ ignoreTrailingSlash: true });
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await installDocs(app, '9.9.9', '@oraclekit/not-installed-here');
    app.get('/v1/things/:id', {
      schema: { summary: 'One <thing>', params: z.object({ id: z.string() }) },
      handler: async () => ({}),
    });
    await app.ready();
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { version: '9.9.9' } });
    expect(Object.keys(doc.paths)).toEqual(['/v1/things/{id}']);
    for (const url of ['/docs', '/docs/']) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain(
        '<td><code>GET</code></td><td><code>/v1/things/{id}</code></td><td>One &lt;thing&gt;</td>',
      );
      expect(page.body).toContain('npm install -g @oraclekit/not-installed-here');
    }
    await app.close();
  });
});
