/**
 * The one error handler of the daemon: every error — the registry's and the
 * sampling engine's OracleKitErrors, fastify/zod validation, JSON syntax and
 * prototype poisoning, body too large, unsupported media type, rate limit,
 * unknown routes, and faults — leaves as {statusCode, code, message, field?,
 * details?} with the codes of src/lib/registry/errors.ts.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isOracleKitError, type ErrorBody } from '../../lib/errors.ts';
import { REGISTRY_ERRORS, type RegistryErrorCode } from '../../lib/registry/errors.ts';

function body(code: RegistryErrorCode, message: string, extra: Partial<ErrorBody> = {}): ErrorBody {
  return { statusCode: REGISTRY_ERRORS[code].status, code, message, ...extra };
}

interface ValidationItem {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

export function toErrorBody(err: FastifyError & { validation?: ValidationItem[]; validationContext?: string }): ErrorBody {
  if (isOracleKitError(err)) return err.toBody();
  if (Array.isArray(err.validation) && err.validation.length > 0) {
    const v = err.validation[0]!;
    const path = (v.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
    const ctx = err.validationContext ?? 'body';
    if (v.keyword === 'unrecognized_keys') {
      const keys = (v.params?.keys as string[] | undefined) ?? [];
      const field = [path, keys[0]].filter(Boolean).join('.');
      return body('unknown_field', `${ctx} field ${field} is not known`, { field, details: { unknown: keys } });
    }
    const code: RegistryErrorCode = ctx === 'querystring' ? 'invalid_query' : ctx === 'headers' ? 'invalid_header' : 'invalid_body';
    const field = path || ctx;
    return body(code, `${field}: ${v.message ?? 'invalid'}`, { field, details: { issues: err.validation.slice(0, 5).map((i) => ({ path: i.instancePath, message: i.message })) } });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return body('body_too_large', 'the request body is over the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return body('unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return body('invalid_body', 'the body is empty; send a JSON object (or no Content-Type)');
  }
  const status = err.statusCode ?? 500;
  if (status === 429) return body('rate_limited', err.message || 'too many requests; slow down');
  if (status === 404) return body('not_found', err.message || 'not found');
  if (status === 413) return body('body_too_large', 'the request body is over the limit');
  if (status === 415) return body('unsupported_media_type', 'send the body as application/json');
  if (status >= 400 && status < 500) {
    // JSON syntax errors, __proto__/constructor poisoning, bad headers …
    const code: RegistryErrorCode = status === 400 ? 'invalid_body' : status === 401 ? 'unauthenticated' : status === 403 ? 'forbidden_role' : 'invalid_body';
    return { statusCode: status, code, message: err.message };
  }
  return body('internal', 'internal error; see the daemon log with the request id');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const b = toErrorBody(err);
    if (b.statusCode >= 500) req.log.error({ err }, 'request failed');
    else req.log.info({ code: b.code, statusCode: b.statusCode }, 'request refused');
    if (b.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="oraclekit"');
    void reply.code(b.statusCode).type('application/json; charset=utf-8').send(b);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(body('not_found', `no route ${req.method} ${req.url.split('?')[0]}`, { details: { method: req.method } }));
  });
}
