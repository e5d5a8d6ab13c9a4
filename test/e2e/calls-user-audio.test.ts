/**
 * How the agent hears its user on the embedded endpoint (src/calls/user-audio.ts): the endpoint's own thread (as the
 * oracle runs it, sfu/thread.ts) hands over the RTP packets of a participant's audio as they arrive, and UserAudio
 * opens them with the call's key and decodes them into 16 kHz frames, with no jitter buffer. The participant is
 * LiveKit's own rtc-node SDK, publishing espeak-ng's speech with LiveKit's frame encryption.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  type RemoteTrackPublication,
  Room,
  RoomEvent,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { AccessToken } from 'livekit-server-sdk';
import { EndpointThread } from '../../src/calls/sfu/thread.ts';
import { UserAudio, type UserPacket } from '../../src/calls/user-audio.ts';
import { dbfs } from '../../src/calls/audio.ts';
import { VAD_RATE } from '../../src/calls/vad.ts';
import { espeak, soundMs } from '../helpers/spoken.ts';

const RATE = 48_000;
const KEY = 'the-call-key-0123456789';
const API_KEY = 'APIuseraudio';
const API_SECRET = 's'.repeat(48);
const SPEECH = espeak('What time is it in Nairobi?', RATE);
/**
 * Silence published before the sentence (ms: rtc-node drops what its source is given while the connection comes up)
 * and after it.
 */
const BEFORE_MS = 500;
const AFTER_MS = 600;

let thread: EndpointThread;
let http: Server;
let url: string;

beforeAll(async () => {
  thread = await EndpointThread.start({
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    prefix: '',
    mediaAddress: '127.0.0.1',
    audioFrameMs: { user: 10, agent: 20 },
    limits: {},
    log: () => {},
    admitRoom: () => undefined,
    onPresence: () => {},
    onExit: () => {},
  });
  // the oracle's HTTP server as it relays a join to the thread
  http = createServer((req, res) => {
    void thread.validate(req).then((r) => res.writeHead(r.status).end(r.body));
  });
  http.on('upgrade', (req, socket, head: Buffer) => thread.upgrade(req, socket, head));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  http?.close();
  await thread?.close();
});

/** A participant of `room` with the call's key, subscribing to the others' tracks or not. */
async function join(room: string, identity: string, autoSubscribe: boolean): Promise<Room> {
  const at = new AccessToken(API_KEY, API_SECRET, { identity });
  at.addGrant({ room, roomJoin: true, canPublish: true, canSubscribe: true });
  const r = new Room();
  await r.connect(url, await at.toJwt(), {
    autoSubscribe,
    dynacast: false,
    e2ee: { keyProviderOptions: { sharedKey: new TextEncoder().encode(KEY) } },
  });
  return r;
}

/**
 * A participant in `room` who publishes a microphone with the call's key and says the sentence, then `afterMs` of
 * silence.
 */
async function speak(room: string, identity: string, afterMs = AFTER_MS): Promise<void> {
  const r = await join(room, identity, false);
  try {
    const source = new AudioSource(RATE, 1, 20); // a 20 ms queue: captureFrame paces in real time
    await r.localParticipant!.publishTrack(
      LocalAudioTrack.createAudioTrack('microphone', source),
      new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
    );
    const audio = new Int16Array(((BEFORE_MS + afterMs) / 1000) * RATE + SPEECH.samples.length);
    audio.set(SPEECH.samples, (BEFORE_MS / 1000) * RATE);
    for (let i = 0; i < audio.length; i += RATE / 100) {
      const chunk = audio.slice(i, i + RATE / 100);
      await source.captureFrame(new AudioFrame(chunk, RATE, 1, chunk.length));
    }
    await source.waitForPlayout();
  } finally {
    await r.disconnect();
  }
}

/** Decodes packets with a key: all the audio's samples, in order, once the stream has ended. */
async function hear(
  packets: UserPacket[],
  key = KEY,
  decryptable: boolean[] = [],
): Promise<{ samples: Int16Array; audio: UserAudio }> {
  const audio = await UserAudio.open({ rtc: { AudioFrame }, key, failureTolerance: 10, log: () => {} });
  audio.onDecryptable = (ok) => decryptable.push(ok);
  const frames: Int16Array[] = [];
  const reading = (async () => {
    for await (const f of audio) frames.push(f.data);
  })();
  for (const p of packets) audio.push(p);
  audio.end();
  await reading;
  const samples = new Int16Array(frames.length * 512);
  frames.forEach((f, i) => samples.set(f, i * 512));
  return { samples, audio };
}

/** Where the audio is louder than −45 dBFS (ms), by 10 ms frames at 16 kHz. */
const loudSpan = (samples: Int16Array) => soundMs(samples, VAD_RATE);

describe("the agent hears its user from the embedded endpoint's packets", () => {
  const packets: UserPacket[] = [];
  const arrivals: number[] = [];

  beforeAll(async () => {
    const untap = await thread.tapAudio('room-a', 'user-a', (p) => {
      packets.push(p);
      arrivals.push(performance.now());
    });
    await speak('room-a', 'user-a');
    untap();
  }, 30_000);

  it('hands over each packet of the tapped participant as it arrives, and the sentence decodes whole', async () => {
    // 10 ms packets for the length of what was said, give or take the first ones sent before the tap saw the track
    const publishedMs = (SPEECH.samples.length / RATE) * 1000 + BEFORE_MS + AFTER_MS;
    expect(packets.length).toBeGreaterThan((publishedMs / 10) * 0.9);
    expect(packets.length).toBeLessThanOrEqual(publishedMs / 10 + 2);
    // as they arrive: 10 ms apart on the clock, not held and released in bursts
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    gaps.sort((a, b) => a - b);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThan(5);
    expect(gaps[Math.floor(gaps.length / 2)]).toBeLessThan(15);

    const { samples, audio } = await hear(packets);
    expect(audio.undecryptable).toBe(0);
    expect(audio.malformed).toBe(0); // every packet rtc-node's encoder made is well-formed Opus
    // the audio's own time: 160 samples a packet
    expect(Math.abs(samples.length - packets.length * 160)).toBeLessThan(512);
    const heard = loudSpan(samples);
    const said = soundMs(SPEECH.samples, RATE);
    // the sentence's sound lasts as long as it did when said (Opus's own delay moves both ends alike)
    expect(Math.abs(heard.end - heard.start - (said.end - said.start))).toBeLessThan(30);
    // and sounds like it: the decoded speech's level is the sentence's (within 2 dB)
    const speech = samples.subarray((heard.start / 1000) * VAD_RATE, (heard.end / 1000) * VAD_RATE);
    const original = SPEECH.samples.subarray((said.start / 1000) * RATE, (said.end / 1000) * RATE);
    expect(Math.abs(dbfs(speech) - dbfs(original))).toBeLessThan(2);
    // and the silence after it is silence
    expect(dbfs(samples.subarray(samples.length - 0.3 * VAD_RATE))).toBeLessThan(-60);
  });

  it('keeps the audio in its own time when packets are lost or come late: the sentence ends where it did', async () => {
    const whole = await hear(packets);
    // one packet in 50 lost, and one in 50 swapped with the one after it (that one is then late: dropped), most of
    // them inside the sentence: their time is silence, and Opus goes on decoding from the next packet
    const lossy: UserPacket[] = packets.filter((_, i) => i % 50 !== 25);
    for (let i = 40; i + 1 < lossy.length; i += 50) [lossy[i], lossy[i + 1]] = [lossy[i + 1]!, lossy[i]!];
    const { samples } = await hear(lossy);
    // the same length as the whole audio (to the frame): the sentence's end is where it was
    expect(Math.abs(samples.length - whole.samples.length)).toBeLessThanOrEqual(512);
    const a = loudSpan(whole.samples);
    const b = loudSpan(samples);
    expect(Math.abs(b.start - a.start)).toBeLessThanOrEqual(10);
    expect(Math.abs(b.end - a.end)).toBeLessThanOrEqual(10);
    const level = (x: Int16Array) => dbfs(x.subarray((a.start / 1000) * VAD_RATE, (a.end / 1000) * VAD_RATE));
    expect(Math.abs(level(samples) - level(whole.samples))).toBeLessThan(1);
  });

  it("goes on with a participant's next stream (a new SSRC, or a sender whose numbering started over)", async () => {
    const whole = await hear(packets);
    // the user joined again: the same speech under another SSRC, its sequence and time numbered afresh
    const rejoined = packets.map((p, i) => ({ ...p, ssrc: p.ssrc + 1, seq: (9000 + i) & 0xffff, timestamp: i * 480 }));
    // and a sender that started over under the same SSRC, 5000 numbers back
    const restarted = packets.map((p, i) => ({ ...p, seq: (packets[0]!.seq - 5000 + i) & 0xffff }));
    for (const next of [rejoined, restarted]) {
      const { samples } = await hear([...packets, ...next]);
      expect(Math.abs(samples.length - 2 * whole.samples.length)).toBeLessThanOrEqual(1024);
      const first = loudSpan(samples.subarray(0, whole.samples.length));
      const second = loudSpan(samples.subarray(whole.samples.length));
      expect(Math.abs(second.end - second.start - (first.end - first.start))).toBeLessThanOrEqual(20);
    }
  });

  it('opens nothing with another key: every packet is counted undecryptable and no sound comes out', async () => {
    const said: boolean[] = [];
    const { samples, audio } = await hear(packets, 'another-key', said);
    expect(audio.undecryptable).toBe(packets.length);
    expect(samples.every((s) => s === 0)).toBe(true);
    // said once, at the 10th packet in a row
    expect(said).toEqual([false]);
  });

  it('tells when 10 packets in a row do not open and when one opens again; fewer in a row are not told', async () => {
    // a packet whose tag is not the key's (a sender with another key, or a frame sent clear) does not open
    const forged = (p: UserPacket) => {
      const payload = p.payload.slice();
      payload[payload.length - 3] = payload[payload.length - 3]! ^ 0xff; // the IV's last byte
      return { ...p, payload };
    };
    const said: boolean[] = [];
    await hear(
      packets.map((p, i) => (i < 9 || (i >= 20 && i < 35) ? forged(p) : p)),
      KEY,
      said,
    );
    expect(said).toEqual([false, true]);
  });

  it('forwards none of a track to a participant that unsubscribed from it, and resumes when it subscribes again', async () => {
    const listener = await join('room-c', 'listener', true);
    try {
      const subscribed = new Promise<RemoteTrackPublication>((ok) =>
        listener.on(RoomEvent.TrackSubscribed, (_t, pub) => ok(pub)),
      );
      const speaking = speak('room-c', 'speaker', 3000);
      const pub = await subscribed;
      // the packets of the speaker's audio this listener's connection received so far (WebRTC's inbound-rtp stats)
      const received = async () => {
        const { subscriberStats } = await listener.getRtcStats();
        let n = 0n;
        for (const r of subscriberStats)
          if (r.stats.case === 'inboundRtp' && r.stats.value.stream?.kind === 'audio')
            n += r.stats.value.received?.packetsReceived ?? 0n;
        return Number(n);
      };
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const before = await received();
      await sleep(300);
      expect(await received()).toBeGreaterThan(before + 10); // 10 ms packets: about 30
      pub.setSubscribed(false);
      await sleep(200); // the request crosses the signal connection; packets in flight land
      const stopped = await received();
      await sleep(500);
      expect(await received()).toBe(stopped);
      pub.setSubscribed(true);
      await sleep(500);
      expect(await received()).toBeGreaterThan(stopped + 20);
      await speaking;
    } finally {
      await listener.disconnect();
    }
  }, 30_000);

  it('hands over nothing once untapped, and nothing of another participant', async () => {
    const seen: UserPacket[] = [];
    const untap = await thread.tapAudio('room-b', 'someone-else', (p) => seen.push(p));
    await speak('room-b', 'user-b');
    expect(seen).toHaveLength(0);
    untap();
    const after: UserPacket[] = [];
    const untapB = await thread.tapAudio('room-b', 'user-b', (p) => after.push(p));
    untapB();
    await speak('room-b', 'user-b');
    expect(after).toHaveLength(0);
  }, 30_000);
});
