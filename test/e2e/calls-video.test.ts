/**
 * Video in a call, end-to-end encrypted: the user (a LiveKit participant through @livekit/rtc-node) publishes a
 * camera showing a known picture (red left half, blue right half) through the oracle's LiveKit-protocol endpoint;
 * the scripted model (OpenAI-compatible, on loopback) calls look_at_camera during a spoken turn, and its next request
 * must carry that picture as an image part: a PNG whose pixels match, at most 768 px on its longer side. The endpoint
 * forwards the camera's frames encrypted; a call without a camera gives the model the tool's error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  LocalVideoTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  VideoBufferType,
  VideoCodec,
  VideoFrame,
  VideoSource,
} from '@livekit/rtc-node';
import type { Harness } from '../helpers/runtime-harness.ts';
import { startOracleOnLiveKitServer, until } from '../helpers/livekit-server.ts';
import { startSpeechServer, type SpeechServer } from '../helpers/speech-server.ts';
import { espeak } from '../helpers/spoken.ts';
import { callTool, say, type ChatRequestBody } from '../helpers/scripted-model-server.ts';
import { decodePng, meanColour } from '../helpers/png.ts';

const RATE = 48_000;
const W = 960;
const H = 540;
const RED: [number, number, number] = [210, 40, 40];
const BLUE: [number, number, number] = [40, 60, 210];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The test picture: the left half red, the right half blue (RGBA). */
function picture(): Uint8Array {
  const px = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) px.set([...(x < W / 2 ? RED : BLUE), 255], (y * W + x) * 4);
  return px;
}

/** The user: a microphone, and a camera sending the picture at 15 frames a second when `camera` is set. */
async function user(url: string, token: string, key: string, camera: boolean) {
  const room = new Room();
  await room.connect(url, token, {
    autoSubscribe: true,
    dynacast: false,
    e2ee: { keyProviderOptions: { sharedKey: new TextEncoder().encode(key) } },
  });
  const mic = new AudioSource(RATE, 1);
  // whether the agent's subscription to the microphone is live (LiveKit's trackSubscribed): audio sent before that
  // never reaches it
  let heard = false;
  room.on(RoomEvent.LocalTrackSubscribed, (t) => {
    if (t.kind === TrackKind.KIND_AUDIO) heard = true;
  });
  await room.localParticipant!.publishTrack(
    LocalAudioTrack.createAudioTrack('mic', mic),
    new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
  );
  let timer: NodeJS.Timeout | undefined;
  if (camera) {
    const source = new VideoSource(W, H);
    await room.localParticipant!.publishTrack(
      LocalVideoTrack.createVideoTrack('camera', source),
      new TrackPublishOptions({ source: TrackSource.SOURCE_CAMERA, videoCodec: VideoCodec.VP8, simulcast: false }),
    );
    const frame = new VideoFrame(picture(), W, H, VideoBufferType.RGBA);
    timer = setInterval(() => source.captureFrame(frame), 66);
  }
  const speak = async (samples: Int16Array, silenceMs: number) => {
    const all = new Int16Array(samples.length + Math.round((silenceMs / 1000) * RATE));
    all.set(samples);
    for (let at = 0; at < all.length; at += 480) {
      const chunk = all.slice(at, at + 480);
      await mic.captureFrame(new AudioFrame(chunk, RATE, 1, chunk.length));
    }
  };
  const leave = async () => {
    clearInterval(timer);
    await room.disconnect();
  };
  return { room, speak, leave, heard: () => heard };
}

type Part = { type: string; text?: string; image_url?: { url: string } };

/** The image parts of a request's user messages, as data URLs. */
function imagesOf(body: ChatRequestBody): string[] {
  return body.messages
    .filter((m) => m.role === 'user' && Array.isArray(m.content))
    .flatMap((m) => (m.content as Part[]).filter((p) => p.type === 'image_url').map((p) => p.image_url!.url));
}

describe('video in a call: a camera frame handed to the model on request', () => {
  let h: Harness;
  let speech: SpeechServer;
  let oracle: Awaited<ReturnType<typeof startOracleOnLiveKitServer>>;
  const video: { from: string; marker: boolean; payload: Buffer }[] = [];
  beforeAll(async () => {
    speech = await startSpeechServer();
    oracle = await startOracleOnLiveKitServer(speech, (from, track, packet) => {
      if (track.kind === 'video')
        video.push({ from, marker: packet.header.marker, payload: Buffer.from(packet.payload) });
    });
    h = oracle.h;
  });
  afterAll(async () => {
    await oracle?.close();
    await speech?.close();
  });

  /** A call whose user joined (with or without a camera) and the agent is in the room. */
  async function call(camera: boolean) {
    const u = await h.user();
    const sessionId = await u.newSession();
    const created = await u.req('POST', '/calls', { sessionId, callType: camera ? 'video' : 'audio' });
    expect(created.status).toBe(201);
    const { callId, encryptionKey, connection } = created.body;
    expect((await u.req('POST', `/calls/${callId}/sync`, {})).status).toBe(200);
    const me = await user(connection.url, connection.token, encryptionKey, camera);
    await until('the agent in the room', () => me.room.remoteParticipants.size === 1);
    await until('the agent subscribed to the microphone', me.heard);
    return { u, callId, sessionId, me };
  }

  /** The model's request after it called look_at_camera (the one answering the tool's result). */
  async function askToLook(me: { speak: (s: Int16Array, silenceMs: number) => Promise<void> }, id: string) {
    const before = h.model.requests.length;
    const spoken = speech.spoken.length;
    speech.transcripts.push('What do you see?');
    h.model.enqueue(callTool('look_at_camera', {}, id), say('I see two colours.'));
    await me.speak(new Int16Array(RATE / 2), 0);
    await me.speak(espeak('What do you see?', RATE).samples, 800);
    await until('the answer spoken', () => speech.spoken.slice(spoken).some((s) => s.input === 'I see two colours.'));
    const requests = h.model.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.body.tools?.map((t) => t.function.name)).toContain('look_at_camera');
    return requests[1]!.body;
  }

  it("sends the model the user's camera frame as a PNG image part whose pixels are the picture, scaled to at most 768 px", async () => {
    const { u, callId, sessionId, me } = await call(true);
    await until('the agent receives the camera', () =>
      h.said().includes(`${callId}: the agent receives the user's camera`),
    );
    await sleep(1500); // a key frame decoded on the agent's side
    const body = await askToLook(me, 'look1');

    // the tool's message says the image follows (never its base64); the image is in the user message after it
    const tool = body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'look1')!;
    expect(tool.content).toMatch(/^The user's camera, now \(\d+×\d+ pixels; the camera sends \d+×\d+\)/);
    expect(tool.content).toContain('The image follows in the next message.');
    const at = body.messages.indexOf(tool);
    const next = body.messages[at + 1]!;
    expect(next.role).toBe('user');
    expect((next.content as Part[])[0]!.text).toBe('The image look_at_camera returned (call look1):');
    const images = imagesOf(body);
    expect(images).toHaveLength(1);
    expect(images[0]!.startsWith('data:image/png;base64,')).toBe(true);
    const png = decodePng(Buffer.from(images[0]!.slice('data:image/png;base64,'.length), 'base64'));

    // its size: what the camera sends, scaled to 768 px on the longer side (libwebrtc may send less than 960×540
    // on a loaded machine; the tool's text says what arrived)
    const [, w, ht, cw, ch] = /(\d+)×(\d+) pixels; the camera sends (\d+)×(\d+)/
      .exec(tool.content as string)!
      .map(Number);
    expect([png.width, png.height]).toEqual([w, ht]);
    expect(Math.max(png.width, png.height)).toBeLessThanOrEqual(768);
    const f = Math.min(1, 768 / Math.max(cw!, ch!));
    expect([png.width, png.height]).toEqual([Math.round(cw! * f), Math.round(ch! * f)]);
    expect(png.width / png.height).toBeCloseTo(W / H, 1);
    if (cw === W) expect([png.width, png.height]).toEqual([768, 432]);

    // its pixels: red on the left, blue on the right, within what VP8 and 4:2:0 chroma leave of a flat colour
    const left = meanColour(png, 0.05, 0.4, 0.1, 0.9);
    const right = meanColour(png, 0.6, 0.95, 0.1, 0.9);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(left[k]! - RED[k]!), `left ${left} vs ${RED}`).toBeLessThan(20);
      expect(Math.abs(right[k]! - BLUE[k]!), `right ${right} vs ${BLUE}`).toBeLessThan(20);
    }

    // the endpoint forwarded the camera encrypted: every frame's last packet ends with LiveKit's GCM trailer
    const ends = video.filter((p) => p.from === u.did && p.marker);
    expect(ends.length).toBeGreaterThan(10);
    for (const p of ends) expect(p.payload.subarray(-2).toString('hex')).toBe('0c00');

    // the history keeps the tool's text and the image's size, not its pixels
    const history = JSON.stringify((await u.req('GET', `/sessions/${sessionId}/messages`)).body);
    expect(history).toContain('look_at_camera');
    expect(history).toContain('"mediaType":"image/png"');
    expect(history).not.toContain(images[0]!.slice(30, 90));
    await me.leave();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 90_000);

  it("tells the model the user's camera is off in a call without video", async () => {
    const { u, callId, me } = await call(false);
    await sleep(500);
    const body = await askToLook(me, 'look2');
    const tool = body.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'look2')!;
    expect(tool.content).toContain("the user's camera is off");
    expect(imagesOf(body)).toHaveLength(0);
    await me.leave();
    await u.req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
  }, 60_000);
});
