/**
 * The Node side's outbound transport: undici's fetch on one dispatcher with a time-out for each phase and
 * keep-alive, so no upstream can hold a socket forever and repeated calls to one host reuse their connections.
 * `installOutboundTransport` makes it the transport of the one outbound helper (lib/fetch-json.ts: fetchJson,
 * fetchOk, fetchOutbound) for the whole process; the runtime and the daemon install it when they start. The browser
 * client keeps the platform's fetch.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { setOutboundTransport } from '../lib/fetch-json.ts';

/** The dispatcher's time limits (milliseconds). */
export interface OutboundTimeouts {
  /** TCP and TLS connect. */
  connectMs: number;
  /** From the request sent to the reply's status and headers. */
  headersMs: number;
  /** Between two chunks of the reply's body (a stream that falls silent this long is cut). */
  bodyMs: number;
  /** How long an idle kept-alive connection stays open for the next call. */
  keepAliveMs: number;
}

export const OUTBOUND_TIMEOUTS: OutboundTimeouts = {
  connectMs: 10_000,
  headersMs: 60_000,
  bodyMs: 300_000,
  keepAliveMs: 10_000,
};

/** An undici dispatcher with these limits and keep-alive. */
export function outboundDispatcher(t: Partial<OutboundTimeouts> = {}): Agent {
  const o = { ...OUTBOUND_TIMEOUTS, ...t };
  return new Agent({
    connect: { timeout: o.connectMs },
    headersTimeout: o.headersMs,
    bodyTimeout: o.bodyMs,
    keepAliveTimeout: o.keepAliveMs,
    keepAliveMaxTimeout: Math.max(o.keepAliveMs, 60_000),
  });
}

/**
 * A fetch that sends through `dispatcher`. A body of the platform's FormData (a speech service's upload) is encoded
 * by the platform first: undici's own fetch does not recognise another undici's FormData and would send its
 * `[object FormData]` text without the multipart boundary.
 */
export function outboundFetch(dispatcher: Agent): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    let o: RequestInit = init ?? {};
    if (o.body instanceof FormData) {
      const encoded = new Response(o.body);
      const headers = new Headers(o.headers);
      headers.set('content-type', encoded.headers.get('content-type')!);
      o = { ...o, headers, body: await encoded.arrayBuffer() };
    }
    return undiciFetch(input as never, { ...(o as object), dispatcher } as never);
  }) as unknown as typeof fetch;
}

let installed: Agent | undefined;

/** Makes the dispatcher the transport of the process's outbound helper (once; later calls keep the first). */
export function installOutboundTransport(): Agent {
  if (!installed) {
    installed = outboundDispatcher();
    setOutboundTransport(outboundFetch(installed));
  }
  return installed;
}
