/**
 * What a call's room says of the agent and the user, for useLiveAgent: the agent's state (the `lk.agent.state`
 * attribute of the participant of kind AGENT), both sides' live transcripts (text streams on `lk.transcription`, one
 * entry per `lk.segment_id`, the latest text winning), the microphone's mute, and the devices in use. The same
 * conventions LiveKit's own UI reads (`useVoiceAssistant`, `useTranscriptions`).
 */
import { useCallback, useEffect, useState } from 'react';
import {
  ConnectionState,
  ParticipantKind,
  Room,
  RoomEvent,
  Track,
  type RoomEventCallbacks,
  type TextStreamReader,
} from 'livekit-client';

/** The agent's state as LiveKit's UI names it: before it is in the room, then as it publishes it. */
export type AgentState = 'disconnected' | 'connecting' | 'initializing' | 'listening' | 'thinking' | 'speaking';

/** One segment of the call's transcript: an utterance of the user's or an answer of the agent's. */
export interface TranscriptSegment {
  id: string;
  speaker: 'user' | 'agent';
  /** Who said it (the participant's identity). */
  identity: string;
  text: string;
  /** False while it streams (an answer as it is spoken); true once it is what was said (or heard). */
  final: boolean;
}

/** Listeners of a room's events, by event. */
export type RoomListeners = { [E in keyof RoomEventCallbacks]?: RoomEventCallbacks[E] };

/** Subscribes each listener to its room event; the function returned unsubscribes them all (an effect's cleanup). */
export function onRoomEvents(room: Room, listeners: RoomListeners): () => void {
  const pairs = Object.entries(listeners) as [keyof RoomEventCallbacks, RoomEventCallbacks[keyof RoomEventCallbacks]][];
  for (const [event, listener] of pairs) room.on(event, listener);
  return () => {
    for (const [event, listener] of pairs) room.off(event, listener);
  };
}

/** A microphone or camera the page may use. */
export interface MediaDevice {
  deviceId: string;
  label: string;
}

export interface AgentRoom {
  agentState: AgentState;
  transcript: TranscriptSegment[];
  muted: boolean;
  setMuted: (muted: boolean) => Promise<void>;
  microphones: MediaDevice[];
  cameras: MediaDevice[];
  /** The device in use (its deviceId), once one is. */
  microphoneId: string | undefined;
  cameraId: string | undefined;
  setMicrophone: (deviceId: string) => Promise<void>;
  setCamera: (deviceId: string) => Promise<void>;
}

const TOPIC = 'lk.transcription';
const STATES = new Set<string>(['initializing', 'listening', 'thinking', 'speaking']);

function agentStateOf(room: Room): AgentState {
  if (room.state !== ConnectionState.Connected)
    return room.state === ConnectionState.Disconnected ? 'disconnected' : 'connecting';
  const agent = [...room.remoteParticipants.values()].find((p) => p.kind === ParticipantKind.AGENT);
  const s = agent?.attributes['lk.agent.state'];
  return s && STATES.has(s) ? (s as AgentState) : agent ? 'initializing' : 'connecting';
}

function useAgentState(room: Room): AgentState {
  const [state, setState] = useState<AgentState>(() => agentStateOf(room));
  useEffect(() => {
    const update = () => setState(agentStateOf(room));
    const events = [
      RoomEvent.ConnectionStateChanged,
      RoomEvent.ParticipantConnected,
      RoomEvent.ParticipantDisconnected,
      RoomEvent.ParticipantAttributesChanged,
    ] as const;
    for (const e of events) room.on(e, update);
    update();
    return () => {
      for (const e of events) room.off(e, update);
    };
  }, [room]);
  return state;
}

/** The room's transcript, read from its `lk.transcription` text streams (off: another reader has the topic). */
function useTranscript(room: Room, on: boolean): TranscriptSegment[] {
  const [segments, setSegments] = useState<TranscriptSegment[]>([]);
  useEffect(() => {
    if (!on) return;
    const read = async (reader: TextStreamReader, from: { identity: string }) => {
      const a = reader.info.attributes ?? {};
      const id = a['lk.segment_id'] ?? reader.info.id;
      const final = a['lk.transcription_final'] === 'true';
      const agent = room.remoteParticipants.get(from.identity)?.kind === ParticipantKind.AGENT;
      let text = '';
      const put = () =>
        setSegments((all) => {
          const s: TranscriptSegment = { id, speaker: agent ? 'agent' : 'user', identity: from.identity, text, final };
          const at = all.findIndex((x) => x.id === id);
          return at === -1 ? [...all, s] : all.map((x, i) => (i === at ? s : x));
        });
      for await (const chunk of reader) {
        text += chunk;
        put();
      }
      put();
    };
    room.registerTextStreamHandler(TOPIC, (reader, from) => void read(reader, from).catch(() => {}));
    const clear = () => setSegments([]);
    room.on(RoomEvent.Connected, clear);
    return () => {
      room.unregisterTextStreamHandler(TOPIC);
      room.off(RoomEvent.Connected, clear);
    };
  }, [room, on]);
  return segments;
}

const asDevices = (list: MediaDeviceInfo[]): MediaDevice[] =>
  list.filter((d) => d.deviceId).map((d) => ({ deviceId: d.deviceId, label: d.label }));

/** The microphones and cameras, the ones in use, and the microphone's mute. */
function useDevices(room: Room) {
  const [microphones, setMicrophones] = useState<MediaDevice[]>([]);
  const [cameras, setCameras] = useState<MediaDevice[]>([]);
  const [active, setActive] = useState<{ audioinput?: string; videoinput?: string }>({});
  const [muted, setMutedState] = useState(false);
  useEffect(() => {
    const list = () => {
      void Room.getLocalDevices('audioinput', false).then(
        (d) => setMicrophones(asDevices(d)),
        () => {},
      );
      void Room.getLocalDevices('videoinput', false).then(
        (d) => setCameras(asDevices(d)),
        () => {},
      );
    };
    const onActive = (kind: MediaDeviceKind, deviceId: string) => setActive((a) => ({ ...a, [kind]: deviceId }));
    const onMute = () => {
      const mic = room.localParticipant.getTrackPublication(Track.Source.Microphone);
      setMutedState(mic ? mic.isMuted : false);
      setActive({
        audioinput: room.getActiveDevice('audioinput'),
        videoinput: room.getActiveDevice('videoinput'),
      });
    };
    const off = onRoomEvents(room, {
      [RoomEvent.MediaDevicesChanged]: list,
      [RoomEvent.ActiveDeviceChanged]: onActive,
      [RoomEvent.LocalTrackPublished]: onMute,
      [RoomEvent.TrackMuted]: onMute,
      [RoomEvent.TrackUnmuted]: onMute,
      [RoomEvent.Connected]: list,
    });
    list();
    return off;
  }, [room]);
  const setMuted = useCallback(
    async (on: boolean) => {
      await room.localParticipant.setMicrophoneEnabled(!on);
      setMutedState(on);
    },
    [room],
  );
  const setMicrophone = useCallback(
    async (id: string) => void (await room.switchActiveDevice('audioinput', id)),
    [room],
  );
  const setCamera = useCallback(async (id: string) => void (await room.switchActiveDevice('videoinput', id)), [room]);
  return {
    microphones,
    cameras,
    microphoneId: active.audioinput,
    cameraId: active.videoinput,
    muted,
    setMuted,
    setMicrophone,
    setCamera,
  };
}

/** The agent's state, the transcript (unless `transcript` is false), the mute and the devices of a call's room. */
export function useAgentRoom(room: Room, o: { transcript: boolean }): AgentRoom {
  const agentState = useAgentState(room);
  const transcript = useTranscript(room, o.transcript);
  return { agentState, transcript, ...useDevices(room) };
}
