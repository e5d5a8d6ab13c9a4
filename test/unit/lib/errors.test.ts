/**
 * toErrorBody: one code per fault, whatever the HTTP scope (a real fastify with zod's validator, as both scopes use).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HTTP_ERRORS, OracleKitError, toErrorBody } from '../../../src/lib/errors.ts';
import { REGISTRY_ERRORS } from '../../../src/lib/registry/errors.ts';
import { RUNTIME_ERRORS } from '../../../src/lib/protocol/errors.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify({ bodyLimit: 1024 });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((err, _req, reply) => {
    const b = toErrorBody(err);
    void reply.code(b.statusCode).send(b);
  });
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/things',
    {
      schema: {
        body: z.strictObject({ name: z.string().min(1) }),
        querystring: z.strictObject({ limit: z.string().regex(/^\d+$/).optional() }),
      },
    },
    async () => ({ ok: true }),
  );
  r.get('/boom', async () => {
    throw new Error('secret detail');
  });
  r.get('/refused', async () => {
    throw new OracleKitError({ status: 409, code: 'proposal_open', message: 'already open', field: 'did' });
  });
  await app.ready();
});
afterAll(() => app.close());

const post = (
  payload: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  url = '/things',
) => app.inject({ method: 'POST', url, payload, headers });

describe('toErrorBody', () => {
  it('JSON syntax, an empty JSON body and prototype poisoning are invalid_json', async () => {
    for (const body of [
      '{"name":',
      '',
      '{"name":"a","__proto__":{"x":1}}',
      '{"name":"a","constructor":{"prototype":{"x":1}}}',
    ]) {
      const r = await post(body);
      expect(r.json(), body).toMatchObject({ statusCode: 400, code: 'invalid_json' });
    }
  });

  it('schema faults name the field: invalid_body, unknown_field, invalid_query', async () => {
    expect((await post('{"name":""}')).json()).toMatchObject({ statusCode: 400, code: 'invalid_body', field: 'name' });
    expect((await post('{"name":"a","extra":1}')).json()).toMatchObject({
      statusCode: 400,
      code: 'unknown_field',
      field: 'extra',
    });
    expect((await post('{"name":"a"}', undefined, '/things?limit=x')).json()).toMatchObject({
      statusCode: 400,
      code: 'invalid_query',
      field: 'limit',
    });
  });

  it('limits and routes: body_too_large, unsupported_media_type, not_found', async () => {
    expect((await post(JSON.stringify({ name: 'a'.repeat(2000) }))).json()).toMatchObject({
      statusCode: 413,
      code: 'body_too_large',
    });
    expect((await post('name=a', { 'content-type': 'application/x-www-form-urlencoded' })).json()).toMatchObject({
      statusCode: 415,
      code: 'unsupported_media_type',
    });
    expect(toErrorBody(Object.assign(new Error('Route GET:/x not found'), { statusCode: 404 }))).toMatchObject({
      statusCode: 404,
      code: 'not_found',
    });
  });

  it('an OracleKitError keeps its body; a fault is internal_error without its message', async () => {
    expect((await app.inject({ method: 'GET', url: '/refused' })).json()).toEqual({
      statusCode: 409,
      code: 'proposal_open',
      message: 'already open',
      field: 'did',
    });
    const boom = (await app.inject({ method: 'GET', url: '/boom' })).json();
    expect(boom).toMatchObject({ statusCode: 500, code: 'internal_error' });
    expect(JSON.stringify(boom)).not.toContain('secret detail');
  });

  it('every code it gives is in both area tables with the same status', () => {
    for (const [code, { status }] of Object.entries(HTTP_ERRORS)) {
      expect(REGISTRY_ERRORS[code as keyof typeof REGISTRY_ERRORS]?.status, code).toBe(
        code === 'unauthenticated' ? 401 : code === 'rate_limited' ? 429 : status,
      );
      expect(RUNTIME_ERRORS[code as keyof typeof RUNTIME_ERRORS]?.status, code).toBe(status);
    }
  });
});
