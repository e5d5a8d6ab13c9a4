/**
 * memory (runtime.md): an MCP client (Streamable HTTP) to a memory server
 * (MEMORY_MCP_URL). Always visible:
 * - the server's tools for the agent (search, add, delete … as it lists them);
 * - recalled user context before the model call: loadState asks the server's
 *   recall tool (MEMORY_RECALL_TOOL, default search_memory_engine) with the
 *   turn's message, within MEMORY_RECALL_TIMEOUT_MS; the result goes into the
 *   system prompt. A memory server that is slow or down never fails a turn:
 *   the turn goes on without recalled context;
 * - routes for the React SDK's useMemoryEngine: GET /memory-engine,
 *   POST /memory-engine/search, POST /memory-engine/memories (user auth).
 * Every call carries the user of the turn (x-user-did), the oracle
 * (x-oracle-did), the session (x-session-id) and, when the user sent one,
 * their delegation to the oracle (x-ucan-delegation), so the memory server
 * keeps each user's memories apart. MEMORY_ENGINE_URL (optional) is the
 * memory engine's own URL, given to clients by GET /memory-engine.
 */
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import { createMcpPlugin, httpUrl, mcpEnvSchema } from '../_mcp/plugin.ts';
import type { McpConnection } from '../_mcp/client.ts';
import type { PluginContext, TurnContext } from '../../plugin.ts';
import { getUser } from '../../auth.ts';
import { runtimeError } from '../../../lib/protocol/errors.ts';

const MEMORY_STATE_KEY = 'memoryRecall';
const RECALL_MAX_CHARS = 4000;

const MemoryEnvSchema = mcpEnvSchema('MEMORY', 15_000).extend({
  MEMORY_ENGINE_URL: httpUrl(undefined, 'https://memory.example.org').optional(),
  MEMORY_RECALL_TOOL: z.string().default('search_memory_engine'),
  MEMORY_ADD_TOOL: z.string().default('add_memory'),
  MEMORY_RECALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
});
type MemoryEnv = z.infer<typeof MemoryEnvSchema>;

const RULES =
  'Memory is for facts about the user and their work (projects, places, decisions, artifacts) that help in later ' +
  'conversations. ' +
  'Search it before answering questions that depend on what you should already know about the user; add a memory ' +
  'when the user shares a durable fact or asks you to remember something. ' +
  'How the user wants you to respond (tone, language, format) belongs to user preferences, not memory. Never store ' +
  'secrets (passwords, keys).';

function identity(
  userDid: string,
  sessionId: string | undefined,
  delegation: string | undefined,
  ctx: PluginContext<MemoryEnv>,
): Record<string, string> {
  const h: Record<string, string> = { 'x-user-did': userDid };
  if (ctx.config.oracleDid) h['x-oracle-did'] = ctx.config.oracleDid;
  if (sessionId) h['x-session-id'] = sessionId;
  if (delegation) h['x-ucan-delegation'] = delegation;
  return h;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** True when a recall result holds nothing (empty text, list or {memories: []}). */
function isEmptyRecall(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    const vals = Object.values(v as Record<string, unknown>);
    return vals.length > 0 && vals.every((x) => Array.isArray(x) && x.length === 0);
  }
  return false;
}

let mcpOf: (ctx: PluginContext<MemoryEnv>) => McpConnection;

async function bodyOf<T>(req: FastifyRequest, schema: z.ZodType<T>): Promise<T> {
  const r = schema.safeParse(req.body ?? {});
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw runtimeError('validation_failed', `${i.path.join('.') || 'body'}: ${i.message}`, {
      field: i.path.join('.') || undefined,
    });
  }
  return r.data;
}

async function callForRoute(
  ctx: PluginContext<MemoryEnv>,
  tool: string,
  args: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<unknown> {
  try {
    return await mcpOf(ctx).call(tool, args, { headers });
  } catch (e) {
    throw runtimeError('upstream_error', (e as Error).message);
  }
}

export const memoryPlugin = createMcpPlugin<MemoryEnv>({
  name: 'memory',
  prefix: 'MEMORY',
  defaultTimeoutMs: 15_000,
  envSchema: MemoryEnvSchema,
  manifest: {
    title: 'Memory',
    summary:
      'Long-term memory of the user: facts, projects and decisions from earlier conversations, recalled before ' +
      'each answer and searchable.',
    whenToUse: [
      'the user refers to something from an earlier conversation',
      'the user shares a durable fact about themselves or their work, or asks you to remember something',
      'an answer depends on what you know about the user',
    ],
    whenNotToUse: ['how the user wants you to respond (user preferences)', 'secrets such as passwords or keys'],
    visibility: 'always',
    stability: 'beta',
    category: 'personalisation',
    defaultState: 'on',
    dependsOn: [],
  },
  headers: (turn: TurnContext, ctx) => identity(turn.userDid, turn.sessionId, turn.delegation, ctx),
  describePrefix: '[memory] ',
  extend: (mcp) => {
    mcpOf = mcp;
    return {
      stateKeys: [MEMORY_STATE_KEY],
      loadState: async (turn, ctx) => {
        const conn = mcp(ctx);
        const tool = ctx.env.MEMORY_RECALL_TOOL;
        if (!turn.message || !conn.connected || !conn.tools.some((t) => t.name === tool))
          return { [MEMORY_STATE_KEY]: null };
        try {
          const r = await conn.call(
            tool,
            { query: turn.message },
            {
              headers: identity(turn.userDid, turn.sessionId, turn.delegation, ctx),
              timeoutMs: ctx.env.MEMORY_RECALL_TIMEOUT_MS,
              signal: turn.abortSignal,
            },
          );
          return { [MEMORY_STATE_KEY]: isEmptyRecall(r) ? null : asText(r).slice(0, RECALL_MAX_CHARS) };
        } catch {
          return { [MEMORY_STATE_KEY]: null }; // never fail a turn for recall
        }
      },
      systemPrompt: (state) => {
        const recalled = state[MEMORY_STATE_KEY];
        return [
          `About memory: ${RULES}`,
          typeof recalled === 'string' && recalled
            ? `What you remember about this user that may be relevant (recalled from memory; use it, do not recite ` +
              `it):\n${recalled}`
            : undefined,
        ]
          .filter(Boolean)
          .join('\n');
      },
      routes: (app, ctx) => {
        app.get('/memory-engine', async () => {
          const conn = mcp(ctx);
          return {
            enabled: true,
            connected: conn.connected,
            server: conn.serverInfo ?? null,
            engineUrl: ctx.env.MEMORY_ENGINE_URL ?? null,
            tools: conn.tools.map((t) => ({ name: t.name, description: t.description })),
            recallTool: ctx.env.MEMORY_RECALL_TOOL,
            addTool: ctx.env.MEMORY_ADD_TOOL,
          };
        });
        app.post('/memory-engine/search', async (req) => {
          const u = getUser(req);
          const b = await bodyOf(
            req,
            z.object({
              query: z.string().trim().min(1, 'required'),
              limit: z.number().int().min(1).max(50).optional(),
            }),
          );
          const result = await callForRoute(
            ctx,
            ctx.env.MEMORY_RECALL_TOOL,
            b.limit ? { query: b.query, limit: b.limit } : { query: b.query },
            identity(u.did, undefined, u.delegation, ctx),
          );
          return { query: b.query, result };
        });
        app.post('/memory-engine/memories', async (req, reply) => {
          const u = getUser(req);
          const b = await bodyOf(req, z.object({ content: z.string().trim().min(1, 'required').max(10_000) }));
          const result = await callForRoute(
            ctx,
            ctx.env.MEMORY_ADD_TOOL,
            { content: b.content },
            identity(u.did, undefined, u.delegation, ctx),
          );
          return reply.code(201).send({ ok: true, result });
        });
      },
    };
  },
});
