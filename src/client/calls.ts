/**
 * Live calls with an oracle from the headless client (docs/live-agent.md):
 * create a call (its id, its per-call encryption key, where to join and a
 * LiveKit join token), refresh the token for a rejoin, list the caller's
 * calls and end one. Joining the room itself is LiveKit's client's job
 * (`oraclekit/react/live-agent` does it in a browser); these functions only
 * speak the oracle's /calls routes, so they load no media code.
 */
import type { OracleClient } from './client.ts';
import { OracleClientError } from './errors.ts';
import {
  CallResponseSchema,
  CreateCallResponseSchema,
  ListCallsResponseSchema,
  SyncCallResponseSchema,
  type Call,
  type CreateCallBody,
  type CreateCallResponse,
  type ListCallsResponse,
  type SyncCallResponse,
  type UpdateCallBody,
} from '../lib/protocol/calls.ts';

const callPath = (callId: string) => `/calls/${encodeURIComponent(callId)}`;

/**
 * Creates a call in one of the caller's sessions (`POST /calls`). On a priced
 * oracle an unpaid call throws PaymentRequiredError, as a turn does.
 * @example
 * const { callId, encryptionKey, connection } = await createCall(client, { sessionId, callType: 'audio' });
 */
export async function createCall(client: OracleClient, body: CreateCallBody): Promise<CreateCallResponse> {
  try {
    return await client.json('POST', '/calls', CreateCallResponseSchema, body);
  } catch (e) {
    // no calls resource at all: the oracle runs without calls (features: {calls: false}, or the package not installed)
    if (OracleClientError.isInstance(e) && (e.code === 'not_found' || e.code === 'plugin_not_installed'))
      throw new OracleClientError(
        e.status,
        'calls_unavailable',
        `this oracle does not offer calls (${e.message})`,
        e.body,
      );
    throw e;
  }
}

/** A fresh join token for a call that has not ended (`POST /calls/:id/sync`). */
export function syncCall(client: OracleClient, callId: string): Promise<SyncCallResponse> {
  return client.json('POST', `${callPath(callId)}/sync`, SyncCallResponseSchema, {});
}

/** Moves a call to active or ended (`PATCH /calls/:id/update`). */
export async function updateCall(client: OracleClient, callId: string, body: UpdateCallBody): Promise<Call> {
  return (await client.json('PATCH', `${callPath(callId)}/update`, CallResponseSchema, body)).call;
}

/** Ends a call: the oracle's agent leaves, the room closes and the oracle forgets the call's key. */
export function endCall(client: OracleClient, callId: string): Promise<Call> {
  return updateCall(client, callId, { callStatus: 'ended', callEndedAt: new Date().toISOString() });
}

/** One call of the caller's (`GET /calls/:id`). */
export async function getCall(client: OracleClient, callId: string): Promise<Call> {
  return (await client.json('GET', callPath(callId), CallResponseSchema)).call;
}

/** The caller's calls, newest first, optionally of one session (`GET /calls`). */
export function listCalls(
  client: OracleClient,
  o: { sessionId?: string; limit?: number; offset?: number } = {},
): Promise<ListCallsResponse> {
  const q = new URLSearchParams();
  if (o.sessionId !== undefined) q.set('sessionId', o.sessionId);
  if (o.limit !== undefined) q.set('limit', String(o.limit));
  if (o.offset !== undefined) q.set('offset', String(o.offset));
  const s = q.toString();
  return client.json('GET', `/calls${s ? `?${s}` : ''}`, ListCallsResponseSchema);
}
