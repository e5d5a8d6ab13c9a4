/**
 * The call's user's microphone as the agent hears it on the embedded endpoint: the RTP packets of the user's audio
 * track, handed over by the endpoint's thread as they arrive (sfu/thread.ts, `tapAudio`), opened here with the call's
 * key (LiveKit's frame encryption) and decoded (Opus, at 16 kHz, the voice-activity model's rate), in frames of one
 * voice-activity window (32 ms).
 *
 * A LiveKit participant (rtc-node's AudioStream) hears a track through WebRTC's jitter buffer, which holds each packet
 * until it would play smoothly: 20–40 ms more before the agent can tell the user stopped speaking. The agent does not
 * play the user's audio, it decides turns and transcribes: each packet is heard once it arrives, in order. A packet
 * lost or arriving after a later one is that much silence (by its RTP timestamps, so the audio keeps its own time),
 * as is a pause the microphone sent no packets for (Opus DTX), up to MAX_GAP_MS. The key stays on the oracle's
 * thread: the endpoint forwards frames it cannot open. A run of packets the key does not open is told (onDecryptable),
 * as LiveKit's frame cryptors tell the agent of a participant whose key is not the call's.
 *
 * LiveKit's frame encryption (its SDKs' `e2ee` with a shared key): the key is PBKDF2-SHA-256 of the shared key's
 * bytes, salt `LKFrameEncryptionKey`, 100,000 rounds, 128 bits; an audio frame is its first byte (Opus's table of
 * contents) in clear, then AES-GCM of the rest with that byte as additional data (its 16-byte tag at the end), the
 * 12-byte IV, the IV's length and the key's index.
 */
import { createDecipheriv, pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import type { AudioFrame } from '@livekit/rtc-node';
import type { OpusDecoder } from 'opus-decoder';
import { VAD_RATE } from './vad.ts';

/** One RTP packet of the user's audio track, as the endpoint received it (its payload still encrypted). */
export interface UserPacket {
  ssrc: number;
  seq: number;
  /** The RTP timestamp (Opus: 48 kHz). */
  timestamp: number;
  payload: Uint8Array;
}

/** The frames handed to the voice: one voice-activity window (512 samples at 16 kHz). */
const FRAME = 512;
/** RTP timestamp units (48 kHz) per sample at 16 kHz. */
const TICKS_PER_SAMPLE = 48_000 / VAD_RATE;
/** The longest silence a gap in the packets becomes (ms): a longer one (a muted microphone) is this long. */
const MAX_GAP_MS = 1000;
/** Frames waiting for the voice to read them, at most (10 s): past that the oldest go. */
const QUEUE_MAX = Math.round((10 * VAD_RATE) / FRAME);
/** A packet this far behind the last one heard (sequence numbers) starts the stream over rather than coming late. */
const RESTART_SEQ = 1000;
/** The shared key's salt and rounds, as LiveKit's SDKs derive a frame key. */
const SALT = 'LKFrameEncryptionKey';
const ROUNDS = 100_000;
/** Bytes of an audio frame left in clear (the Opus table of contents), and the AES-GCM tag's length. */
const CLEAR_BYTES = 1;
const TAG_BYTES = 16;

/** A frame key from the call's shared key, as LiveKit's SDKs derive it (on libuv's threads, not the event loop). */
async function frameKey(sharedKey: string): Promise<Buffer> {
  return promisify(pbkdf2)(Buffer.from(sharedKey, 'utf8'), SALT, ROUNDS, 16, 'sha256');
}

/** An audio frame opened with the key (the Opus packet), or undefined when the key does not open it. */
function openFrame(key: Buffer, frame: Uint8Array): Uint8Array | undefined {
  if (frame.length < 2) return undefined;
  const ivLength = frame[frame.length - 2]!;
  const bodyEnd = frame.length - 2 - ivLength;
  if (ivLength === 0 || bodyEnd < CLEAR_BYTES + TAG_BYTES) return undefined;
  const clear = frame.subarray(0, CLEAR_BYTES);
  try {
    const d = createDecipheriv('aes-128-gcm', key, frame.subarray(bodyEnd, bodyEnd + ivLength));
    d.setAAD(clear);
    d.setAuthTag(frame.subarray(bodyEnd - TAG_BYTES, bodyEnd));
    return Buffer.concat([clear, d.update(frame.subarray(CLEAR_BYTES, bodyEnd - TAG_BYTES)), d.final()]);
  } catch {
    return undefined;
  }
}

/** The longest Opus frame, and the most audio one packet may hold (RFC 6716, section 3.4). */
const MAX_FRAME_BYTES = 1275;
const MAX_PACKET_MS = 120;

/**
 * A frame's length coded at `at` (one byte, or two from 252 on): the length and the bytes it took; undefined past the
 * end.
 */
function frameLength(p: Uint8Array, at: number): [number, number] | undefined {
  const b0 = p[at];
  if (b0 === undefined) return undefined;
  if (b0 < 252) return [b0, 1];
  const b1 = p[at + 1];
  return b1 === undefined ? undefined : [b0 + 4 * b1, 2];
}

/**
 * Whether an Opus packet is well formed (RFC 6716, section 3.4, requirements R1–R7: what libopus checks before it
 * decodes). The decoder writes a line to stderr for each packet it refuses: one that is not well formed is not given
 * to it, so that a sender of malformed packets cannot fill the oracle's log.
 */
export function wellFormedOpus(p: Uint8Array): boolean {
  if (p.length < 1) return false;
  const toc = p[0]!;
  const config = toc >> 3;
  const n = p.length - 1;
  switch (toc & 3) {
    case 0: // one frame
      return n <= MAX_FRAME_BYTES;
    case 1: // two frames of equal length
      return n % 2 === 0 && n / 2 <= MAX_FRAME_BYTES;
    case 2: {
      // two frames, the first's length coded
      const first = frameLength(p, 1);
      if (!first) return false;
      const left = n - first[1];
      return first[0] <= left && first[0] <= MAX_FRAME_BYTES && left - first[0] <= MAX_FRAME_BYTES;
    }
    default: {
      // any number of frames: a count byte, padding, then equal frames or lengths coded
      const count = p[1];
      if (count === undefined) return false;
      const frames = count & 0x3f;
      // SILK 10/20/40/60 ms, hybrid 10/20 ms, CELT 2.5/5/10/20 ms a frame (in tenths of a ms)
      const tenths =
        config < 12
          ? [100, 200, 400, 600][config & 3]!
          : config < 16
            ? [100, 200][config & 1]!
            : [25, 50, 100, 200][config & 3]!;
      if (frames === 0 || frames * tenths > MAX_PACKET_MS * 10) return false;
      let at = 2;
      let padding = 0;
      if (count & 0x40)
        for (;;) {
          const b = p[at++];
          if (b === undefined) return false;
          padding += b === 255 ? 254 : b;
          if (b !== 255) break;
        }
      let left = p.length - at - padding;
      if (left < 0) return false;
      if (!(count & 0x80)) return left % frames === 0 && left / frames <= MAX_FRAME_BYTES;
      for (let i = 0; i < frames - 1; i++) {
        const f = frameLength(p, at);
        if (!f) return false;
        at += f[1];
        left -= f[1] + f[0];
        if (f[0] > MAX_FRAME_BYTES || left < 0) return false;
      }
      return left <= MAX_FRAME_BYTES;
    }
  }
}

/** Whether RTP sequence number `a` comes after `b` (16 bits, wrapping). */
const after = (a: number, b: number) => a !== b && ((a - b) & 0xffff) < 0x8000;

export interface UserAudioOptions {
  rtc: { AudioFrame: typeof AudioFrame };
  /** The call's shared key. */
  key: string;
  /** Packets in a row the key does not open before the user's audio counts as undecryptable (onDecryptable). */
  failureTolerance: number;
  log: (line: string) => void;
}

/** The user's audio as 16 kHz mono frames of 32 ms, from the packets pushed as they arrive. */
export class UserAudio implements AsyncIterable<AudioFrame> {
  private readonly o: UserAudioOptions;
  private readonly key: Buffer;
  private readonly decoder: OpusDecoder<16_000>;
  /** The stream the packets are of, the last packet heard, and where the audio after it starts (RTP time). */
  private ssrc: number | undefined;
  private lastSeq = 0;
  private nextTimestamp = 0;
  /** Samples not yet in a frame. */
  private pending = new Int16Array(FRAME);
  private pendingLength = 0;
  private readonly queue: AudioFrame[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  /** Called once as the stream ends (the tap is closed then). */
  onEnd: (() => void) | undefined;
  /**
   * Called with false once `failureTolerance` packets in a row did not open with the key (the user's key is not the
   * call's), and with true when a packet opens again after that.
   */
  onDecryptable: ((ok: boolean) => void) | undefined;
  /** Packets the key did not open, so far. */
  undecryptable = 0;
  /** Packets opened that were not well-formed Opus (heard as lost), so far. */
  malformed = 0;
  /** Frames dropped unread, so far. */
  private dropped = 0;
  /** Packets in a row the key did not open (at `failureTolerance` and past it, the user's audio is refused). */
  private failing = 0;

  private constructor(o: UserAudioOptions, key: Buffer, decoder: OpusDecoder<16_000>) {
    this.o = o;
    this.key = key;
    this.decoder = decoder;
  }

  static async open(o: UserAudioOptions): Promise<UserAudio> {
    const { OpusDecoder: Decoder } = await import('opus-decoder');
    const decoder = new Decoder({ sampleRate: VAD_RATE, channels: 1 });
    const [key] = await Promise.all([frameKey(o.key), decoder.ready]);
    return new UserAudio(o, key, decoder);
  }

  /** A packet of the user's track, as it arrives. */
  push(p: UserPacket): void {
    if (this.ended) return;
    const back = (this.lastSeq - p.seq) & 0xffff;
    if (p.ssrc !== this.ssrc || (back > RESTART_SEQ && back < 0x8000)) {
      // a new stream (the user joined again, or their sender started over): its own sequence and time, decoded by
      // the same decoder (its first packet may carry a trace of the last stream's state, a few ms of it)
      this.ssrc = p.ssrc;
    } else if (!after(p.seq, this.lastSeq))
      return; // a copy, or later than a packet already heard: its time is past
    else {
      // packets lost or still on their way, or a pause with no packets: silence for their time
      const gap = Math.round(((p.timestamp - this.nextTimestamp) | 0) / TICKS_PER_SAMPLE);
      if (gap > 0) this.silence(Math.min(gap, (MAX_GAP_MS / 1000) * VAD_RATE));
    }
    this.lastSeq = p.seq;
    const opus = openFrame(this.key, p.payload);
    let samples = 0;
    if (opus === undefined) {
      this.undecryptable++;
      if (++this.failing === this.o.failureTolerance) this.onDecryptable?.(false);
    } else {
      if (this.failing >= this.o.failureTolerance) this.onDecryptable?.(true);
      this.failing = 0;
      if (wellFormedOpus(opus)) {
        const decoded = this.decoder.decodeFrame(opus);
        samples = decoded.samplesDecoded;
        this.add(decoded.channelData[0] ?? new Float32Array(0), samples);
      } else this.malformed++; // as a packet lost: its time is silence
    }
    // a packet the key did not open advances the time its successor starts at by nothing: the gap to that one counts
    this.nextTimestamp = (p.timestamp + samples * TICKS_PER_SAMPLE) >>> 0;
    this.flush();
  }

  /** Ends the stream: the frames queued are still read, then the reader's loop ends. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.decoder.free();
    this.onEnd?.();
    this.wake?.();
  }

  private silence(samples: number): void {
    for (let left = samples; left > 0;) {
      const n = Math.min(left, FRAME - this.pendingLength);
      this.pending.fill(0, this.pendingLength, this.pendingLength + n);
      this.pendingLength += n;
      left -= n;
      if (this.pendingLength === FRAME) this.emitFrame();
    }
  }

  private add(pcm: Float32Array, samples: number): void {
    for (let i = 0; i < samples; i++) {
      const v = pcm[i]!;
      this.pending[this.pendingLength++] = v >= 1 ? 32767 : v <= -1 ? -32768 : Math.round(v * 32767);
      if (this.pendingLength === FRAME) this.emitFrame();
    }
  }

  private emitFrame(): void {
    this.queue.push(new this.o.rtc.AudioFrame(this.pending, VAD_RATE, 1, FRAME));
    this.pending = new Int16Array(FRAME);
    this.pendingLength = 0;
    if (this.queue.length > QUEUE_MAX) {
      this.queue.shift();
      if (++this.dropped === 1)
        this.o.log("[calls] the agent fell behind the user's audio: its oldest frames were dropped");
    }
  }

  private flush(): void {
    if (this.queue.length > 0) this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AudioFrame> {
    try {
      for (;;) {
        const f = this.queue.shift();
        if (f) {
          yield f;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
      }
    } finally {
      this.end();
    }
  }
}
