/**
 * A loopback server speaking the Composio API v3 shapes the composio plugin
 * uses: GET /api/v3/tools (search, toolkit_slug, limit, cursor → {items,
 * next_cursor, total_pages, current_page, total_items}), GET
 * /api/v3/tools/:slug, POST /api/v3/tools/execute/:slug ({user_id,
 * arguments} → {data, error, successful, log_id}), the x-api-key header
 * (401 with {error: {message, code, status, …}} otherwise). Tools needing an
 * account run only for users given a connected account with connect().
 */
import { listenLoopback } from './loopback.ts';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

interface ToolDef {
  slug: string;
  name: string;
  description: string;
  toolkit: string;
  no_auth: boolean;
  input_parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  run: (args: Record<string, unknown>, userId: string) => unknown;
}

export interface ComposioServer {
  url: string;
  apiKey: string;
  requests: {
    method: string;
    path: string;
    query: Record<string, string>;
    headers: IncomingMessage['headers'];
    body?: unknown;
  }[];
  connect(userId: string, toolkit: string): void;
  /** Answer every request after this many ms (for time-outs). */
  delayMs: number;
  close(): Promise<void>;
}

const TOOLS: ToolDef[] = [
  {
    slug: 'GITHUB_CREATE_AN_ISSUE',
    name: 'Create an issue',
    description: 'Creates a new issue in a GitHub repository.',
    toolkit: 'github',
    no_auth: false,
    input_parameters: {
      type: 'object',
      properties: {
        owner: { type: 'string' },
        repo: { type: 'string' },
        title: { type: 'string' },
        body: { type: 'string' },
      },
      required: ['owner', 'repo', 'title'],
    },
    run: (a) => ({
      number: 42,
      html_url: `https://github.com/${String(a.owner)}/${String(a.repo)}/issues/42`,
      title: a.title,
      state: 'open',
    }),
  },
  {
    slug: 'GITHUB_LIST_REPOSITORY_ISSUES',
    name: 'List repository issues',
    description: 'Lists issues in a GitHub repository.',
    toolkit: 'github',
    no_auth: false,
    input_parameters: {
      type: 'object',
      properties: { owner: { type: 'string' }, repo: { type: 'string' } },
      required: ['owner', 'repo'],
    },
    run: () => ({ issues: [] }),
  },
  {
    slug: 'GMAIL_SEND_EMAIL',
    name: 'Send email',
    description: 'Sends an email through Gmail.',
    toolkit: 'gmail',
    no_auth: false,
    input_parameters: {
      type: 'object',
      properties: { recipient_email: { type: 'string' }, subject: { type: 'string' }, body: { type: 'string' } },
      required: ['recipient_email', 'body'],
    },
    run: () => ({ id: 'msg_1', threadId: 'thr_1' }),
  },
  {
    slug: 'HACKERNEWS_GET_TOP_STORIES',
    name: 'Get top stories',
    description: 'Top stories on Hacker News.',
    toolkit: 'hackernews',
    no_auth: true,
    input_parameters: { type: 'object', properties: { limit: { type: 'integer' } } },
    run: (a) => ({ stories: [{ id: 1, title: 'Show HN: cookstove telemetry' }].slice(0, Number(a.limit ?? 10)) }),
  },
];

const item = (t: ToolDef) => ({
  slug: t.slug,
  name: t.name,
  description: t.description,
  toolkit: { slug: t.toolkit, name: t.toolkit.toUpperCase(), logo: `https://logos.composio.dev/api/${t.toolkit}` },
  input_parameters: t.input_parameters,
  output_parameters: {
    type: 'object',
    properties: { data: { type: 'object' }, error: { type: 'string' }, successful: { type: 'boolean' } },
  },
  version: '20250909_00',
  available_versions: ['20250909_00'],
  no_auth: t.no_auth,
  is_deprecated: false,
  tags: [],
  scopes: [],
});

const apiError = (status: number, message: string, code: number, extra: Record<string, unknown> = {}) => ({
  error: {
    message,
    code,
    slug: `E_${code}`,
    status,
    request_id: `req_${Math.random().toString(36).slice(2, 10)}`,
    suggested_fix: '',
    errors: [],
    ...extra,
  },
});

export async function startComposioServer(opts: { apiKey?: string } = {}): Promise<ComposioServer> {
  const apiKey = opts.apiKey ?? 'ak_test_composio_key_123';
  const connections = new Set<string>();
  let logSeq = 0;
  const self: ComposioServer = {
    url: '',
    apiKey,
    requests: [],
    delayMs: 0,
    connect: (u, t) => void connections.add(`${u}|${t}`),
    close: async () => {},
  };
  const send = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://x');
      let raw = '';
      for await (const c of req) raw += c;
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        return send(res, 400, apiError(400, 'Invalid JSON body', 1100));
      }
      self.requests.push({
        method: req.method ?? '',
        path: u.pathname,
        query: Object.fromEntries(u.searchParams),
        headers: req.headers,
        body,
      });
      if (self.delayMs) await new Promise((r) => setTimeout(r, self.delayMs));
      if (res.destroyed) return;
      if (req.headers['x-api-key'] !== apiKey)
        return send(
          res,
          401,
          apiError(401, 'API key is invalid or missing', 1001, {
            suggested_fix: 'Pass a valid API key in the x-api-key header',
          }),
        );
      if (req.method === 'GET' && u.pathname === '/api/v3/tools') {
        const search = (u.searchParams.get('search') ?? '').toLowerCase();
        const toolkit = u.searchParams.get('toolkit_slug');
        const limit = Math.min(Number(u.searchParams.get('limit') ?? 20) || 20, 1000);
        const words = search.split(/\s+/).filter(Boolean);
        const found = TOOLS.filter(
          (t) =>
            (!toolkit || t.toolkit === toolkit) &&
            words.every((w) => `${t.slug} ${t.name} ${t.description}`.toLowerCase().includes(w)),
        );
        return send(res, 200, {
          items: found.slice(0, limit).map(item),
          next_cursor: found.length > limit ? 'cursor_2' : null,
          total_pages: Math.max(1, Math.ceil(found.length / limit)),
          current_page: 1,
          total_items: found.length,
        });
      }
      const one = /^\/api\/v3\/tools\/([^/]+)$/.exec(u.pathname);
      if (req.method === 'GET' && one && one[1] !== 'execute') {
        const t = TOOLS.find((x) => x.slug === decodeURIComponent(one[1]!));
        return t ? send(res, 200, item(t)) : send(res, 404, apiError(404, `Tool ${one[1]} not found`, 1803));
      }
      const ex = /^\/api\/v3\/tools\/execute\/([^/]+)$/.exec(u.pathname);
      if (req.method === 'POST' && ex) {
        const slug = decodeURIComponent(ex[1]!);
        const t = TOOLS.find((x) => x.slug === slug);
        if (!t) return send(res, 404, apiError(404, `Tool ${slug} not found`, 1803));
        const b = (body ?? {}) as { user_id?: string; arguments?: Record<string, unknown> };
        const userId = b.user_id ?? 'default';
        if (!t.no_auth && !connections.has(`${userId}|${t.toolkit}`)) {
          return send(
            res,
            400,
            apiError(400, `No connected account found for user ${userId} for toolkit ${t.toolkit}`, 1810, {
              suggested_fix: `Connect a ${t.toolkit} account for this user first`,
            }),
          );
        }
        const args = b.arguments ?? {};
        const missing = (t.input_parameters.required ?? []).filter((k) => args[k] === undefined);
        logSeq++;
        if (missing.length)
          return send(res, 200, {
            data: {},
            error: `Missing required parameter(s): ${missing.join(', ')}`,
            successful: false,
            log_id: `log_${logSeq}`,
          });
        return send(res, 200, { data: t.run(args, userId), error: null, successful: true, log_id: `log_${logSeq}` });
      }
      return send(res, 404, apiError(404, `Cannot ${req.method} ${u.pathname}`, 1000));
    })().catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, apiError(500, String(e), 1500));
    });
  });
  const l = await listenLoopback(server);
  self.url = l.url;
  self.close = l.close;
  return self;
}
