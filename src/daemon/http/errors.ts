/**
 * The daemon's error handler: every error — the registry's and the sampling
 * engine's OracleKitErrors, fastify/zod validation, JSON syntax and
 * prototype poisoning, body too large, unsupported media type, rate limit,
 * unknown routes, and faults — leaves as {statusCode, code, message, field?,
 * details?}, mapped by the one `toErrorBody` of src/lib/errors.ts (the oracle
 * runtime's routes use the same one).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorBody } from '../../lib/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const b = toErrorBody(err);
    if (b.statusCode >= 500) req.log.error({ err }, 'request failed');
    else req.log.info({ code: b.code, statusCode: b.statusCode }, 'request refused');
    if (b.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="oraclekit"');
    void reply.code(b.statusCode).type('application/json; charset=utf-8').send(b);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(registryError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`, { details: { method: req.method } }).toBody());
  });
}
