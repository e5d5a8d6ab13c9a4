/**
 * The few audio and text facts the voice pipeline needs and no package hands
 * it: a WAV container for a speech-to-text upload, the level of a PCM frame,
 * a sentence's speech as it streams in, and where streamed text is cut for
 * text-to-speech. Decoding, resampling and
 * encryption are LiveKit's (@livekit/rtc-node); voice activity is Silero's
 * (vad.ts).
 */

/** A mono 16-bit PCM WAV file (RIFF, 44-byte header) of the samples. */
export function wav(samples: Int16Array, sampleRate: number): Uint8Array {
  const data = samples.length * 2;
  const out = new Uint8Array(44 + data);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + data, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  v.setUint32(16, 16, true); // PCM chunk size
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, 1, true); // mono
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * 2, true); // bytes per second
  v.setUint16(32, 2, true); // block align
  v.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  v.setUint32(40, data, true);
  for (let i = 0; i < samples.length; i++) v.setInt16(44 + i * 2, samples[i]!, true);
  return out;
}

/** The root mean square of 16-bit samples, in dBFS (−∞ for silence; a full-scale sine is −3 dBFS). */
export function dbfs(samples: Int16Array): number {
  if (samples.length === 0) return -Infinity;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return 20 * Math.log10(Math.sqrt(sum / samples.length) / 32768);
}

/** The samples of several buffers one after another, in one buffer. */
export function concat(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * One sentence's speech as a service streams it: 16-bit samples appended as they come (`push`), until the service has
 * sent it all or failed (`end`). Playback reads what has come (`slice`) and waits for more (`more`), so a sentence
 * starts playing on its first chunk rather than once the service has synthesized all of it.
 */
export class StreamedSpeech {
  private buf = new Int16Array(0);
  /** Samples come so far. */
  length = 0;
  ended = false;
  /** Why the stream ended before all of it came (the service failed, or the request was aborted). */
  failed: unknown;
  private wake: (() => void) | undefined;
  private wakeFirst!: () => void;
  /** Resolves when the first samples come, or the stream ends without any. */
  readonly first = new Promise<void>((r) => (this.wakeFirst = r));

  push(samples: Int16Array): void {
    if (this.ended || samples.length === 0) return;
    if (this.length + samples.length > this.buf.length) {
      const grown = new Int16Array(Math.max(this.length + samples.length, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.length));
      this.buf = grown;
    }
    this.buf.set(samples, this.length);
    this.length += samples.length;
    this.wakeFirst();
    this.notify();
  }

  end(failed?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failed = failed;
    this.wakeFirst();
    this.notify();
  }

  /** Resolves when more samples come or the stream ends (at once if it has ended). */
  more(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((r) => {
      const before = this.wake;
      this.wake = () => {
        before?.();
        r();
      };
    });
  }

  /** A copy of `n` samples from `from` (fewer at the end of what has come). */
  slice(from: number, n: number): Int16Array {
    return this.buf.slice(from, Math.min(from + n, this.length));
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }
}

/** The fewest words a first clause needs to be spoken on its own ("Well," is not worth a request). */
const CLAUSE_WORDS = 4;

/**
 * Splits streamed text into the sentences complete so far (a stop followed by a space) and the rest, still open.
 * With `clause` (the answer's first words), a clause of at least 4 words before a comma, semicolon, colon or dash
 * counts as complete when no sentence is yet: speech starts while a model still streams a long first sentence.
 */
export function takeSentences(buffer: string, o: { clause?: boolean } = {}): { sentences: string[]; rest: string } {
  let cut = -1;
  for (let i = 0; i < buffer.length - 1; i++)
    if ('.!?\n'.includes(buffer[i]!) && /\s/.test(buffer[i + 1]!)) cut = i + 1;
  if (cut < 0 && o.clause) {
    const m = /^(.*[,;:\u2013\u2014])\s/s.exec(buffer);
    if (m && m[1]!.trim().split(/\s+/).length >= CLAUSE_WORDS)
      return { sentences: [m[1]!.trim()], rest: buffer.slice(m[0].length).trimStart() };
  }
  if (cut < 0) return { sentences: [], rest: buffer };
  const sentences = buffer
    .slice(0, cut)
    .split(/(?<=[.!?\n])\s+/)
    .map((x) => x.trim())
    .filter(Boolean);
  return { sentences, rest: buffer.slice(cut).trimStart() };
}
