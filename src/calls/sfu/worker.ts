/**
 * The embedded endpoint's own thread (thread.ts starts it): a LiveKitEndpoint
 * on an HTTP server of its own on 127.0.0.1, so that forwarding every call's
 * media (SRTP, DTLS, ICE, data channels) and parsing what participants signal
 * run beside the oracle's event loop, not on it. The oracle's thread relays
 * each `/rtc` connection here and is asked, for every join, whether the room
 * may be joined (its calls are live there); presence and log lines go back to
 * it.
 *
 * The endpoint stamps its rooms, joins and pongs with the system clock: those
 * times are for LiveKit clients, which read them against their own clocks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { listenLiveKitEndpoint } from './endpoint.ts';
import type { EndpointSettings, ToEndpoint, FromEndpoint } from './thread.ts';

const port = parentPort!;
const settings = workerData as EndpointSettings;
const post = (m: FromEndpoint) => port.postMessage(m);

/** Joins waiting for the oracle's answer: may this room be joined. */
const admissions = new Map<number, (refusal: string | undefined) => void>();
let nextAdmission = 0;

const server = await listenLiveKitEndpoint({
  ...settings,
  host: '127.0.0.1',
  port: 0,
  log: (line) => post({ type: 'log', line }),
  admitRoom: (room, identity) =>
    new Promise((resolve) => {
      const id = ++nextAdmission;
      admissions.set(id, resolve);
      post({ type: 'admit', id, room, identity });
    }),
  onPresence: (room, identity, present) => post({ type: 'presence', room, identity, present }),
});

/** What the oracle asked of the endpoint, answered (an error is answered too: the oracle is waiting). */
async function answer(m: Exclude<ToEndpoint, { op: 'admitted' }>): Promise<unknown> {
  switch (m.op) {
    case 'validate':
      return server.endpoint.validate(m.url, m.authorization);
    case 'closeRoom':
      for (const [tap, key] of tapKeys) if (key.startsWith(`${m.name}\n`)) untap(tap);
      return server.endpoint.closeRoom(m.name);
    case 'tap': {
      // one tap a participant: a later one replaces it
      const key = tapKey(m.room, m.identity);
      const before = taps.get(key);
      if (before !== undefined) untap(before);
      taps.set(key, m.id);
      tapKeys.set(m.id, key);
      return null;
    }
    case 'untap':
      return untap(m.tap);
    case 'close':
      return server.close();
  }
}

port.on('message', (m: ToEndpoint) => {
  if (m.op === 'admitted') {
    admissions.get(m.id)?.(m.refusal);
    admissions.delete(m.id);
    return;
  }
  answer(m).then(
    (value) => {
      post({ type: 'reply', id: m.id, value: value ?? null });
      if (m.op === 'close') port.close();
    },
    (e: unknown) => post({ type: 'reply', id: m.id, value: null, error: (e as Error).message }),
  );
});

/** The taps on participants' audio (thread.ts, `tapAudio`): by room and identity, and by tap. */
const taps = new Map<string, number>();
const tapKeys = new Map<number, string>();
/**
 * Packets a tap hands over a second, at most (a second's burst): a microphone sends 50 or 100 (20 or 10 ms frames);
 * a participant sending more cannot make the oracle's thread open and decode more than this.
 */
const TAP_PACKETS_PER_SECOND = 200;
/** Each tap's allowance left (packets) and when it was last filled (ms). */
const allowance = new Map<number, { left: number; at: number }>();
const allowed = (tap: number): boolean => {
  const now = performance.now();
  const a = allowance.get(tap) ?? { left: TAP_PACKETS_PER_SECOND, at: now };
  a.left = Math.min(TAP_PACKETS_PER_SECOND, a.left + ((now - a.at) / 1000) * TAP_PACKETS_PER_SECOND);
  a.at = now;
  allowance.set(tap, a);
  if (a.left < 1) return false;
  a.left -= 1;
  return true;
};
const tapKey = (room: string, identity: string) => `${room}\n${identity}`;
server.endpoint.onRtp = (room, from, track, packet) => {
  if (track.kind !== 'audio' || taps.size === 0) return;
  const tap = taps.get(tapKey(room, from));
  if (tap === undefined || !allowed(tap)) return;
  const h = packet.header;
  // a copy of the payload alone: the packet's buffer may be a view of a larger one, which a message would copy whole
  const payload = new Uint8Array(packet.payload);
  post({ type: 'audio', tap, ssrc: h.ssrc, seq: h.sequenceNumber, timestamp: h.timestamp, payload });
};
const untap = (tap: number) => {
  const key = tapKeys.get(tap);
  tapKeys.delete(tap);
  allowance.delete(tap);
  if (key !== undefined && taps.get(key) === tap) taps.delete(key);
};

post({ type: 'ready', port: Number(new URL(server.url).port) });
