/**
 * The daemon's error handler: every error — the registry's and the sampling
 * engine's OracleKitErrors, fastify/zod validation, JSON syntax and
 * prototype poisoning, body too large or too deep, unsupported media type,
 * rate limit, unknown routes, and faults — leaves as {statusCode, code,
 * message, field?, details?} with X-Request-Id, mapped by the one
 * `toErrorBody` of src/lib/errors.ts (the oracle runtime's routes use the
 * same one). What the router and Node's HTTP parser refuse before there is a
 * route (bad URL encoding, a path parameter too long, headers too large, a
 * request timeout) gets the same body in refusals.ts.
 *
 * A reply sent before the request's body was read (401, 404, 429 …) closes
 * the connection (`Connection: close`): the server does not read and discard
 * a body nobody will use, for as long as the client cares to send it.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { toErrorBody } from '../../lib/errors.ts';
import { registryError } from '../../lib/registry/errors.ts';
import { unreadBody } from './limits.ts';

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const b = toErrorBody(err);
    if (b.statusCode >= 500) req.log.error({ err }, 'request failed');
    else req.log.info({ code: b.code, statusCode: b.statusCode }, 'request refused');
    if (b.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="oraclekit"');
    if (unreadBody(req)) reply.header('connection', 'close');
    void reply.code(b.statusCode).type('application/json; charset=utf-8').send(b);
  });
  app.setNotFoundHandler(notFound);
}

const notFoundError = (req: FastifyRequest) =>
  registryError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`, { details: { method: req.method } });

/**
 * 404 not_found; set at the root, and in /v1 and /admin/v1 so that their auth hook answers first (no unauthenticated route probing). */
export function notFound(req: FastifyRequest, reply: FastifyReply): void {
  if (unreadBody(req)) reply.header('connection', 'close');
  void reply.code(404).send(notFoundError(req).toBody());
}

/**
 * An onRequest hook after the auth of /v1 and /admin/v1: an unknown route
 * whose body is still to come is answered 404 at once (and the connection
 * closed) rather than after fastify has read the body for the 404 handler.
 */
export function unknownRouteEarly(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (req.is404 && unreadBody(req)) return done(notFoundError(req));
  done();
}
