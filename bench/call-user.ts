/**
 * What the call benches (calls.ts, calls-load.ts) share: the oracle's settings, a wait, and a user in a voice call —
 * a LiveKit participant through @livekit/rtc-node with its call's E2EE key, whose microphone never stops (silence,
 * and a sentence when asked for) and who listens to the agent. The call is made as a client makes it: a session,
 * POST /calls, then its sync.
 */
import {
  AudioFrame,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { generateSigner } from '../src/lib/keys/keys.ts';
import { mintInvocation } from '../src/lib/ucan/ucan.ts';
import { dbfs } from '../src/calls/audio.ts';

/** The end-of-turn silence the benches' oracle runs with (ms); their latency target is this + 150 ms. */
export const END_OF_TURN_MS = 500;

/**
 * The oracle child's settings: the scripted model and speech services on loopback, and the end of turn; the Opus frame
 * lengths and preemptive generation as this process's environment sets them, to compare them on one build.
 */
export function oracleEnv(model: { baseURL: string }, speech: { baseURL: string }): Record<string, string> {
  return {
    LLM_BASE_URL: model.baseURL,
    CALLS_STT_BASE_URL: speech.baseURL,
    CALLS_TTS_BASE_URL: speech.baseURL,
    CALLS_END_OF_TURN_MS: String(END_OF_TURN_MS),
    ...Object.fromEntries(
      ['CALLS_AUDIO_FRAME_MS', 'CALLS_AGENT_AUDIO_FRAME_MS', 'CALLS_PREEMPTIVE_GENERATION'].flatMap((k) =>
        process.env[k] ? [[k, process.env[k]]] : [],
      ),
    ),
  };
}

/** Waits until f() gives a value, or `ms` passed (then undefined). */
export async function within<T>(ms: number, f: () => Promise<T | undefined> | T | undefined): Promise<T | undefined> {
  const until = performance.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined || performance.now() > until) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const RATE = 48_000;
const CHUNK = RATE / 100; // 10 ms
/** A chunk louder than this (dBFS) is the answer's sound. */
const LOUD = -40;

export interface CallingUser {
  /** The call's id (the agent's log lines about it name it). */
  callId: string;
  /** Says the sentence; resolves when its last loud frame has been handed to the microphone (performance.now()). */
  speak(): Promise<number>;
  /** When the user first heard a loud chunk of the agent after a time (performance.now()), if yet. */
  firstLoudAfter(since: number): number | undefined;
  /** How long the agent's audio waited in this user's jitter buffer so far, on average, and its average target (ms). */
  jitterBuffer(): Promise<JitterBuffer | undefined>;
  /** Leaves the room and ends the call. */
  close(): Promise<void>;
}

/** A receiving jitter buffer's average delay and target delay over the samples it gave out (ms), as WebRTC's stats. */
export interface JitterBuffer {
  meanMs: number;
  targetMs: number;
  /** The samples it gave out (what the averages are over). */
  samples: number;
}

/** The same averages over the samples given out between two readings of one jitter buffer. */
export function jitterBufferBetween(a: JitterBuffer | undefined, b: JitterBuffer): JitterBuffer {
  const n = b.samples - (a?.samples ?? 0);
  const ms = (f: (x: JitterBuffer) => number) =>
    n > 0 ? Math.round(((f(b) * b.samples - (a ? f(a) * a.samples : 0)) / n) * 10) / 10 : 0;
  return { meanMs: ms((x) => x.meanMs), targetMs: ms((x) => x.targetMs), samples: n };
}

/** The jitter buffer of WebRTC's inbound-rtp stats' cumulative figures (seconds, samples). */
export function jitterBufferOf(
  s: { jitterBufferDelay?: number; jitterBufferTargetDelay?: number; jitterBufferEmittedCount?: number | bigint }[],
): JitterBuffer | undefined {
  const sum = (f: (x: (typeof s)[number]) => number | bigint | undefined) =>
    s.reduce((a, x) => a + Number(f(x) ?? 0), 0);
  const n = sum((x) => x.jitterBufferEmittedCount);
  if (!n) return undefined;
  const ms = (v: number) => Math.round((v / n) * 10_000) / 10;
  return {
    meanMs: ms(sum((x) => x.jitterBufferDelay)),
    targetMs: ms(sum((x) => x.jitterBufferTargetDelay)),
    samples: n,
  };
}

/**
 * Calls the oracle at `url` and joins the call's room.
 * @param sentence 48 kHz samples, and where the sound ends in them (samples): the end of speech.
 */
export async function callingUser(
  url: string,
  oracleDid: string,
  sentence: { samples: Int16Array; end: number },
): Promise<CallingUser> {
  const user = await generateSigner();
  const req = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${await mintInvocation({ issuer: user, audience: oracleDid })}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body ?? {}),
    });
    return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const { sessionId } = await req('POST', '/sessions', {});
  const created = await req('POST', '/calls', { sessionId });
  const { callId, encryptionKey } = created as { callId?: string; encryptionKey?: string };
  if (!callId || !encryptionKey) throw new Error(`the call could not be made: ${JSON.stringify(created)}`);
  const synced = await req('POST', `/calls/${callId}/sync`);
  const connection = synced.connection as { url: string; token: string } | undefined;
  if (!connection) throw new Error(`the call could not be joined: ${JSON.stringify(synced)}`);
  const room = new Room();
  await room.connect(connection.url, connection.token, {
    autoSubscribe: true,
    dynacast: false,
    e2ee: { keyProviderOptions: { sharedKey: new TextEncoder().encode(encryptionKey) } },
  });
  const source = new AudioSource(RATE, 1, 20); // a 20 ms queue: captureFrame paces in real time
  await room.localParticipant!.publishTrack(
    LocalAudioTrack.createAudioTrack('mic', source),
    new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
  );
  const loud: number[] = [];
  room.on(RoomEvent.TrackSubscribed, (t) => {
    if (t.kind !== TrackKind.KIND_AUDIO) return;
    void (async () => {
      for await (const f of new AudioStream(t, RATE, 1)) if (dbfs(f.data) > LOUD) loud.push(performance.now());
    })();
  });
  // captureFrame paces: a send takes as long as its audio
  const send = async (samples: Int16Array) => {
    for (let at = 0; at < samples.length; at += CHUNK) {
      const chunk = samples.slice(at, at + CHUNK);
      await source.captureFrame(new AudioFrame(chunk, RATE, 1, chunk.length));
    }
  };
  // the microphone never stops: silence, and the sentence when it is asked for
  let next: ((end: number) => void) | undefined;
  let open = true;
  const pump = (async () => {
    while (open) {
      const done = next;
      next = undefined;
      if (!done) {
        await send(new Int16Array(CHUNK));
        continue;
      }
      await send(sentence.samples.subarray(0, sentence.end));
      // the sentence's last loud frame just handed over leaves after the source's queue: the end of speech on the wire
      done(performance.now());
      await send(sentence.samples.subarray(sentence.end));
    }
  })();
  return {
    callId,
    speak: () => new Promise((done) => (next = done)),
    firstLoudAfter: (since) => loud.find((t) => t > since),
    async jitterBuffer() {
      const { subscriberStats } = await room.getRtcStats();
      return jitterBufferOf(
        subscriberStats.flatMap((r) =>
          r.stats.case === 'inboundRtp' && r.stats.value.stream?.kind === 'audio' ? [r.stats.value.inbound ?? {}] : [],
        ),
      );
    },
    async close() {
      open = false;
      await pump;
      await room.disconnect();
      await req('PATCH', `/calls/${callId}/update`, { callStatus: 'ended' });
    },
  };
}
