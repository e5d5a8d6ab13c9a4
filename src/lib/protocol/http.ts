/**
 * Bodies of every HTTP route of protocol.md, once, as zod schemas shared by
 * the runtime (validation + serialisation) and the clients (parsing).
 */
import { z } from 'zod';
import { TurnUsageSchema } from './events.ts';

export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int(),
    code: z.string(),
    message: z.string(),
    field: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
export type ErrorBodyWire = z.infer<typeof ErrorBodySchema>;

export const PaymentRequiredBodySchema = ErrorBodySchema.extend({
  statusCode: z.literal(402),
  code: z.literal('payment_required'),
  claims: z.array(z.string()),
  outstandingClaims: z.array(z.unknown()),
});
export type PaymentRequiredBody = z.infer<typeof PaymentRequiredBodySchema>;

// ---- public routes -------------------------------------------------------
export const HealthResponseSchema = z.object({
  status: z.string(),
  name: z.string(),
  oracleDid: z.string(),
  version: z.string(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const PluginsStatusSchema = z.object({
  loaded: z.array(z.string()),
  pending: z.array(z.string()),
  failed: z.array(z.object({ plugin: z.string(), reason: z.string() })),
  excluded: z.array(z.object({ plugin: z.string(), reason: z.string() })),
});
export type PluginsStatus = z.infer<typeof PluginsStatusSchema>;

export const ReadyResponseSchema = z.object({
  ready: z.boolean(),
  plugins: PluginsStatusSchema,
  signingKeyLoaded: z.boolean(),
  pending: z.array(z.string()).optional(),
  /** The default model's endpoint (LLM_BASE_URL): absent when a model is given or none is configured. */
  model: z.object({ ready: z.boolean(), reason: z.string().optional(), set: z.string().optional() }).optional(),
  /** Whether the database takes writes: after a fault (a full disk: storage_full, …) its code until it does again. */
  storage: z.object({ ready: z.boolean(), code: z.string().optional(), message: z.string().optional() }).optional(),
});
export type ReadyResponse = z.infer<typeof ReadyResponseSchema>;

export const ModelInfoSchema = z.object({ id: z.string(), name: z.string() }).loose();
export const ModelsResponseSchema = z.object({ models: z.array(ModelInfoSchema), default: z.string().nullable() });
export type ModelsResponse = z.infer<typeof ModelsResponseSchema>;

// ---- sessions ------------------------------------------------------------
export const SessionSchema = z.object({
  sessionId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  oracleName: z.string(),
  oracleDid: z.string(),
});
export type Session = z.infer<typeof SessionSchema>;

export const CreateSessionBodySchema = z.object({ title: z.string().max(200).optional() }).optional();
export const CreateSessionResponseSchema = SessionSchema;

export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export const ListSessionsResponseSchema = z.object({ sessions: z.array(SessionSchema), total: z.number().int() });
export type ListSessionsResponse = z.infer<typeof ListSessionsResponseSchema>;

export const IdParamsSchema = z.object({ id: z.string().min(1).max(200) });
export const SessionIdParamsSchema = z.object({ sessionId: z.string().min(1).max(200) });
export const RunIdParamsSchema = z.object({ runId: z.string().min(1).max(200) });
export const MessageResponseSchema = z.object({ message: z.string() });

// ---- messages ------------------------------------------------------------
export const ComponentRecordSchema = z.object({
  name: z.string(),
  // loose: a stored row keeps every prop the IXO SDK built from the stream (isToolCall, toolName, payload, event)
  props: z.looseObject({ id: z.string(), args: z.unknown(), status: z.string(), output: z.unknown().optional() }),
});
export type ComponentRecord = z.infer<typeof ComponentRecordSchema>;

export const MessageContentSchema = z.union([
  z.string(),
  ComponentRecordSchema,
  z.array(z.union([z.string(), ComponentRecordSchema])),
]);
export type MessageContent = z.infer<typeof MessageContentSchema>;

export const ToolCallRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
  status: z.enum(['isRunning', 'done', 'error']),
  output: z.unknown().optional(),
  error: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecordSchema>;

/**
 * How a turn ended, kept on its human row once the turn is over: its final
 * status (`aborted`: cancelled) and the usage its `done` frame carried.
 */
export const TurnOutcomeSchema = z.object({
  status: z.enum(['finished', 'aborted', 'failed']),
  usage: TurnUsageSchema.optional(),
});
export type TurnOutcome = z.infer<typeof TurnOutcomeSchema>;

export const MessageSchema = z.object({
  id: z.string(),
  type: z.enum(['human', 'ai']),
  content: MessageContentSchema,
  toolCalls: z.array(ToolCallRecordSchema).optional(),
  reasoning: z.string().optional(),
  /** The reasoning row (`${requestId}-reasoning`): its content is the reasoning text. */
  isReasoning: z.boolean().optional(),
  /** On a human row whose turn is over: how it ended (absent while it runs, and in histories stored before). */
  turn: TurnOutcomeSchema.optional(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof MessageSchema>;

export const ClientToolSchema = z.object({
  name: z.string().min(1).max(64),
  description: z.string(),
  schema: z.unknown(),
});
export const ClientActionSchema = ClientToolSchema.extend({ hasRender: z.boolean().optional() });
export type ClientTool = z.infer<typeof ClientToolSchema>;
export type ClientAction = z.infer<typeof ClientActionSchema>;

export const SendMessageBodySchema = z.object({
  message: z.string().min(1).max(100_000),
  stream: z.boolean().optional(),
  model: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  timezone: z.string().optional(),
  tools: z.array(ClientToolSchema).optional(),
  agActions: z.array(ClientActionSchema).optional(),
});
export type SendMessageBody = z.infer<typeof SendMessageBodySchema>;

export const SendMessageResponseSchema = z.object({
  message: z.object({ id: z.string(), type: z.literal('ai'), content: MessageContentSchema }),
  sessionId: z.string(),
});
export type SendMessageResponse = z.infer<typeof SendMessageResponseSchema>;

export const HistoryQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().optional(),
  after: z.string().optional(),
});
export const PagedHistoryResponseSchema = z.object({
  messages: z.array(MessageSchema),
  prevCursor: z.string().nullable(),
  nextCursor: z.string().nullable(),
  hasOlder: z.boolean(),
  hasNewer: z.boolean(),
});
export type PagedHistoryResponse = z.infer<typeof PagedHistoryResponseSchema>;
export const HistoryResponseSchema = z.object({ messages: z.array(MessageSchema) });
export type HistoryResponse = z.infer<typeof HistoryResponseSchema>;

// ---- runs ----------------------------------------------------------------
export const RUN_STATUSES = ['queued', 'running', 'recovering', 'finished', 'aborted', 'failed'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const SessionRunResponseSchema = z.object({
  run: z.object({ runId: z.string(), status: RunStatusSchema }).nullable(),
});
export type SessionRunResponse = z.infer<typeof SessionRunResponseSchema>;
export const RunReplayQuerySchema = z.object({ after: z.coerce.number().int().min(0).default(0) });

export const AbortBodySchema = z.object({ sessionId: z.string().min(1) });
export const AbortResponseSchema = z.object({ aborted: z.literal(true), runId: z.string() });
export type AbortResponse = z.infer<typeof AbortResponseSchema>;

// ---- delegation ----------------------------------------------------------
export const PostDelegationBodySchema = z.object({ raw: z.string().min(1), expiration: z.number().optional() });
export const PostDelegationResponseSchema = z.object({ ok: z.literal(true), expiration: z.number().nullable() });
export const GetDelegationResponseSchema = z.object({ authorized: z.boolean(), expiration: z.number().optional() });
export const OkResponseSchema = z.object({ ok: z.literal(true) });
