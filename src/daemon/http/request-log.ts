/**
 * Request logging: fastify's own, through pino, one line per request — the
 * line fastify writes when a request completes ("request completed", or
 * "request errored" at error level), with the request's method and URL added
 * (`req`, fastify's serializer: method, url, host, remote address and port,
 * never a header), its `reqId`, `res.statusCode` and `responseTime` in ms.
 * fastify's "incoming request" line is not written.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(req)) return;
    const line = { req, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
