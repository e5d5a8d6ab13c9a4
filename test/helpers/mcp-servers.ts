/**
 * Real MCP servers for tests, built with the official SDK (McpServer +
 * StreamableHTTPServerTransport, stateful sessions) on 127.0.0.1:
 * - a memory server (search_memory_engine, add_memory; memories per user,
 *   keyed by the x-user-did header the client sends),
 * - a web-crawl server shaped like firecrawl-mcp (firecrawl_search,
 *   firecrawl_scrape, firecrawl_crawl),
 * - a sandbox (run_code in a node:vm context with a time limit, read_file,
 *   write_file, list_files on an in-memory file system),
 * each with `slow` (waits, for time-outs and servers that go away mid-call).
 * stop() kills the server (connections destroyed, port closed); start()
 * brings it back on the same port as a new process would (old sessions are
 * unknown → 404).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

interface ToolCallRecord {
  tool: string;
  args: unknown;
  headers: Record<string, string | string[] | undefined>;
}

interface TestMcpServer {
  url: string;
  port: number;
  /** Every tools/call received, with the HTTP headers of its request. */
  calls: ToolCallRecord[];
  /** Every HTTP request's headers (initialize, list, calls). */
  requestHeaders: Record<string, string | string[] | undefined>[];
  /** Kills the server: in-flight requests are cut, the port is closed. */
  stop(): Promise<void>;
  /** Starts again on the same port with no sessions (a restarted process). */
  start(): Promise<void>;
  close(): Promise<void>;
}

type Register = (
  server: McpServer,
  record: (
    tool: string,
    args: unknown,
    extra: { requestInfo?: { headers?: Record<string, string | string[] | undefined> } },
  ) => void,
) => void;

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      r();
    });
  });

export async function startMcpServer(
  name: string,
  register: Register,
  opts: { port?: number; requireToken?: string } = {},
): Promise<TestMcpServer> {
  const calls: ToolCallRecord[] = [];
  const requestHeaders: TestMcpServer['requestHeaders'] = [];
  let transports = new Map<string, StreamableHTTPServerTransport>();
  const build = () => {
    const server = new McpServer({ name, version: '1.0.0' });
    server.registerTool(
      'slow',
      { description: 'Waits ms milliseconds, then answers.', inputSchema: { ms: z.number().int().min(0) } },
      async ({ ms }, extra) => {
        calls.push({ tool: 'slow', args: { ms }, headers: extra.requestInfo?.headers ?? {} });
        await sleep(ms, extra.signal);
        return text(`waited ${ms} ms`);
      },
    );
    register(server, (tool, args, extra) => calls.push({ tool, args, headers: extra.requestInfo?.headers ?? {} }));
    return server;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    requestHeaders.push(req.headers);
    if (opts.requireToken && req.headers.authorization !== `Bearer ${opts.requireToken}`) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Unauthorized' }, id: null }));
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      let raw = '';
      for await (const c of req) raw += c;
      body = raw ? JSON.parse(raw) : undefined;
    }
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? transports.get(sid) : undefined;
    if (!t) {
      if (typeof sid === 'string') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
            id: null,
          }),
        );
        return;
      }
      const map = transports;
      const nt: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void map.set(id, nt),
      });
      nt.onclose = () => {
        if (nt.sessionId) map.delete(nt.sessionId);
      };
      await build().connect(nt);
      t = nt;
    }
    await t.handleRequest(req, res, body);
  };
  let http: Server | undefined;
  let port = opts.port ?? 0;
  const self: TestMcpServer = {
    url: '',
    port: 0,
    calls,
    requestHeaders,
    async start() {
      transports = new Map();
      http = createServer((req, res) => {
        handle(req, res).catch((e: unknown) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(e) }, id: null }));
        });
      });
      await new Promise<void>((r) => http!.listen(port, '127.0.0.1', r));
      port = (http.address() as AddressInfo).port;
      self.port = port;
      self.url = `http://127.0.0.1:${port}/mcp`;
    },
    async stop() {
      const h = http;
      http = undefined;
      if (!h) return;
      for (const t of transports.values()) await t.close().catch(() => {});
      h.closeAllConnections();
      await new Promise<void>((r) => h.close(() => r()));
    },
    async close() {
      await self.stop();
    },
  };
  await self.start();
  return self;
}

/** A memory server: memories per user (x-user-did header). */
export async function startMemoryMcpServer(opts: { requireToken?: string } = {}) {
  const memories = new Map<string, { id: string; content: string }[]>();
  const userOf = (h: Record<string, string | string[] | undefined> | undefined) => String(h?.['x-user-did'] ?? '');
  const server = await startMcpServer(
    'test-memory-engine',
    (s, record) => {
      s.registerTool(
        'search_memory_engine',
        {
          description: "Search the user's memories for facts relevant to a query.",
          inputSchema: {
            query: z.string().describe('what to look for'),
            limit: z.number().int().min(1).max(20).optional(),
          },
        },
        async (args, extra) => {
          record('search_memory_engine', args, extra);
          const user = userOf(extra.requestInfo?.headers);
          if (!user)
            return { content: [{ type: 'text', text: 'no user identity (x-user-did) on the request' }], isError: true };
          const words = args.query
            .toLowerCase()
            .split(/\W+/)
            .filter((w) => w.length > 2);
          const found = (memories.get(user) ?? []).filter(
            (m) => words.length === 0 || words.some((w) => m.content.toLowerCase().includes(w)),
          );
          return text(JSON.stringify({ memories: found.slice(0, args.limit ?? 10) }));
        },
      );
      s.registerTool(
        'add_memory',
        { description: 'Remember a fact about the user.', inputSchema: { content: z.string().min(1) } },
        async (args, extra) => {
          record('add_memory', args, extra);
          const user = userOf(extra.requestInfo?.headers);
          if (!user)
            return { content: [{ type: 'text', text: 'no user identity (x-user-did) on the request' }], isError: true };
          const list = memories.get(user) ?? [];
          const m = { id: `mem_${list.length + 1}`, content: args.content };
          memories.set(user, [...list, m]);
          return text(JSON.stringify({ ok: true, id: m.id }));
        },
      );
      s.registerTool(
        'delete_episode',
        { description: 'Delete a memory by id.', inputSchema: { id: z.string() } },
        async (args, extra) => {
          record('delete_episode', args, extra);
          const user = userOf(extra.requestInfo?.headers);
          const list = memories.get(user) ?? [];
          if (!list.some((m) => m.id === args.id))
            return { content: [{ type: 'text', text: `no memory ${args.id}` }], isError: true };
          memories.set(
            user,
            list.filter((m) => m.id !== args.id),
          );
          return text(JSON.stringify({ ok: true }));
        },
      );
    },
    opts,
  );
  return Object.assign(server, { memories });
}

/** A web-crawl server shaped like firecrawl-mcp. */
export async function startFirecrawlMcpServer() {
  const pages: Record<string, { title: string; markdown: string }> = {
    'https://example.org/stoves': {
      title: 'Clean cookstoves',
      markdown: '# Clean cookstoves\nImproved stoves cut fuel use by 40 %.',
    },
    'https://example.org/fuel': {
      title: 'Fuel savings',
      markdown: '# Fuel savings\nCharcoal use fell from 3 kg to 1.8 kg a day.',
    },
  };
  return startMcpServer('test-firecrawl', (s, record) => {
    s.registerTool(
      'firecrawl_search',
      {
        description: 'Search the web and return results with their URLs and snippets.',
        inputSchema: { query: z.string().min(1), limit: z.number().int().min(1).max(10).optional() },
      },
      async (args, extra) => {
        record('firecrawl_search', args, extra);
        const q = args.query.toLowerCase();
        const results = Object.entries(pages)
          .filter(([, p]) => p.markdown.toLowerCase().includes(q.split(' ')[0]!))
          .slice(0, args.limit ?? 5)
          .map(([url, p]) => ({ url, title: p.title, description: p.markdown.split('\n')[1] }));
        return text(JSON.stringify({ success: true, data: results }));
      },
    );
    s.registerTool(
      'firecrawl_scrape',
      {
        description: 'Scrape one URL and return its content as markdown.',
        inputSchema: { url: z.string().url(), formats: z.array(z.enum(['markdown', 'html'])).optional() },
      },
      async (args, extra) => {
        record('firecrawl_scrape', args, extra);
        const p = pages[args.url];
        if (!p)
          return {
            content: [{ type: 'text', text: `Failed to scrape ${args.url}: HTTP 404 Not Found` }],
            isError: true,
          };
        return text(p.markdown);
      },
    );
    s.registerTool(
      'firecrawl_crawl',
      { description: 'Crawl a whole site (long-running).', inputSchema: { url: z.string() } },
      async (args, extra) => {
        record('firecrawl_crawl', args, extra);
        return text('crawl started');
      },
    );
  });
}

/** A sandbox: JavaScript in a node:vm context (time limit), files in memory. */
export async function startSandboxMcpServer() {
  const files = new Map<string, string>();
  const server = await startMcpServer('test-sandbox', (s, record) => {
    s.registerTool(
      'run_code',
      {
        description:
          'Run JavaScript in the sandbox; console.log output and the value of the last expression are returned.',
        inputSchema: { language: z.enum(['javascript']), code: z.string() },
      },
      async (args, extra) => {
        record('run_code', args, extra);
        const out: string[] = [];
        try {
          const value: unknown = runInNewContext(
            args.code,
            {
              console: { log: (...a: unknown[]) => out.push(a.map(String).join(' ')) },
              readFile: (p: string) => files.get(p),
            },
            { timeout: 500 },
          );
          return {
            content: [
              {
                type: 'text',
                text: JSON.stringify({ stdout: out.join('\n'), result: value === undefined ? null : value }),
              },
            ],
          };
        } catch (e) {
          return {
            content: [
              { type: 'text', text: `${(e as Error).name}: ${(e as Error).message}\n${out.join('\n')}`.trim() },
            ],
            isError: true,
          };
        }
      },
    );
    s.registerTool(
      'write_file',
      {
        description: 'Write a text file in the sandbox.',
        inputSchema: { path: z.string().min(1), content: z.string() },
      },
      async (args, extra) => {
        record('write_file', args, extra);
        files.set(args.path, args.content);
        return text(JSON.stringify({ ok: true, path: args.path, bytes: Buffer.byteLength(args.content) }));
      },
    );
    s.registerTool(
      'read_file',
      { description: 'Read a text file of the sandbox.', inputSchema: { path: z.string().min(1) } },
      async (args, extra) => {
        record('read_file', args, extra);
        const c = files.get(args.path);
        if (c === undefined)
          return { content: [{ type: 'text', text: `ENOENT: no such file ${args.path}` }], isError: true };
        return text(c);
      },
    );
    s.registerTool(
      'list_files',
      { description: 'List the files of the sandbox.', inputSchema: {} },
      async (_args, extra) => {
        record('list_files', {}, extra);
        return {
          content: [{ type: 'text', text: JSON.stringify([...files.keys()]) }],
          structuredContent: { files: [...files.keys()] },
        };
      },
    );
  });
  return Object.assign(server, { files });
}
