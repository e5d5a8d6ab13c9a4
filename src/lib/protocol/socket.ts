/**
 * socket.io v4 events of protocol.md ("Realtime channel"): path /socket.io/,
 * websocket transport. Handshake: query.sessionId + auth.invocation or
 * auth.ucanDelegation.
 */
import { z } from 'zod';

export const SOCKET_PATH = '/socket.io/';

export const HandshakeQuerySchema = z.object({ sessionId: z.string().min(1) });
export const HandshakeAuthSchema = z.object({
  invocation: z.string().optional(),
  ucanDelegation: z.string().optional(),
});

/** Payload of a wrapped server → client event: carries sessionId, requestId and eventId. */
const WrappedPayloadBase = z.object({ sessionId: z.string(), requestId: z.string(), eventId: z.string() });

export const SocketToolCallPayloadSchema = WrappedPayloadBase.extend({
  toolName: z.string(),
  args: z.unknown(),
  status: z.enum(['isRunning', 'done', 'error']),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export const RenderComponentPayloadSchema = WrappedPayloadBase.extend({
  componentName: z.string(),
  args: z.unknown(),
  status: z.string(),
});
export const SocketReasoningPayloadSchema = WrappedPayloadBase.extend({
  reasoning: z.string(),
  isComplete: z.boolean(),
});
export const MessageCacheInvalidationPayloadSchema = WrappedPayloadBase.extend({ reason: z.string().optional() });

export const WrappedEventSchema = z.discriminatedUnion('eventName', [
  z.object({ eventName: z.literal('tool_call'), payload: SocketToolCallPayloadSchema }),
  z.object({ eventName: z.literal('render_component'), payload: RenderComponentPayloadSchema }),
  z.object({ eventName: z.literal('reasoning'), payload: SocketReasoningPayloadSchema }),
  z.object({ eventName: z.literal('message_cache_invalidation'), payload: MessageCacheInvalidationPayloadSchema }),
]);
export type WrappedEvent = z.infer<typeof WrappedEventSchema>;
export const WRAPPED_EVENT_NAMES = [
  'tool_call',
  'render_component',
  'reasoning',
  'message_cache_invalidation',
] as const;

export const BrowserToolCallSchema = z.object({
  sessionId: z.string(),
  requestId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  args: z.unknown(),
});
export type BrowserToolCall = z.infer<typeof BrowserToolCallSchema>;
export const ActionCallSocketSchema = BrowserToolCallSchema;
export type ActionCallSocket = z.infer<typeof ActionCallSocketSchema>;

export const ToolResultSchema = z.object({
  toolCallId: z.string(),
  sessionId: z.string(),
  result: z.unknown(),
  error: z.string().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;
export const ActionCallResultSchema = z.object({ toolCallId: z.string(), sessionId: z.string(), result: z.unknown() });
export type ActionCallResult = z.infer<typeof ActionCallResultSchema>;

/** Typed maps for socket.io's generics (server and client). */
export interface ServerToClientEvents {
  tool_call: (e: Extract<WrappedEvent, { eventName: 'tool_call' }>) => void;
  render_component: (e: Extract<WrappedEvent, { eventName: 'render_component' }>) => void;
  reasoning: (e: Extract<WrappedEvent, { eventName: 'reasoning' }>) => void;
  message_cache_invalidation: (e: Extract<WrappedEvent, { eventName: 'message_cache_invalidation' }>) => void;
  browser_tool_call: (e: BrowserToolCall) => void;
  action_call: (e: ActionCallSocket) => void;
}
export interface ClientToServerEvents {
  tool_result: (e: ToolResult) => void;
  action_call_result: (e: ActionCallResult) => void;
}
