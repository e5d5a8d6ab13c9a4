/**
 * A plugin over one MCP server (memory, firecrawl, sandbox): the env schema
 * (<P>_MCP_URL required and http(s); <P>_MCP_TOKEN, <P>_MCP_TIMEOUT_MS and
 * <P>_MCP_TOOLS optional), a background start that connects and lists the
 * server's tools (pending → loaded, or failed with the reason; boot never
 * waits), each listed tool as an agent tool (its JSON Schema as a zod
 * schema), and stop() that closes the session.
 */
import { z } from 'zod';
import {
  defineTool,
  type AnyPluginTool,
  type OraclePlugin,
  type PluginContext,
  type PluginManifest,
  type TurnContext,
} from '../../plugin.ts';
import { McpConnection, type McpToolInfo } from './client.ts';

/** Tool names the runtime itself owns; a server tool with one of these names is skipped. */
const RESERVED = new Set(['list_capabilities', 'load_capability']);

interface McpEnv {
  url: string;
  token?: string;
  timeoutMs: number;
  tools?: string[];
}

/** zod for an http(s) URL variable; the value is never echoed (it may carry secrets). */
export function httpUrl(tokenVar?: string, example = 'http://127.0.0.1:8080/mcp') {
  return z
    .string()
    .trim()
    .min(1, 'required')
    .superRefine((v, ctx) => {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be an http(s) URL, e.g. ${example}` });
        return;
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        ctx.addIssue({ code: 'custom', message: `must be an http(s) URL, not ${u.protocol.replace(/:$/, '')}:` });
      else if (u.username || u.password)
        ctx.addIssue({
          code: 'custom',
          message: `must not carry credentials${tokenVar ? `; put the token in '${tokenVar}'` : ''}`,
        });
    });
}

/** The fields of an MCP plugin's env schema whose variables start with P (e.g. MEMORY_MCP_URL). */
type McpEnvShape<P extends string> = Record<`${P}_MCP_URL`, ReturnType<typeof httpUrl>> &
  Record<`${P}_MCP_TOKEN`, z.ZodOptional<z.ZodString>> &
  Record<`${P}_MCP_TIMEOUT_MS`, z.ZodDefault<z.ZodCoercedNumber>> &
  Record<`${P}_MCP_TOOLS`, z.ZodOptional<z.ZodString>>;

/** The env schema of an MCP plugin whose variables start with `prefix` (e.g. MEMORY), typed by the prefix. */
export function mcpEnvSchema<P extends string>(prefix: P, defaultTimeoutMs: number) {
  // computed keys: zod would type them only as strings; McpEnvShape names them
  const shape = {
    [`${prefix}_MCP_URL`]: httpUrl(`${prefix}_MCP_TOKEN`),
    [`${prefix}_MCP_TOKEN`]: z.string().optional(),
    [`${prefix}_MCP_TIMEOUT_MS`]: z.coerce.number().int().min(100).max(600_000).default(defaultTimeoutMs),
    [`${prefix}_MCP_TOOLS`]: z
      .string()
      .regex(/^\s*(\*|[A-Za-z0-9_.-]+(\s*,\s*[A-Za-z0-9_.-]+)*)\s*$/, "a comma-separated list of tool names, or '*'")
      .optional(),
  } as McpEnvShape<P>;
  return z.object(shape);
}

export function readMcpEnv(prefix: string, env: Record<string, unknown>): McpEnv {
  const tools = env[`${prefix}_MCP_TOOLS`] as string | undefined;
  return {
    url: env[`${prefix}_MCP_URL`] as string,
    token: env[`${prefix}_MCP_TOKEN`] as string | undefined,
    timeoutMs: env[`${prefix}_MCP_TIMEOUT_MS`] as number,
    tools: tools === undefined || tools.trim() === '*' ? undefined : tools.split(',').map((t) => t.trim()),
  };
}

/** A JSON Schema object as a zod schema (any object when it cannot be converted). */
export function zodFromJsonSchema(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    const s = { ...schema };
    delete s.$schema;
    if (s.type === undefined) s.type = 'object';
    return z.fromJSONSchema(s as never) as z.ZodType<Record<string, unknown>>;
  } catch {
    return z.looseObject({}) as unknown as z.ZodType<Record<string, unknown>>;
  }
}

/**
 * Tool names taken by the MCP plugins of one runtime (keyed by its store):
 * two servers listing the same name would shadow each other in the agent's
 * flat tool set, so the second one to load gets its plugin's name as prefix.
 */
const claimed = new WeakMap<object, Map<string, string>>();

interface McpState {
  conn: McpConnection;
  tools: Record<string, AnyPluginTool>;
}

interface McpPluginSpec<Env> {
  name: string;
  version?: string;
  manifest: PluginManifest;
  /** Variable prefix: MEMORY → MEMORY_MCP_URL … */
  prefix: string;
  defaultTimeoutMs: number;
  /** The zod schema of the whole env, when the plugin extends mcpEnvSchema(prefix); default that schema itself. */
  envSchema?: z.ZodType<Env>;
  /** Which server tools to offer when <P>_MCP_TOOLS is not set (default: all). */
  defaultToolFilter?: (t: McpToolInfo) => boolean;
  /** Per-call headers (e.g. the user of the turn). */
  headers?: (turn: TurnContext, ctx: PluginContext<Env>) => Record<string, string>;
  /** Text before each tool's description. */
  describePrefix?: string;
  /** The rest of the plugin (loadState, systemPrompt, routes, …). */
  extend?: (mcp: (ctx: PluginContext<Env>) => McpConnection) => Partial<OraclePlugin<Env>>;
}

export function createMcpPlugin<Env extends Record<string, unknown> = Record<string, unknown>>(
  spec: McpPluginSpec<Env>,
): OraclePlugin<Env> {
  const states = new WeakMap<object, McpState>();
  const stateOf = (ctx: PluginContext<Env>): McpState => {
    let s = states.get(ctx);
    if (!s) {
      const e = readMcpEnv(spec.prefix, ctx.env);
      s = {
        conn: new McpConnection({
          label: spec.name,
          url: e.url,
          token: e.token,
          timeoutMs: e.timeoutMs,
          connectTimeoutMs: Math.min(e.timeoutMs, 10_000),
        }),
        tools: {},
      };
      states.set(ctx, s);
    }
    return s;
  };
  const extra = spec.extend?.((ctx) => stateOf(ctx).conn) ?? {};
  return {
    name: spec.name,
    version: spec.version ?? '1.0.0',
    manifest: spec.manifest,
    requiredEnv: [`${spec.prefix}_MCP_URL`],
    // the schema's keys are computed from the prefix, so zod types them only as strings: Env names them
    envSchema: spec.envSchema ?? (mcpEnvSchema(spec.prefix, spec.defaultTimeoutMs) as unknown as z.ZodType<Env>),
    ...extra,
    // the record is filled by start(); the runtime reads it at every turn
    tools: (ctx) => stateOf(ctx).tools,
    start: async (ctx) => {
      const s = stateOf(ctx);
      const e = readMcpEnv(spec.prefix, ctx.env);
      await s.conn.connect();
      const allow = e.tools ? new Set(e.tools) : undefined;
      const offered = s.conn.tools.filter((t) => (allow ? allow.has(t.name) : (spec.defaultToolFilter?.(t) ?? true)));
      if (allow) {
        const missing = [...allow].filter((n) => !s.conn.tools.some((t) => t.name === n));
        if (missing.length)
          throw new Error(
            `${spec.prefix}_MCP_TOOLS names tools the server does not have: ${missing.join(', ')} (it has: ${s.conn.tools.map((t) => t.name).join(', ')})`,
          );
      }
      const taken = claimed.get(ctx.store) ?? claimed.set(ctx.store, new Map()).get(ctx.store)!;
      for (const t of offered) {
        let name = t.name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
        if (RESERVED.has(name)) continue;
        const owner = taken.get(name);
        if (owner !== undefined && owner !== spec.name) name = `${spec.name}_${name}`.slice(0, 64);
        if (s.tools[name] || (taken.has(name) && taken.get(name) !== spec.name)) continue;
        taken.set(name, spec.name);
        s.tools[name] = defineTool({
          description: `${spec.describePrefix ?? ''}${t.description || t.name}`.slice(0, 1024),
          inputSchema: zodFromJsonSchema(t.inputSchema),
          timeoutMs: e.timeoutMs + 2000,
          execute: (input: Record<string, unknown>, turn) =>
            s.conn.call(t.name, input ?? {}, { signal: turn.abortSignal, headers: spec.headers?.(turn, ctx) }),
        });
      }
    },
    stop: async (ctx) => {
      await stateOf(ctx).conn.close();
    },
  };
}
