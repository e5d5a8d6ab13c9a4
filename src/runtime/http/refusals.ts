/**
 * What is refused before there is a route: the router's refusals (bad
 * percent-encoding, a path parameter over maxParamLength) and Node's HTTP
 * parser's (headers over 16 KiB, malformed HTTP, the request timeout). Both
 * get the one error body and a request id, not fastify's own
 * {error, code: FST_ERR_…} or an empty reply; the parser's close the
 * connection. They are fastify server options (server.ts).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toErrorBody } from '../../lib/errors.ts';
import { unreadBody } from './limits.ts';

/** fastify's `frameworkErrors`: the router's refusals. */
export function frameworkErrors(err: Error, req: FastifyRequest, reply: FastifyReply): void {
  const b = toErrorBody(err);
  req.log.info({ code: b.code, statusCode: b.statusCode }, 'request refused');
  if (unreadBody(req)) reply.header('connection', 'close');
  void reply.code(b.statusCode).header('x-request-id', req.id).type('application/json; charset=utf-8').send(b);
}

/** fastify's `clientErrorHandler`: the HTTP parser's refusals, answered on the socket, which is then closed. */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const b = toErrorBody(err);
  const id = randomUUID();
  this.log.info({ reqId: id, code: b.code, statusCode: b.statusCode }, 'request refused');
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || started) {
    socket.destroy();
    return;
  }
  const json = JSON.stringify(b);
  const head = [
    `HTTP/1.1 ${b.statusCode} ${STATUS_CODES[b.statusCode] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-Id: ${id}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${json}`, () => socket.destroy());
}
