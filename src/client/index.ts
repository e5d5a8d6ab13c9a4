/**
 * `oraclekit/client`: the headless oracle client (Node and browsers, no React).
 * See docs/client.md.
 */
export { OracleClient } from './client.ts';
export type {
  OracleClientOptions,
  SendOptions,
  OnTurnEvent,
  ChatStream,
  TurnResult,
  ToolCallState,
  TurnState,
  BrowserToolSpec,
  AgActionSpec,
} from './client.ts';
export {
  reduceTurn,
  initialTurn,
  turnMessages,
  turnRows,
  RowOrder,
  messageIds,
  parseMessageId,
  transcript,
  TURN_ERROR_CODES,
} from '../lib/protocol/messages.ts';
export type {
  ParsedMessageId,
  MessagePart,
  TranscriptEntry,
  TurnErrorCode,
  TurnRow,
} from '../lib/protocol/messages.ts';
export { UcanAuth } from './auth.ts';
export type { AuthSource, AuthOptions, MintedDelegation } from './auth.ts';
export { connectRealtime } from './realtime.ts';
export type { RealtimeOptions, RealtimeConnection, ToolHandler } from './realtime.ts';
export { SseFrameParser, OracleEventParser } from '../lib/protocol/sse.ts';
export type { RawSseFrame } from '../lib/protocol/sse.ts';
export { OracleClientError, PaymentRequiredError, OracleUnreachableError } from './errors.ts';
export { resolveOracleDid, isDid } from './resolve.ts';
export type { ResolvedOracle, ResolveOptions, Service } from './resolve.ts';
export { signerFromMnemonic, generateMnemonic, generateSigner } from './signer.ts';
export type { Signer } from './signer.ts';
export type {
  AnyEvent,
  Message,
  Session,
  MessageContent,
  ComponentRecord,
  ErrorEvent,
  ToolCallEvent,
  DoneStatus,
} from '../lib/protocol/index.ts';
export { creditsStatus, payClaims } from './payments.ts';
export type { CreditsStatus, OutstandingClaim, Payment } from './payments.ts';
export { createCall, syncCall, updateCall, endCall, getCall, listCalls } from './calls.ts';
export type {
  Call,
  CallType,
  CallStatus,
  CallConnection,
  CreateCallBody,
  CreateCallResponse,
  SyncCallResponse,
  UpdateCallBody,
  ListCallsResponse,
} from '../lib/protocol/calls.ts';
