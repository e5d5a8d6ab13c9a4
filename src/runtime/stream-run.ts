/**
 * Streams a run as SSE (protocol.md, "SSE stream"): headers flushed at once,
 * frames `id/event/data`, a `: heartbeat` comment every heartbeatMs, the
 * response ends after `done`. A client that goes away only unsubscribes.
 */
import type { FastifyReply } from 'fastify';
import { encodeFrame, HEARTBEAT_FRAME, type AnyEvent } from '../lib/protocol/index.ts';
import type { Run } from './run.ts';

export function streamRun(
  reply: FastifyReply,
  o: { run?: Run; stored?: AnyEvent[]; after: number; heartbeatMs: number; resumed?: boolean; partialLength?: number },
): void {
  const raw = reply.raw;
  const requestId =
    o.run?.requestId ??
    (o.stored?.find((e) => e.event === 'run')?.data as { requestId?: string } | undefined)?.requestId ??
    '';
  const runId =
    o.run?.runId ?? (o.stored?.find((e) => e.event === 'run')?.data as { runId?: string } | undefined)?.runId ?? '';
  reply.hijack();
  const headers: Record<string, string | string[] | number> = {};
  for (const [k, v] of Object.entries(reply.getHeaders()))
    if (v !== undefined) headers[k] = v as string | string[] | number;
  raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
    'x-run-id': runId,
  });
  raw.flushHeaders();
  raw.socket?.setNoDelay(true);
  let closed = false;
  const end = () => {
    if (closed) return;
    closed = true;
    clearInterval(hb);
    unsubscribe();
    raw.end();
  };
  const hb = setInterval(() => {
    if (!closed) raw.write(HEARTBEAT_FRAME);
  }, o.heartbeatMs);
  hb.unref();
  // Node's http corks the socket on a write and uncorks it on the next tick,
  // so frames written in one burst (e.g. the AI SDK's stream pipeline
  // draining a buffer of model chunks in one microtask chain) leave together
  // in one write. The first frame of a burst must not wait for the rest (the
  // first token would leave with the last): it is flushed at once.
  let inBurst = false;
  const endBurst = () => {
    inBurst = false;
  };
  const write = (e: AnyEvent) => {
    if (closed) return;
    raw.write(encodeFrame(e));
    if (!inBurst) {
      inBurst = true;
      process.nextTick(endBurst);
      const socket = raw.socket;
      while (socket && socket.writableCorked > 0) socket.uncork();
    }
    if (e.event === 'done') setImmediate(end);
  };
  if (o.resumed) {
    raw.write(
      encodeFrame({
        id: o.after,
        event: 'run',
        data: { runId, requestId, resumed: true, partialLength: o.partialLength ?? 0 },
      }),
    );
  }
  let unsubscribe: () => void = () => {};
  if (o.run) unsubscribe = o.run.subscribe(o.after, write);
  else {
    for (const e of o.stored ?? []) write(e);
    if (!(o.stored ?? []).some((e) => e.event === 'done')) setImmediate(end);
  }
  raw.on('close', () => {
    closed = true;
    clearInterval(hb);
    unsubscribe();
  });
}
