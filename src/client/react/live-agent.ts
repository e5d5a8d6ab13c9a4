/**
 * `oraclekit/react/live-agent`: useLiveAgent, a live voice (or video) call
 * with an oracle's agent in a browser (docs/live-agent.md). It creates the
 * call (POST /calls: its key and a join token), brings the agent in
 * (POST /calls/:id/sync), joins the LiveKit room with LiveKit's own client and
 * end-to-end encryption keyed by the call, publishes the microphone (and the
 * camera for a video call) and marks the call active; endCall leaves and ends
 * it. The IXO SDK's return shape, without its Matrix requirement. A call
 * that drops (the oracle went away, the network failed past LiveKit's own
 * reconnection) ends with an `error` naming what happened.
 * livekit-client is loaded by this entry point only.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { DisconnectReason, ExternalE2EEKeyProvider, isE2EESupported, Room, RoomEvent } from 'livekit-client';
import { createCall, syncCall, updateCall } from '../calls.ts';
import type { CallType } from '../../lib/protocol/calls.ts';
import { useOraclesContext } from './context.tsx';
import { useOraclesConfig, type OracleOverrides } from './config.ts';
import { onRoomEvents, useAgentRoom, type AgentRoom } from './agent-room.ts';

export type { AgentState, MediaDevice, TranscriptSegment } from './agent-room.ts';

const LIVE_AGENT = Symbol.for('oraclekit.client.error.live_agent');

/** Why a call could not start in this browser (checked before any call is created, so none is charged). */
export class LiveAgentError extends Error {
  readonly [LIVE_AGENT] = true;
  readonly code: 'e2ee_unsupported' | 'microphone_unavailable' | 'camera_unavailable' | 'not_ready' | 'call_dropped';
  constructor(code: LiveAgentError['code'], message: string) {
    super(message);
    this.name = 'LiveAgentError';
    this.code = code;
  }

  /** True for a LiveAgentError from any copy of the package (`instanceof` fails across two bundled copies). */
  static isInstance(e: unknown): e is LiveAgentError {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[LIVE_AGENT] === true;
  }
}

export interface CallAgentInput {
  callType: CallType;
  sessionId: string;
  /**
   * The caller's DID (the IXO SDK's field; the oracle takes the caller from the UCAN, and a different one is refused).
   */
  userDid?: string;
  agentVoice?: string;
  language?: string;
  /** What the agent says once the user hears it (default: the oracle's CALLS_GREETING, else nothing). */
  greeting?: string;
}

export interface UseLiveAgentOptions {
  overrides?: OracleOverrides;
  /** Told of media device and encryption errors during the call (the IXO SDK's toastAlert). */
  toastAlert?: (t: { title: string; description: string }) => void;
  /**
   * The E2EE worker (default: livekit-client's, `new URL('livekit-client/e2ee-worker', import.meta.url)`, which
   * bundlers resolve).
   */
  worker?: Worker;
  /**
   * Whether `transcript` reads the room's `lk.transcription` text streams (default true). A room takes one reader per
   * topic: set false when LiveKit's own hooks (`useTranscriptions`, `useVoiceAssistant`) read them instead.
   */
  transcript?: boolean;
}

export interface UseLiveAgentResult extends AgentRoom {
  callAgent: (input: CallAgentInput) => Promise<{ callId: string; encryptionKey: string }>;
  endCall: () => Promise<void>;
  room: Room;
  isCalling: boolean;
  isConnecting: boolean;
  /** Connected to the room (the IXO SDK's name for it). */
  isReady: boolean;
  isConfigReady: boolean;
  sessionStarted: boolean;
  sessionViewVisible: boolean;
  /** LiveKit is reconnecting the call after a network failure (it resumes, or the call drops). */
  isReconnecting: boolean;
  /** The call in progress. */
  callId: string | undefined;
  /**
   * Why the last call could not start or ended unasked: a LiveAgentError (`call_dropped` names what happened), or
   * the oracle's error (`calls_unavailable`: the oracle does not offer calls).
   */
  error: Error | undefined;
}

/** How long callAgent waits for the oracle's configuration (its URL, from the registry or the overrides). */
const CONFIG_WAIT_MS = 10_000;

/** What a call's end, unasked, means to the person on the call, from LiveKit's reason. */
export function dropMessage(reason: DisconnectReason | undefined): string {
  switch (reason) {
    case DisconnectReason.SERVER_SHUTDOWN:
      return 'the call dropped: the oracle shut down';
    case DisconnectReason.ROOM_DELETED:
    case DisconnectReason.ROOM_CLOSED:
      return 'the call ended: the oracle ended it';
    case DisconnectReason.PARTICIPANT_REMOVED:
      return 'the call ended: the oracle removed you from it';
    case DisconnectReason.DUPLICATE_IDENTITY:
      return 'the call moved: you joined it from another page';
    default:
      return 'the call dropped: the connection to the oracle was lost and could not be resumed';
  }
}

function defaultWorker(): Worker | undefined {
  if (typeof Worker === 'undefined') return undefined;
  return new Worker(new URL('livekit-client/e2ee-worker', import.meta.url), { type: 'module' });
}

/** What this browser lacks for an encrypted call, before anything is created. */
async function checkBrowser(callType: CallType): Promise<void> {
  if (!isE2EESupported())
    throw new LiveAgentError(
      'e2ee_unsupported',
      'this browser cannot encrypt a call end to end (LiveKit needs encoded insertable streams or RTCRtpScriptTransform): use a current Chrome, Edge, Firefox or Safari',
    );
  const devices = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
  if (!devices?.getUserMedia)
    throw new LiveAgentError(
      'microphone_unavailable',
      'this page cannot use a microphone (no navigator.mediaDevices: a secure https origin is needed)',
    );
  const kinds = callType === 'video' ? { audio: true, video: true } : { audio: true };
  try {
    const s = await devices.getUserMedia(kinds);
    for (const t of s.getTracks()) t.stop();
  } catch (e) {
    const err = e as Error;
    const what = callType === 'video' ? 'microphone or camera' : 'microphone';
    throw new LiveAgentError(
      callType === 'video' && /video|camera/i.test(err.message) ? 'camera_unavailable' : 'microphone_unavailable',
      `no ${what} for the call: ${err.name}: ${err.message}`,
    );
  }
}

/** The call's room with end-to-end encryption when the browser has it; its E2EE worker ends with it. */
function useEncryptedRoom(workerOption: Worker | undefined) {
  const keyProvider = useMemo(() => new ExternalE2EEKeyProvider(), []);
  const worker = useMemo(() => workerOption ?? defaultWorker(), [workerOption]);
  const room = useMemo(
    () =>
      new Room({
        // livekit-client's Room throws at construction when asked for E2EE the browser lacks: callAgent refuses instead
        ...(worker && isE2EESupported() ? { e2ee: { keyProvider, worker } } : {}),
        // the embedded endpoint speaks the dual peer connection path; a LiveKit server does too
        singlePeerConnection: false,
        adaptiveStream: false,
        dynacast: false,
        publishDefaults: { simulcast: false, red: false },
      }),
    [keyProvider, worker],
  );
  useEffect(() => () => worker?.terminate(), [worker]);
  return { room, keyProvider };
}

/**
 * Brings the agent into a created call, joins its room encrypted with the call's key, publishes the microphone (and
 * the camera for a video call) and marks the call active. A call that could not start is ended, not left pending.
 */
async function joinCall(
  room: Room,
  keyProvider: ExternalE2EEKeyProvider,
  client: Parameters<typeof syncCall>[0],
  call: { callId: string; encryptionKey: string },
  callType: CallType,
  leaving: { current: boolean },
): Promise<void> {
  try {
    const { connection } = await syncCall(client, call.callId);
    await keyProvider.setKey(call.encryptionKey);
    await room.setE2EEEnabled(true);
    await room.connect(connection.url, connection.token);
    await room.localParticipant.setMicrophoneEnabled(true);
    if (callType === 'video') await room.localParticipant.setCameraEnabled(true);
    await updateCall(client, call.callId, { callStatus: 'active', callStartedAt: new Date().toISOString() });
  } catch (e) {
    leaving.current = true; // this page leaves: no drop to report
    await room.disconnect().catch(() => {});
    leaving.current = false;
    await updateCall(client, call.callId, { callStatus: 'ended' }).catch(() => {});
    throw e;
  }
}

/**
 * Whether the room is connected and the call's session started, as its events say; device and encryption errors are
 * toasted.
 */
function useRoomState(
  room: Room,
  toast: UseLiveAgentOptions['toastAlert'],
  onDrop: (reason: DisconnectReason | undefined) => void,
) {
  const [isConnecting, setConnecting] = useState(false);
  const [isReady, setReady] = useState(false);
  const [isReconnecting, setReconnecting] = useState(false);
  const [sessionStarted, setSessionStarted] = useState(false);
  useEffect(() => {
    const onConnected = () => {
      setReady(true);
      setConnecting(false);
    };
    const onDisconnected = (reason?: DisconnectReason) => {
      setReady(false);
      setConnecting(false);
      setReconnecting(false);
      setSessionStarted(false);
      onDrop(reason);
    };
    const onReconnecting = () => setReconnecting(true);
    const onReconnected = () => setReconnecting(false);
    const onMedia = (e: Error) => toast?.({ title: 'A media device failed', description: `${e.name}: ${e.message}` });
    const onEncryption = (e: Error) => toast?.({ title: 'Encryption error', description: `${e.name}: ${e.message}` });
    return onRoomEvents(room, {
      [RoomEvent.Connected]: onConnected,
      [RoomEvent.Disconnected]: onDisconnected,
      [RoomEvent.Reconnecting]: onReconnecting,
      [RoomEvent.Reconnected]: onReconnected,
      [RoomEvent.MediaDevicesError]: onMedia,
      [RoomEvent.EncryptionError]: onEncryption,
    });
  }, [room, toast, onDrop]);
  return { isReady, isConnecting, isReconnecting, setConnecting, sessionStarted, setSessionStarted };
}

/** The oracle's configuration now, or once it is resolved (callAgent before it waits rather than failing). */
function useConfigWait<T>(config: T | undefined, oracleDid: string): () => Promise<T> {
  const latest = useRef(config);
  const waiters = useRef(new Set<(c: T) => void>());
  useEffect(() => {
    latest.current = config;
    if (config === undefined) return;
    for (const w of waiters.current) w(config);
    waiters.current.clear();
  }, [config]);
  return useCallback(async () => {
    if (latest.current !== undefined) return latest.current;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.current.delete(done);
        reject(
          new LiveAgentError('not_ready', `the oracle ${oracleDid} was not resolved within ${CONFIG_WAIT_MS / 1000} s`),
        );
      }, CONFIG_WAIT_MS);
      const done = (c: T) => {
        clearTimeout(timer);
        resolve(c);
      };
      waiters.current.add(done);
    });
  }, [oracleDid]);
}

/**
 * A live call with an oracle's agent: create it, join its room encrypted, follow the agent's state and the transcript.
 * The call happens in one of the signed-in user's sessions (its history keeps the transcript).
 * @example
 * const { sessionId } = await client.createSession(); // or the session the page's chat works in
 * const { callAgent, endCall, agentState, transcript, muted, setMuted, error } = useLiveAgent(oracleDid);
 * await callAgent({ callType: 'audio', sessionId });
 */
export function useLiveAgent(oracleDid: string, options: UseLiveAgentOptions = {}): UseLiveAgentResult {
  const { clientFor } = useOraclesContext();
  const { config, isReady: isConfigReady } = useOraclesConfig(oracleDid, options.overrides);
  const configNow = useConfigWait(config, oracleDid);
  const { room, keyProvider } = useEncryptedRoom(options.worker);
  const agentRoom = useAgentRoom(room, { transcript: options.transcript !== false });
  const [isCalling, setCalling] = useState(false);
  const [callId, setCallId] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const current = useRef<string | undefined>(undefined);
  /** Set while this page leaves the room itself (endCall, a failed start): that is no drop. */
  const leaving = useRef(false);

  // the room went away unasked (the oracle ended the call or died, the network failed past LiveKit's reconnection):
  // the call is over; the page is told why, and the oracle, if it is still there, that the call ended
  const onDrop = useCallback(
    (reason: DisconnectReason | undefined) => {
      const id = current.current;
      if (leaving.current || id === undefined) return;
      current.current = undefined;
      setCallId(undefined);
      setError(new LiveAgentError('call_dropped', dropMessage(reason)));
      if (config)
        void updateCall(clientFor(oracleDid, config.apiUrl, config.wsUrl), id, { callStatus: 'ended' }).catch(() => {});
    },
    [config, clientFor, oracleDid],
  );
  const { isReady, isConnecting, isReconnecting, setConnecting, sessionStarted, setSessionStarted } = useRoomState(
    room,
    options.toastAlert,
    onDrop,
  );

  const callAgent = useCallback(
    async (input: CallAgentInput) => {
      setCalling(true);
      setError(undefined);
      try {
        const cfg = await configNow();
        await checkBrowser(input.callType);
        const client = clientFor(oracleDid, cfg.apiUrl, cfg.wsUrl);
        const created = await createCall(client, {
          sessionId: input.sessionId,
          callType: input.callType,
          ...(input.agentVoice ? { agentVoice: input.agentVoice } : {}),
          ...(input.language ? { language: input.language } : {}),
          ...(input.greeting ? { greeting: input.greeting } : {}),
        });
        current.current = created.callId;
        setCallId(created.callId);
        setSessionStarted(true);
        setConnecting(true);
        try {
          await joinCall(room, keyProvider, client, created, input.callType, leaving);
        } catch (e) {
          current.current = undefined;
          setCallId(undefined);
          setSessionStarted(false);
          setConnecting(false);
          throw e;
        }
        return { callId: created.callId, encryptionKey: created.encryptionKey };
      } catch (e) {
        setError(e as Error);
        throw e;
      } finally {
        setCalling(false);
      }
    },
    [configNow, oracleDid, clientFor, keyProvider, room],
  );

  // never throws for a call that is already over (dropped, or ended by the oracle)
  const endCall = useCallback(async () => {
    const id = current.current;
    current.current = undefined;
    setSessionStarted(false);
    leaving.current = true;
    try {
      await room.disconnect();
    } finally {
      leaving.current = false;
    }
    setCallId(undefined);
    if (!id || !config) return;
    try {
      await updateCall(clientFor(oracleDid, config.apiUrl, config.wsUrl), id, { callStatus: 'ended' });
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'call_ended') throw e;
    }
  }, [room, config, clientFor, oracleDid]);

  return {
    ...agentRoom,
    callAgent,
    endCall,
    room,
    isCalling,
    isConnecting,
    isReady,
    isReconnecting,
    isConfigReady,
    sessionStarted,
    sessionViewVisible: isReady,
    callId,
    error,
  };
}
