/**
 * The calls resource of the protocol (docs/live-agent.md): live voice (and
 * video) calls between a user and the oracle's agent over the LiveKit
 * protocol. The runtime's calls plugin serves these shapes; the headless
 * client and `oraclekit/react/live-agent` read them. The per-call encryption
 * key is in the create reply only: the list and the other replies never
 * carry it.
 */
import { z } from 'zod';

export const CALL_TYPES = ['audio', 'video'] as const;
export type CallType = (typeof CALL_TYPES)[number];
/** pending: created, nobody joined yet; active: the user said it started (PATCH …/update); ended: over for good. */
export const CALL_STATUSES = ['pending', 'active', 'ended'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** The per-call key: 32 random bytes as 64 lowercase hex digits (the string both sides hand LiveKit's key provider). */
const CallKeySchema = z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits (32 bytes)');

export const CallSchema = z.object({
  callId: z.string(),
  sessionId: z.string(),
  userDid: z.string(),
  oracleDid: z.string(),
  callType: z.enum(CALL_TYPES),
  callStatus: z.enum(CALL_STATUSES),
  /** The LiveKit room of the call (one room per call). */
  roomName: z.string(),
  agentVoice: z.string().nullable(),
  language: z.string().nullable(),
  createdAt: z.string(),
  callStartedAt: z.string().nullable(),
  callEndedAt: z.string().nullable(),
});
export type Call = z.infer<typeof CallSchema>;

/**
 * Where and how to join the call's room: a LiveKit server URL (ws:// or wss://) and an access token (a LiveKit JWT).
 */
export const CallConnectionSchema = z.object({
  url: z.string(),
  token: z.string(),
  /** When the token stops admitting a join (ISO 8601); POST /calls/:id/sync gives a fresh one. */
  expiresAt: z.string(),
});
export type CallConnection = z.infer<typeof CallConnectionSchema>;

export const CreateCallBodySchema = z
  .object({
    sessionId: z.string().min(1).max(200),
    callType: z.enum(CALL_TYPES).default('audio'),
    /** A voice name of the oracle's text-to-speech service (e.g. "alloy"); default: the oracle's. */
    agentVoice: z.string().trim().min(1).max(64).optional(),
    /** A BCP 47 language tag such as "en" or "fr-CA"; default: detected by speech-to-text. */
    language: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'a BCP 47 language tag such as "en" or "fr-CA"')
      .optional(),
    /** What the agent says once the user hears it (default: the oracle's CALLS_GREETING, else nothing). */
    greeting: z.string().trim().min(1).max(500).optional(),
  })
  .strict();
export type CreateCallBody = z.input<typeof CreateCallBodySchema>;

export const CreateCallResponseSchema = z.object({
  callId: z.string(),
  encryptionKey: CallKeySchema,
  call: CallSchema,
  connection: CallConnectionSchema,
});
export type CreateCallResponse = z.infer<typeof CreateCallResponseSchema>;

export const SyncCallResponseSchema = z.object({ call: CallSchema, connection: CallConnectionSchema });
export type SyncCallResponse = z.infer<typeof SyncCallResponseSchema>;

export const UpdateCallBodySchema = z
  .object({
    callStatus: z.enum(['active', 'ended']).optional(),
    callStartedAt: z.iso.datetime({ offset: true }).optional(),
    callEndedAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();
export type UpdateCallBody = z.infer<typeof UpdateCallBodySchema>;

export const CallResponseSchema = z.object({ call: CallSchema });

export const ListCallsQuerySchema = z
  .object({
    sessionId: z.string().min(1).max(200).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();
export const ListCallsResponseSchema = z.object({ calls: z.array(CallSchema), total: z.number().int() });
export type ListCallsResponse = z.infer<typeof ListCallsResponseSchema>;
