/**
 * The oracle's agent in a call's room: a LiveKit participant through
 * @livekit/rtc-node (Opus, PCM frames and LiveKit's frame encryption with the
 * call's key), the same against the embedded endpoint and a LiveKit server.
 * It publishes one audio track (its voice), listens to the call's user only
 * (an observer is not heard) and hands the audio to the call's VoiceSession;
 * the user's camera, if any, to the call's Camera (its latest frame only).
 * @livekit/rtc-node is loaded on the first call, never at boot.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Livekit from '@livekit/rtc-node';
import type { EncryptionState, RemoteTrack, RemoteTrackPublication, Room, TrackPublication } from '@livekit/rtc-node';
import type { Call } from 'oraclekit/plugin';
import type { PluginHost } from 'oraclekit/plugin';
import { callsError } from './errors.ts';
import { joinToken, type LiveKitTarget } from './livekit.ts';
import type { CallsEnv } from './settings.ts';
import { stagesLine, VoiceSession, type VoiceEvents, type VoiceServices } from './voice.ts';
import { Transcripts } from './transcripts.ts';
import { VAD_RATE, VAD_WINDOW_MS } from './vad.ts';
import { Camera } from './camera.ts';
import { taskTurns } from './turns.ts';
import { UserAudio, type UserPacket } from './user-audio.ts';

type Rtc = typeof Livekit;

/** How long the agent may take to join a room before the sync answers 502. */
const JOIN_TIMEOUT_MS = 15_000;

/** Undecryptable frames in a row before a participant's media counts as not opened by the call's key. */
const FAILURE_TOLERANCE = 10;
/** The frame cryptor states that say the call's key does not open a participant's frames. */
const UNDECRYPTABLE = new Set<number>([3 /* DECRYPTION_FAILED */, 4 /* MISSING_KEY */]);

/**
 * A place among the agents joining at once, two, and its release. An agent's join holds the event loop in short
 * bursts (rtc-node's connect begins with a synchronous request to its native side of 10–30 ms, then its room's first
 * events and the encryption's set-up): eight agents joining at once, as a stranger syncing every call they may have
 * makes them, queue up 0.1–0.3 s of them in front of every other user's requests. Two at a time, each starting in a
 * task of its own, they do not.
 */
const connectTurn = taskTurns(2);

/**
 * Connects the agent's room with the call's key, within JOIN_TIMEOUT_MS; a room that cannot be joined is left and
 * the agent's audio source closed before the 502.
 */
async function connect(
  room: Room,
  conn: { url: string; token: string },
  key: string,
  source: { close(): Promise<void> },
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const release = await connectTurn();
  try {
    await Promise.race([
      room.connect(conn.url, conn.token, {
        autoSubscribe: true,
        dynacast: false,
        e2ee: {
          // libwebrtc reports a participant's frames as undecryptable only with a finite tolerance (the default,
          // -1, retries for ever in silence): after 10 failures in a row
          keyProviderOptions: { sharedKey: new TextEncoder().encode(key), failureTolerance: FAILURE_TOLERANCE },
        },
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${JOIN_TIMEOUT_MS / 1000} s`)), JOIN_TIMEOUT_MS);
      }),
    ]);
  } catch (e) {
    await room.disconnect().catch(() => {});
    await source.close().catch(() => {});
    throw callsError(
      'call_agent_unavailable',
      `the oracle's agent could not join the call's room at ${conn.url}: ${(e as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * Calls `cb` with each participant's frame encryption state. @livekit/rtc-node (1.1) receives the state from its
 * native side (E2eeStateChanged) but emits only an internal error (RoomEvent.EncryptionError): the state is read
 * off the room's event handler, which connect() registers, so this is set before connecting.
 */
function onEncryptionState(room: Room, cb: (identity: string, state: EncryptionState) => void): void {
  type FfiEvent = {
    message: { case?: string; value?: { message?: { case?: string; value?: unknown } } };
  };
  const r = room as unknown as { onFfiEvent: (e: FfiEvent) => Promise<void> };
  const handle = r.onFfiEvent;
  r.onFfiEvent = (e) => {
    const inner = e.message.case === 'roomEvent' ? e.message.value?.message : undefined;
    if (inner?.case === 'e2eeStateChanged') {
      const v = inner.value as { participantIdentity?: string; state?: EncryptionState };
      if (v.state !== undefined) cb(v.participantIdentity ?? '', v.state);
    }
    return handle(e);
  };
}

/**
 * Stops @livekit/rtc-node forwarding its native side's logs to JavaScript. It initialises its native side with log
 * capture on, and the native side then sends each log record (libwebrtc's and the SDK's, debug and trace included:
 * about 130 a second per room, thousands while rooms are joined) as an event of its own, which the process decodes and
 * hands to every room's listener, only for rtc-node to drop it: with eight calls, most of the event loop's time. The
 * native side is initialised again, with capture off and the same event callback as rtc-node's own (decode, then
 * emit to its client); its logger then writes errors to stderr (RUST_LOG sets more). Done once, after rtc-node made
 * its client; a version of rtc-node without that client is left as it is.
 */
let nativeLogsQuieted = false;
function quietNativeLogs(): void {
  if (nativeLogsQuieted) return;
  nativeLogsQuieted = true;
  const client = (globalThis as { _ffiClientInstance?: { emit(event: string, value: unknown): boolean } })
    ._ffiClientInstance;
  if (!client) return;
  // rtc-node's own copy of its bindings: the native side it initialised
  const main = createRequire(import.meta.url).resolve('@livekit/rtc-node');
  const fromRtc = createRequire(main);
  const bindings = fromRtc('@livekit/rtc-ffi-bindings') as {
    livekitInitialize(callback: (data: Uint8Array) => void, captureLogs: boolean, sdkVersion: string): void;
    FfiEvent: { fromBinary(data: Uint8Array): unknown };
  };
  // the version rtc-node reports to the server as it joins (its package's; the package exports no package.json)
  const { version } = fromRtc(join(dirname(main), '..', 'package.json')) as { version: string };
  bindings.livekitInitialize((data) => client.emit('ffi_event', bindings.FfiEvent.fromBinary(data)), false, version);
}

interface CallAgentsOptions {
  host: PluginHost;
  env: CallsEnv;
  log: (line: string) => void;
  oracleDid: string;
  oracleName: string;
  /** Rewrites a stored answer's row to what the user heard of it (an answer cut after its turn ended). */
  keepHeard?: (sessionId: string, answerId: string, text: string) => Promise<void>;
  /** A participant joined (true) or left (false) a call's room, as the agent sees it. */
  onPresence?: (callId: string, identity: string, present: boolean) => void;
  /** Each call's voice as it happens: its state, both sides' transcripts, the stages of each answer, interruptions. */
  onVoice?: (callId: string, voice: VoiceSession) => void;
  /**
   * The embedded endpoint's packets of a participant's audio as they arrive (sfu/thread.ts, `tapAudio`), until the
   * returned function is called: the agent hears its user from them (user-audio.ts) rather than through rtc-node's
   * jitter buffer. Undefined with a LiveKit server.
   */
  tapAudio?: (room: string, identity: string, onPacket: (p: UserPacket) => void) => Promise<() => void> | undefined;
}

export type { VoiceEvents };

interface LiveAgent {
  room: Room;
  voice: VoiceSession;
  camera: Camera;
  userDid: string;
  /** Stops hearing the user's audio from the endpoint's packets. */
  stopHearing: () => void;
}

export class CallAgents {
  private readonly o: CallAgentsOptions;
  private readonly live = new Map<string, Promise<LiveAgent>>();

  constructor(o: CallAgentsOptions) {
    this.o = o;
  }

  private services(): VoiceServices {
    const e = this.o.env;
    return {
      stt: {
        baseUrl: e.CALLS_STT_BASE_URL ?? e.LLM_BASE_URL ?? '',
        apiKey: e.CALLS_STT_API_KEY ?? e.LLM_PROVIDER_API_KEY,
        model: e.CALLS_STT_MODEL,
      },
      tts: {
        baseUrl: e.CALLS_TTS_BASE_URL ?? e.LLM_BASE_URL ?? '',
        apiKey: e.CALLS_TTS_API_KEY ?? e.LLM_PROVIDER_API_KEY,
        model: e.CALLS_TTS_MODEL,
        voice: e.CALLS_TTS_VOICE,
      },
      endOfTurnMs: e.CALLS_END_OF_TURN_MS,
      minInterruptionMs: e.CALLS_MIN_INTERRUPTION_MS,
      earlyTranscriptionMs: e.CALLS_EARLY_TRANSCRIPTION_MS,
      preemptiveGeneration: e.CALLS_PREEMPTIVE_GENERATION !== 'off',
      preemptiveSpeech: e.CALLS_PREEMPTIVE_GENERATION === 'on',
    };
  }

  /** The agent of a call, once per call (a second sync finds it in the room). */
  async join(call: Call, key: string, target: LiveKitTarget, greeting?: string): Promise<void> {
    let joining = this.live.get(call.callId);
    if (!joining) {
      joining = this.start(call, key, target, greeting);
      this.live.set(call.callId, joining);
      joining.catch(() => this.live.delete(call.callId));
    }
    await joining;
  }

  /** The camera of a call whose agent is in the room, for the call's own user only. */
  async cameraOf(callId: string, userDid: string): Promise<Camera | undefined> {
    const a = await this.live.get(callId)?.catch(() => undefined);
    return a && a.userDid === userDid ? a.camera : undefined;
  }

  /** Joins the call's room as its agent: speech services checked, its voice published, the user listened to. */
  private async start(call: Call, key: string, target: LiveKitTarget, greeting?: string): Promise<LiveAgent> {
    const services = this.services();
    if (!services.stt.baseUrl || !services.tts.baseUrl)
      throw callsError(
        'call_agent_unavailable',
        'the agent has no speech services: set LLM_BASE_URL, or CALLS_STT_BASE_URL and CALLS_TTS_BASE_URL (docs/live-agent.md)',
      );
    const rtc = await import('@livekit/rtc-node');
    const room = new rtc.Room();
    const identity = this.o.oracleDid || `agent-${call.callId}`;
    const conn = await joinToken(target, {
      room: call.roomName,
      identity,
      name: this.o.oracleName,
      role: 'agent',
    });
    const source = new rtc.AudioSource(48_000, 1);
    quietNativeLogs(); // rtc-node's client exists once it made its first request (the audio source)
    const transcripts = new Transcripts(room, { user: call.userDid, agent: identity }, this.o.log);
    const voice = new VoiceSession({
      rtc,
      host: this.o.host,
      userDid: call.userDid,
      sessionId: call.sessionId,
      callId: call.callId,
      language: call.language,
      voice: call.agentVoice,
      services,
      source,
      log: this.o.log,
      transcripts,
      ...(this.o.keepHeard ? { keepHeard: this.o.keepHeard } : {}),
    });
    // the agent's state as a LiveKit Agents worker publishes it: LiveKit's UI (useVoiceAssistant) shows it
    voice.on('state', (state) => {
      void room.localParticipant?.setAttributes({ 'lk.agent.state': state }).catch(() => {});
    });
    voice.on('stages', (t) => this.o.log(`[calls] ${call.callId}: ${stagesLine(t)}`));
    this.o.onVoice?.(call.callId, voice);
    const camera = new Camera(rtc);
    const decryptable = this.refuseUndecryptable(call, voice, camera);
    onEncryptionState(room, (identity, state) => {
      if (UNDECRYPTABLE.has(state)) decryptable(identity, false);
      else if (state === 1 /* OK */) decryptable(identity, true);
    });
    await connect(room, conn, key, source);
    const track = rtc.LocalAudioTrack.createAudioTrack('oracle-voice', source);
    const published = await room.localParticipant!.publishTrack(
      track,
      new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE }),
    );
    transcripts.agentTrack = published.sid;
    const stopHearing = this.listenToUser(
      rtc,
      room,
      call,
      voice,
      camera,
      transcripts,
      target.mode === 'embedded' ? key : undefined,
      decryptable,
    );
    this.followPresence(rtc, room, call);
    if (greeting) this.greetWhenHeard(rtc, room, call, voice, published, greeting);
    this.o.log(`[calls] ${call.callId}: the agent joined room ${call.roomName}`);
    return { room, voice, camera, userDid: call.userDid, stopHearing };
  }

  /**
   * Says the greeting once the call's user can hear it. The agent joins at the call's first sync, before the user's
   * page does: spoken at once, the greeting would be over before anyone heard it. The room's server tells a publisher
   * when a subscription to its track is live (LiveKit's `trackSubscribed`, LocalTrackSubscribed here), not who
   * subscribed: the greeting starts at the first such subscription to the agent's voice while the call's user is in
   * the room. A user who does not hear the agent within CALLS_JOIN_TIMEOUT_S (a call no user joins ends by then)
   * gets no greeting.
   */
  private greetWhenHeard(
    rtc: Rtc,
    room: Room,
    call: Call,
    voice: VoiceSession,
    published: { sid?: string },
    greeting: string,
  ): void {
    const waitS = this.o.env.CALLS_JOIN_TIMEOUT_S;
    const subscribed = (track: { sid?: string }) => {
      if (track.sid !== published.sid || !room.remoteParticipants.has(call.userDid)) return;
      stop();
      voice.greet(greeting);
    };
    const timer = setTimeout(() => {
      stop();
      this.o.log(`[calls] ${call.callId}: no greeting: the user did not hear the agent within ${waitS} s`);
    }, waitS * 1000).unref();
    const stop = () => {
      clearTimeout(timer);
      room.off(rtc.RoomEvent.LocalTrackSubscribed, subscribed);
    };
    room.on(rtc.RoomEvent.LocalTrackSubscribed, subscribed);
  }

  /** Tells who joins and leaves the room (a LiveKit server says nothing else of its participants to the oracle). */
  private followPresence(rtc: Rtc, room: Room, call: Call): void {
    const on = this.o.onPresence;
    if (!on) return;
    room.on(rtc.RoomEvent.ParticipantConnected, (p) => on(call.callId, p.identity, true));
    room.on(rtc.RoomEvent.ParticipantDisconnected, (p) => on(call.callId, p.identity, false));
    for (const p of room.remoteParticipants.values()) on(call.callId, p.identity, true);
  }

  /**
   * What to tell whether a participant's frames decrypt with the call's key (rtc-node's frame cryptors, and the
   * user's packets the agent opens itself): one that does not is refused, said once in the log, and not listened to
   * until its frames decrypt again.
   */
  private refuseUndecryptable(
    call: Call,
    voice: VoiceSession,
    camera: Camera,
  ): (identity: string, ok: boolean) => void {
    const refused = new Set<string>();
    return (identity, ok) => {
      if (!ok) {
        if (identity === call.userDid) {
          voice.refuse(true);
          camera.refuse(true);
        }
        if (refused.has(identity)) return;
        refused.add(identity);
        this.o.log(
          `[calls] ${call.callId}: e2ee_key_mismatch: the media of ${identity} cannot be decrypted with the call's key; the agent does not listen to it`,
        );
      } else if (refused.delete(identity)) {
        if (identity === call.userDid) {
          voice.refuse(false);
          camera.refuse(false);
        }
        this.o.log(`[calls] ${call.callId}: the media of ${identity} decrypts with the call's key again`);
      }
    };
  }

  /**
   * Hands the call's user's microphone to the voice and camera to the camera (an observer is not heard), for tracks
   * subscribed from now on and those subscribed before; follows the camera's mute. On the embedded endpoint (`key`
   * given) the voice hears the endpoint's packets of the user's audio (user-audio.ts), from the first microphone
   * subscribed on, the user's later connections included, and rtc-node unsubscribes from each microphone (the endpoint
   * then stops forwarding it to the agent: packets no one reads); whether those packets decrypt goes to `decryptable`.
   * Else rtc-node's AudioStream of each microphone subscribed. Returns what stops hearing the packets.
   */
  private listenToUser(
    rtc: Rtc,
    room: Room,
    call: Call,
    voice: VoiceSession,
    camera: Camera,
    transcripts: Transcripts,
    key: string | undefined,
    decryptable: (identity: string, ok: boolean) => void,
  ): () => void {
    const tapAudio = key !== undefined ? this.o.tapAudio : undefined;
    let direct: Promise<UserAudio | undefined> | undefined;
    let stopped = false;
    const hearPackets = async (): Promise<UserAudio | undefined> => {
      const audio = await UserAudio.open({ rtc, key: key!, failureTolerance: FAILURE_TOLERANCE, log: this.o.log });
      audio.onDecryptable = (ok) => decryptable(call.userDid, ok);
      const untap = stopped ? undefined : await tapAudio!(call.roomName, call.userDid, (p) => audio.push(p));
      if (!untap || stopped) {
        untap?.();
        audio.end();
        return undefined;
      }
      audio.onEnd = untap;
      return audio;
    };
    const isCamera = (pub: TrackPublication) => pub.source === rtc.TrackSource.SOURCE_CAMERA;
    const listen = (t: RemoteTrack, pub: RemoteTrackPublication, identity: string) => {
      if (identity !== call.userDid) return;
      if (t.kind === rtc.TrackKind.KIND_VIDEO && isCamera(pub)) {
        this.o.log(
          `[calls] ${call.callId}: the agent receives the user's camera (a frame goes to the model on request)`,
        );
        camera.mute(pub.muted === true);
        void camera.watch(new rtc.VideoStream(t)).catch((e: unknown) => {
          this.o.log(`[calls] ${call.callId}: the user's camera stopped: ${(e as Error).message}`);
        });
        return;
      }
      if (t.kind !== rtc.TrackKind.KIND_AUDIO) return;
      const how = tapAudio ? ', its packets as they arrive (no jitter buffer)' : '';
      this.o.log(`[calls] ${call.callId}: the agent hears the user${how}`);
      transcripts.userTrack = pub.sid;
      const failed = (e: unknown) => {
        this.o.log(`[calls] ${call.callId}: the user's audio stopped: ${(e as Error).message}`);
      };
      // frames of one voice-activity window (32 ms): a third of the events 10 ms frames make, none of them later
      const throughRtc = () =>
        voice.listen(new rtc.AudioStream(t, { sampleRate: VAD_RATE, numChannels: 1, frameSizeMs: VAD_WINDOW_MS }));
      if (tapAudio) {
        // one tap for all the user's microphones (a later connection's come through it too)
        const first = direct === undefined;
        direct ??= hearPackets().catch((e: unknown) => {
          // e.g. the Opus decoder did not load: the agent hears the user as any participant does
          this.o.log(
            `[calls] ${call.callId}: the user's packets cannot be heard (${(e as Error).message}): through rtc-node`,
          );
          return undefined;
        });
        void direct
          .then((audio) => {
            if (!audio) return stopped ? undefined : throughRtc();
            // its packets come through the tap: rtc-node would only decode them again
            pub.setSubscribed(false);
            return first ? voice.listen(audio) : undefined;
          })
          .catch(failed);
        return;
      }
      void throughRtc().catch(failed);
    };
    room.on(rtc.RoomEvent.TrackSubscribed, (t, pub, participant) => listen(t, pub, participant.identity));
    const muted = (on: boolean) => (pub: TrackPublication, p: { identity: string }) => {
      if (p.identity === call.userDid && isCamera(pub)) camera.mute(on);
    };
    room.on(rtc.RoomEvent.TrackMuted, muted(true));
    room.on(rtc.RoomEvent.TrackUnmuted, muted(false));
    // tracks subscribed before the listener was set
    for (const p of room.remoteParticipants.values())
      for (const pub of p.trackPublications.values()) if (pub.track) listen(pub.track, pub, p.identity);
    return () => {
      stopped = true;
      void direct?.then((audio) => audio?.end()).catch(() => {});
    };
  }

  async leave(callId: string): Promise<void> {
    const joining = this.live.get(callId);
    if (!joining) return;
    this.live.delete(callId);
    const a = await joining.catch(() => undefined);
    if (!a) return;
    a.stopHearing();
    a.voice.close();
    a.camera.close();
    await a.room.disconnect().catch(() => {});
  }

  async close(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.leave(id)));
  }
}
