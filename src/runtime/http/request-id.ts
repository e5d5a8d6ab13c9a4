/**
 * Request ids: every request gets one, fastify's `req.id`, bound to its log
 * lines and sent back as X-Request-Id. The caller's X-Request-Id is used when
 * it is 1 to 128 of [A-Za-z0-9._:-] (so it is safe in a header and a log
 * line); otherwise, and for what Node's HTTP parser refuses before there is a
 * request, a random UUID.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

/** fastify's `genReqId`: the caller's X-Request-Id when sane, else a random UUID. */
export function genReqId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && SANE.test(h) ? h : randomUUID();
}

/** Sends X-Request-Id on every reply (set first thing, so a refusal carries it too). */
export function echoRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
}
