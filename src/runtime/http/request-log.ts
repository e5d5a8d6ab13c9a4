/**
 * The request line of every server the package builds (server.ts: the daemon's and createOracleApp's), one pino
 * line per request when it completes: `{"msg":"request", reqId, method, path, status, ms}`, at info, or warn for a
 * 5xx. The path goes without its query string: a query may carry a key (`?api_key=`), and a query is never logged.
 * No header is logged. fastify's "incoming request" line is not written.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** A request's path without its query string (what the request line and error messages show). */
export function pathOf(url: string): string {
  const q = url.search(/[?#]/);
  return q < 0 ? url : url.slice(0, q);
}

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(_error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(req)) return;
    const status = reply.statusCode;
    const line = { method: req.method, path: pathOf(req.url), status, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (status >= 500) reply.log.warn(line, 'request');
    else reply.log.info(line, 'request');
  }
}
