/**
 * The browser bridge shared by portal (the client's `tools[]`) and ag-ui (the
 * client's `agActions[]`): each client-declared tool becomes an agent tool
 * whose call goes out over socket.io to the session's room and whose result
 * comes back from the client, or fails cleanly after a time-out.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineTool, type AnyPluginTool, type PluginHost, type TurnContext } from '../../plugin.ts';

/** OpenAI-compatible function names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A client's JSON Schema as a zod schema (an object with any properties when absent or unusable). */
export function clientSchema(schema: unknown): z.ZodType {
  if (schema && typeof schema === 'object' && !Array.isArray(schema)) {
    const js = schema as Record<string, unknown>;
    // {properties} without a type is an object schema too
    const obj = js.type === undefined && typeof js.properties === 'object' ? { ...js, type: 'object' } : js;
    try {
      const s = z.fromJSONSchema(obj as Parameters<typeof z.fromJSONSchema>[0]);
      // the model's function parameters must be an object
      if (obj.type === 'object') return s;
    } catch {
      // fall through: an unusable schema accepts any object
    }
  }
  return z.object({}).catchall(z.unknown());
}

export const EnvTimeout = (fallback: number) => z.coerce.number().int().min(100).max(600_000).default(fallback);

interface BridgeOptions {
  /** socket.io event sent to the client. */
  outEvent: 'browser_tool_call' | 'action_call';
  /** What the client is called in errors. */
  what: string;
  timeoutMs: number;
  host: PluginHost;
  /** Around the call (ag-ui: action_call SSE events, render_component). */
  onStart?: (turn: TurnContext, call: { toolCallId: string; toolName: string; args: unknown }) => void;
  onEnd?: (
    turn: TurnContext,
    call: { toolCallId: string; toolName: string; args: unknown; output?: unknown; error?: string },
  ) => void;
}

export function bridgeTools(
  list: { name: string; description: string; schema: unknown }[] | undefined,
  o: BridgeOptions,
): Record<string, AnyPluginTool> {
  const out: Record<string, AnyPluginTool> = {};
  for (const t of list ?? []) {
    if (!TOOL_NAME.test(t.name) || out[t.name]) continue;
    out[t.name] = defineTool<Record<string, unknown>>({
      description: t.description || `${o.what} ${t.name}`,
      inputSchema: clientSchema(t.schema) as z.ZodType<Record<string, unknown>>,
      // the runtime's own time-out stays above the bridge's, so the clear message below wins
      timeoutMs: o.timeoutMs + 2000,
      execute: async (args, turn, call) => {
        const toolCallId = call?.toolCallId || `${turn.requestId}-${t.name}-${randomUUID()}`;
        const info = { toolCallId, toolName: t.name, args };
        // register before emitting: a fast client cannot answer too early
        const result = o.host.awaitClientResult(turn.sessionId, toolCallId, o.timeoutMs);
        result.catch(() => {});
        const sent = o.host.emitToSession(turn.sessionId, o.outEvent, {
          sessionId: turn.sessionId,
          requestId: turn.requestId,
          toolCallId,
          toolName: t.name,
          args,
        });
        if (!sent) {
          const error = `${o.what} ${t.name} cannot run: no client of this session is connected over socket.io`;
          o.onEnd?.(turn, { ...info, error });
          throw new Error(error);
        }
        o.onStart?.(turn, info);
        try {
          const output = await result;
          o.onEnd?.(turn, { ...info, output });
          return output ?? null;
        } catch (e) {
          const m = (e as Error).message;
          const error = /within \d+ ms/.test(m)
            ? `${o.what} ${t.name} timed out: the client sent no result within ${o.timeoutMs} ms`
            : `${o.what} ${t.name} failed in the client: ${m}`;
          o.onEnd?.(turn, { ...info, error });
          throw new Error(error, { cause: e });
        }
      },
    });
  }
  return out;
}
