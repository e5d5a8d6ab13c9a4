/**
 * One MCP client (Streamable HTTP, the official @modelcontextprotocol/sdk)
 * shared by the memory, firecrawl and sandbox plugins.
 *
 * - connect(): initialize + tools/list (paged), within the connect time-out;
 * - call(): tools/call with the SDK's request time-out and the turn's abort
 *   signal; per-call headers (e.g. the user's DID for memory) and time-out are
 *   added by a fetch wrapper through AsyncLocalStorage, so one session serves
 *   every user;
 * - every request goes out through the package's one outbound path
 *   (fetchOutbound, src/lib/fetch-json.ts): its time-out until the server
 *   answers, and its message when no answer came;
 * - a server that went away: the call fails with a clear message and the
 *   connection is dropped, so the next call reconnects; a server that
 *   restarted (404 "session not found") is re-initialised and the call retried
 *   once — safe, because the old session never ran it.
 * Messages never carry the token or other headers.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
// The MCP SDK is imported on the first connect, so a runtime whose MCP plugins
// are all excluded never loads it (~30 MB of RSS in an idle daemon).
import type * as McpClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as McpHttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as McpTypesModule from '@modelcontextprotocol/sdk/types.js';
import { isOracleKitError } from '../../../lib/errors.ts';
import { fetchCause, fetchOutbound } from '../../../lib/fetch-json.ts';

type Client = McpClientModule.Client;
type StreamableHTTPClientTransport = McpHttpModule.StreamableHTTPClientTransport;
interface McpSdk {
  Client: typeof McpClientModule.Client;
  StreamableHTTPClientTransport: typeof McpHttpModule.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof McpHttpModule.StreamableHTTPError;
  McpError: typeof McpTypesModule.McpError;
  ErrorCode: typeof McpTypesModule.ErrorCode;
}
let sdk: McpSdk | undefined;
async function loadSdk(): Promise<McpSdk> {
  if (!sdk) {
    const [c, h, t] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    sdk = {
      Client: c.Client,
      StreamableHTTPClientTransport: h.StreamableHTTPClientTransport,
      StreamableHTTPError: h.StreamableHTTPError,
      McpError: t.McpError,
      ErrorCode: t.ErrorCode,
    };
  }
  return sdk;
}

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

interface McpClientOptions {
  /** Label in messages, e.g. "memory". */
  label: string;
  url: string;
  /** Bearer token for every request (never logged). */
  token?: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  clientName?: string;
}

/** The call in progress: its own headers and time-out. */
const callScope = new AsyncLocalStorage<{ headers: Record<string, string>; timeoutMs: number }>();

/**
 * Removes anything that looks like a credential from a message: the given
 * secrets, and the token after "Bearer" (RFC 6750's token68 characters). A
 * placeholder such as `Bearer <API key>` in a server's hint is no credential
 * and stays as it is.
 */
export function scrub(message: string, secrets: (string | undefined)[]): string {
  let m = message;
  for (const s of secrets) if (s && s.length >= 4) m = m.split(s).join('***');
  return m.replace(/(bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi, '$1***');
}

class McpToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpToolError';
  }
}

export class McpConnection {
  readonly opts: McpClientOptions;
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private toolList: McpToolInfo[] = [];
  serverInfo: { name: string; version: string } | undefined;

  constructor(opts: McpClientOptions) {
    this.opts = opts;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  get tools(): McpToolInfo[] {
    return this.toolList;
  }

  /** Who answers, in messages. */
  private get where(): string {
    return `the ${this.opts.label} MCP server (${new URL(this.opts.url).origin})`;
  }

  private describe(e: unknown, timeoutMs = this.opts.timeoutMs): string {
    const where = this.where;
    let msg: string;
    // errors come only from calls made after loadSdk()
    const { McpError, ErrorCode, StreamableHTTPError } = sdk!;
    if (e instanceof McpError && e.code === ErrorCode.RequestTimeout)
      msg = `${where} did not answer within ${timeoutMs} ms`;
    else if (e instanceof McpError && e.code === ErrorCode.ConnectionClosed) msg = `${where} closed the connection`;
    else if (e instanceof StreamableHTTPError) msg = `${where} answered HTTP ${e.code}: ${e.message}`;
    else if (e instanceof McpError) msg = `${where} returned an error: ${e.message}`;
    else if (isOracleKitError(e))
      msg = e.message; // no answer (fetchOutbound): it names the server
    else {
      const err = e as { message?: string };
      const cause = fetchCause(e);
      msg = `${where} is unreachable: ${err?.message ?? String(e)}${cause ? ` (${cause})` : ''}`;
    }
    return scrub(msg, [this.opts.token]);
  }

  private transport(): StreamableHTTPClientTransport {
    const base: Record<string, string> = {};
    if (this.opts.token) base.authorization = `Bearer ${this.opts.token}`;
    const fetchWithHeaders = (input: string | URL, init?: RequestInit) => {
      const h = new Headers(init?.headers);
      for (const [k, v] of Object.entries(base)) if (!h.has(k)) h.set(k, v);
      const call = callScope.getStore();
      for (const [k, v] of Object.entries(call?.headers ?? {})) h.set(k, v);
      const timeoutMs = call?.timeoutMs ?? this.opts.timeoutMs;
      return fetchOutbound(input, { ...init, headers: h }, { what: this.where, timeoutMs });
    };
    return new sdk!.StreamableHTTPClientTransport(new URL(this.opts.url), {
      fetch: fetchWithHeaders,
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
  }

  /** Connects (initialize + tools/list) unless connected; concurrent callers share one attempt. */
  async connect(): Promise<Client> {
    if (this.client) return this.client;
    if (!this.connecting) {
      this.connecting = (async () => {
        const { Client } = await loadSdk();
        const client = new Client({ name: this.opts.clientName ?? `oraclekit-${this.opts.label}`, version: '1.0.0' });
        client.onerror = () => {}; // surfaced per call
        const timeout = this.opts.connectTimeoutMs ?? this.opts.timeoutMs;
        try {
          await client.connect(this.transport(), { timeout });
          const tools: McpToolInfo[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 50; page++) {
            const r = await client.listTools(cursor ? { cursor } : undefined, { timeout });
            for (const t of r.tools)
              tools.push({
                name: t.name,
                description: t.description ?? '',
                inputSchema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
              });
            cursor = r.nextCursor;
            if (!cursor) break;
          }
          this.toolList = tools;
          const v = client.getServerVersion();
          this.serverInfo = v ? { name: v.name, version: v.version } : undefined;
          this.client = client;
          return client;
        } catch (e) {
          await client.close().catch(() => {});
          throw new McpToolError(this.describe(e), { cause: e });
        }
      })().finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /** Drops the connection (the next call reconnects). */
  async reset(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await c.close().catch(() => {});
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (!c) return;
    const t = c.transport as StreamableHTTPClientTransport | undefined;
    await Promise.race([t?.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 500).unref())]);
    await c.close().catch(() => {});
  }

  /**
   * Calls a tool. Returns the tool's result as data for the model; a tool
   * error (isError) or a transport failure throws an McpToolError with a clear
   * message (no stack, no secrets).
   */
  async call(
    name: string,
    args: Record<string, unknown>,
    o: { signal?: AbortSignal; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const timeout = o.timeoutMs ?? this.opts.timeoutMs;
    const attempt = async (): Promise<unknown> => {
      const client = await this.connect();
      return callScope.run({ headers: o.headers ?? {}, timeoutMs: timeout }, () =>
        client.callTool({ name, arguments: args }, undefined, { timeout, signal: o.signal }),
      );
    };
    let result: unknown;
    try {
      result = await attempt();
    } catch (e) {
      if (e instanceof McpToolError) throw e; // connect failed: already described
      if (o.signal?.aborted) throw new McpToolError(`the ${this.opts.label} tool ${name} was aborted`, { cause: e });
      const sessionLost =
        e instanceof sdk!.StreamableHTTPError && (e.code === 404 || e.code === 400) && /session/i.test(e.message);
      await this.reset();
      if (!sessionLost) throw new McpToolError(this.describe(e, timeout), { cause: e });
      try {
        result = await attempt();
      } catch (e2) {
        if (!(e2 instanceof McpToolError)) await this.reset();
        throw e2 instanceof McpToolError ? e2 : new McpToolError(this.describe(e2, timeout), { cause: e2 });
      }
    }
    return toolOutput(this.opts.label, name, result);
  }
}

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

/** Turns a CallToolResult into data for the model; isError → throw. */
export function toolOutput(label: string, name: string, result: unknown): unknown {
  const r = (result ?? {}) as {
    content?: ContentBlock[];
    structuredContent?: unknown;
    isError?: boolean;
    toolResult?: unknown;
  };
  if (r.toolResult !== undefined && r.content === undefined) return r.toolResult; // legacy servers
  const parts = (r.content ?? []).map((c) => {
    if (c.type === 'text') return c.text ?? '';
    if (c.type === 'resource') return c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`;
    if (c.type === 'resource_link') return `[resource ${c.uri ?? ''}]`;
    return `[${c.type}${c.mimeType ? ` ${c.mimeType}` : ''} omitted]`;
  });
  const text = parts.join('\n');
  if (r.isError) throw new McpToolError(`${label} tool ${name} failed: ${text || 'no details'}`);
  if (r.structuredContent !== undefined) return r.structuredContent;
  if (parts.length === 1 && /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}
