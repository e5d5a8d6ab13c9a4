/**
 * SSE events of protocol.md ("SSE stream"), as zod schemas (their frames are
 * written and read by sse.ts).
 */
import { z } from 'zod';
import { ERROR_KINDS } from './errors.ts';

export const RunEventSchema = z.object({
  runId: z.string(),
  requestId: z.string(),
  resumed: z.boolean().optional(),
  partialLength: z.number().int().optional(),
});
export const ReasoningEventSchema = z.object({
  sessionId: z.string(),
  requestId: z.string(),
  reasoning: z.string(),
  isComplete: z.boolean(),
});
export const MessageEventSchema = z.object({ content: z.string() });
export const TOOL_CALL_STATUSES = ['isRunning', 'done', 'error'] as const;
export const ToolCallEventSchema = z.object({
  sessionId: z.string(),
  requestId: z.string(),
  eventId: z.string(),
  toolName: z.string(),
  args: z.unknown(),
  status: z.enum(TOOL_CALL_STATUSES),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export const ActionCallEventSchema = z.object({
  sessionId: z.string(),
  requestId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  status: z.enum(TOOL_CALL_STATUSES),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export const ErrorEventSchema = z.object({
  error: z.string(),
  code: z.string(),
  kind: z.enum(ERROR_KINDS),
  retryable: z.boolean(),
  /** How long the model provider asked to wait before trying again (its Retry-After), when it said. */
  retryAfterSeconds: z.number().nonnegative().optional(),
  timestamp: z.string(),
});
export const DONE_STATUSES = ['finished', 'aborted', 'failed', 'interrupted'] as const;
/** What a turn used: the model's tokens over all its steps, and what a priced oracle charged for it. */
export const TurnUsageSchema = z.object({
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
  charged: z.object({ amount: z.number().nonnegative(), denom: z.string() }).optional(),
});
export const DoneEventSchema = z.object({
  status: z.enum(DONE_STATUSES),
  partialText: z.string().optional(),
  usage: TurnUsageSchema.optional(),
});

export type RunEvent = z.infer<typeof RunEventSchema>;
export type ReasoningEvent = z.infer<typeof ReasoningEventSchema>;
export type MessageEvent = z.infer<typeof MessageEventSchema>;
export type ToolCallEvent = z.infer<typeof ToolCallEventSchema>;
export type ActionCallEvent = z.infer<typeof ActionCallEventSchema>;
export type ErrorEvent = z.infer<typeof ErrorEventSchema>;
export type DoneEvent = z.infer<typeof DoneEventSchema>;
export type TurnUsage = z.infer<typeof TurnUsageSchema>;
export type DoneStatus = DoneEvent['status'];

/** Every SSE event, by name. */
export const SSE_EVENT_SCHEMAS = {
  run: RunEventSchema,
  reasoning: ReasoningEventSchema,
  message: MessageEventSchema,
  tool_call: ToolCallEventSchema,
  action_call: ActionCallEventSchema,
  error: ErrorEventSchema,
  done: DoneEventSchema,
} as const;
export type SseEventName = keyof typeof SSE_EVENT_SCHEMAS;
export const SSE_EVENT_NAMES = Object.keys(SSE_EVENT_SCHEMAS) as SseEventName[];

/** One event of a run's stream, with its increasing id (1, 2, …). */
export const AnyEventSchema = z.discriminatedUnion('event', [
  z.object({ id: z.number().int(), event: z.literal('run'), data: RunEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('reasoning'), data: ReasoningEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('message'), data: MessageEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('tool_call'), data: ToolCallEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('action_call'), data: ActionCallEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('error'), data: ErrorEventSchema }),
  z.object({ id: z.number().int(), event: z.literal('done'), data: DoneEventSchema }),
]);
export type AnyEvent = z.infer<typeof AnyEventSchema>;
/** An event before the run assigns its id. */
export type AnyEventInput = AnyEvent extends infer E ? (E extends { id: number } ? Omit<E, 'id'> : never) : never;
