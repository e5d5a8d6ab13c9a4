/**
 * composio (runtime.md, the tool-integration plugin): search and execute
 * third-party tools (GitHub, Gmail, Slack, Notion, …) through the Composio
 * API v3 with COMPOSIO_API_KEY (x-api-key header; COMPOSIO_BASE_URL optional,
 * default https://backend.composio.dev). On-demand.
 *
 * - composio_search_tools → GET /api/v3/tools?search=&toolkit_slug=&limit=
 * - composio_execute_tool → POST /api/v3/tools/execute/{tool_slug}
 *   {user_id, arguments}; the user is the oracle user (their DID, so each
 *   user acts with their own connected accounts) unless COMPOSIO_USER_ID fixes
 *   one account owner for the whole oracle.
 * Every call has a time-out (COMPOSIO_TIMEOUT_MS) and follows the turn's
 * abort; the API key never appears in a message.
 */
import { z } from 'zod';
import { definePlugin, defineTool } from '../../plugin.ts';
import { httpUrl } from '../_mcp/plugin.ts';
import { fetchJson, upstreamMessage, upstreamReplyError, type FetchJsonReply } from '../../../lib/fetch-json.ts';
import type { OracleKitError } from '../../../lib/errors.ts';
import { scrub } from '../_mcp/client.ts';

const ComposioEnvSchema = z.object({
  COMPOSIO_API_KEY: z.string().trim().min(8, 'too short to be a Composio API key'),
  COMPOSIO_BASE_URL: httpUrl(undefined, 'https://backend.composio.dev').default('https://backend.composio.dev'),
  COMPOSIO_USER_ID: z.string().trim().max(256).optional(),
  COMPOSIO_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
});
type ComposioEnv = z.infer<typeof ComposioEnvSchema>;

interface ComposioTool {
  slug: string;
  name?: string;
  description?: string;
  toolkit?: { slug?: string; name?: string };
  input_parameters?: unknown;
  no_auth?: boolean;
  is_deprecated?: boolean;
}

class ComposioClient {
  readonly env: ComposioEnv;
  constructor(env: ComposioEnv) {
    this.env = env;
  }

  private url(path: string): URL {
    const base = this.env.COMPOSIO_BASE_URL;
    return new URL(path, base.endsWith('/') ? base : `${base}/`);
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    o: { query?: Record<string, string | undefined>; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<FetchJsonReply<unknown>> {
    const u = this.url(path);
    const res = await fetchJson({
      method,
      url: u,
      query: o.query,
      headers: { 'x-api-key': this.env.COMPOSIO_API_KEY },
      body: o.body,
      timeoutMs: this.env.COMPOSIO_TIMEOUT_MS,
      signal: o.signal,
      what: 'the Composio API',
    });
    return res;
  }

  private err(message: string, cause?: unknown): Error {
    return new Error(scrub(message, [this.env.COMPOSIO_API_KEY]), cause === undefined ? undefined : { cause });
  }

  /**
   * A reply with a status the plugin did not want: the outbound helper's one upstream-error shape (502
   * upstream_error with the upstream status, Composio's error code and its message), the API key scrubbed from it.
   */
  private replyError(r: FetchJsonReply<unknown>, path: string): OracleKitError {
    const e = upstreamReplyError('the Composio API', this.url(path), r);
    e.message = scrub(e.message, [this.env.COMPOSIO_API_KEY]);
    return e;
  }

  async searchTools(
    q: { query?: string; toolkit?: string; limit: number },
    signal?: AbortSignal,
  ): Promise<ComposioTool[]> {
    const r = await this.request('GET', 'api/v3/tools', {
      query: { search: q.query, toolkit_slug: q.toolkit?.toLowerCase(), limit: String(q.limit) },
      signal,
    });
    if (!r.ok) throw this.replyError(r, 'api/v3/tools');
    const items = (r.body as { items?: unknown })?.items;
    if (!Array.isArray(items)) throw this.err('the Composio API returned no items for the tool search');
    return items as ComposioTool[];
  }

  async execute(
    slug: string,
    args: Record<string, unknown>,
    userId: string,
    signal?: AbortSignal,
  ): Promise<{ data: unknown; logId?: string }> {
    const r = await this.request('POST', `api/v3/tools/execute/${encodeURIComponent(slug)}`, {
      body: { user_id: userId, arguments: args },
      signal,
    });
    // a 404 here names the slug the model chose: the error says what to do next
    if (r.status === 404)
      throw this.err(
        `Composio has no tool '${slug}'. Call composio_search_tools to find the right slug. ${upstreamMessage(r.body, r.text)}`.trim(),
      );
    if (!r.ok) throw this.replyError(r, `api/v3/tools/execute/${encodeURIComponent(slug)}`);
    const b = (r.body ?? {}) as { data?: unknown; error?: unknown; successful?: boolean; log_id?: string };
    if (b.successful === false || (b.successful === undefined && b.error)) {
      const detail = typeof b.error === 'string' ? b.error : JSON.stringify(b.error ?? b.data ?? 'no details');
      throw this.err(`${slug} did not succeed: ${detail.slice(0, 1000)}`);
    }
    return { data: b.data, ...(b.log_id ? { logId: b.log_id } : {}) };
  }
}

function summarise(t: ComposioTool) {
  return {
    slug: t.slug,
    name: t.name ?? t.slug,
    toolkit: t.toolkit?.slug ?? null,
    description: (t.description ?? '').slice(0, 500),
    input_parameters: t.input_parameters ?? { type: 'object', properties: {} },
    ...(t.no_auth ? { no_auth: true } : {}),
  };
}

export const composioPlugin = definePlugin<ComposioEnv>({
  name: 'composio',
  version: '1.0.0',
  manifest: {
    title: 'Third-party tools (Composio)',
    summary:
      "Act in the user's other apps (GitHub, Gmail, Google Calendar, Slack, Notion, …) through Composio: find the " +
      'right tool, then run it.',
    whenToUse: [
      'the user asks you to do something in another app or service (create an issue, send an email, add a calendar ' +
        'event, read a document)',
    ],
    whenNotToUse: ['questions you can answer without touching another app', 'web search (the web-crawl capability)'],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'integrations',
    defaultState: 'on',
    dependsOn: [],
  },
  requiredEnv: ['COMPOSIO_API_KEY'],
  envSchema: ComposioEnvSchema,
  tools: (ctx) => {
    const client = new ComposioClient(ctx.env);
    return {
      composio_search_tools: defineTool({
        description:
          "Find Composio tools for a task: returns each tool's slug, toolkit, description and input_parameters " +
          '(JSON Schema of its arguments). ' +
          'Search with a short phrase ("create github issue"), optionally within one toolkit (e.g. "github", ' +
          '"gmail"). Then call composio_execute_tool with the slug and arguments.',
        inputSchema: z.object({
          query: z.string().min(1).max(200).describe('what the tool should do, e.g. "send email"'),
          toolkit: z.string().min(1).max(64).optional().describe('toolkit slug to search in, e.g. "github"'),
          limit: z.number().int().min(1).max(20).optional().describe('maximum results (default 8)'),
        }),
        timeoutMs: ctx.env.COMPOSIO_TIMEOUT_MS + 2000,
        execute: async (input, turn) => {
          const tools = await client.searchTools(
            { query: input.query, toolkit: input.toolkit, limit: input.limit ?? 8 },
            turn.abortSignal,
          );
          const usable = tools.filter((t) => !t.is_deprecated).map(summarise);
          return {
            tools: usable,
            ...(usable.length === 0 ? { hint: 'No tool found: try other words or no toolkit filter.' } : {}),
          };
        },
      }),
      composio_execute_tool: defineTool({
        description:
          'Run a Composio tool by slug (from composio_search_tools) with arguments matching its input_parameters, ' +
          'on behalf of the current user (their connected account). ' +
          "Confirm with the user before actions that send, publish, delete or spend. Returns the tool's data; a " +
          'failure explains what went wrong (e.g. a missing argument or no connected account).',
        inputSchema: z.object({
          tool_slug: z
            .string()
            .min(1)
            .max(128)
            .regex(/^[A-Za-z0-9_.-]+$/, 'a Composio tool slug such as GITHUB_CREATE_AN_ISSUE')
            .describe('e.g. "GITHUB_CREATE_AN_ISSUE"'),
          arguments: z.record(z.string(), z.unknown()).optional().describe("the tool's arguments as an object"),
        }),
        timeoutMs: ctx.env.COMPOSIO_TIMEOUT_MS + 2000,
        execute: async (input, turn) => {
          const r = await client.execute(
            input.tool_slug.toUpperCase(),
            input.arguments ?? {},
            ctx.env.COMPOSIO_USER_ID ?? turn.userDid,
            turn.abortSignal,
          );
          return {
            ok: true,
            tool: input.tool_slug.toUpperCase(),
            data: r.data,
            ...(r.logId ? { logId: r.logId } : {}),
          };
        },
      }),
    };
  },
});
