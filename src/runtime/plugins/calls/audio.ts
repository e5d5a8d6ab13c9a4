/**
 * The few audio facts the voice pipeline needs and no package hands it: a
 * WAV container for a speech-to-text upload, the level of a PCM frame, and
 * the end-of-turn rule. Decoding, resampling and encryption are LiveKit's
 * (@livekit/rtc-node).
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

/**
 * End-of-turn by level and silence: speech starts after `startMs` of frames
 * louder than `thresholdDb`, and ends once `endMs` of quieter frames follow.
 * The frames of the utterance (with `preRollMs` before its start) are kept.
 * A fixed threshold suits a browser's microphone with its noise suppression
 * on; a noisy line needs a trained voice-activity model instead (docs).
 */
export class Endpointer {
  private readonly o: { thresholdDb: number; startMs: number; endMs: number; preRollMs: number };
  private voicedMs = 0;
  private silentMs = 0;
  private speaking = false;
  private readonly preRoll: Int16Array[] = [];
  private preRollMs = 0;
  private utterance: Int16Array[] = [];

  constructor(o: Partial<{ thresholdDb: number; startMs: number; endMs: number; preRollMs: number }> = {}) {
    this.o = { thresholdDb: -45, startMs: 60, endMs: 500, preRollMs: 200, ...o };
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  /** Whether the last frame pushed was louder than the threshold. */
  lastVoiced = false;

  /** Forgets what was heard: the next frame starts from silence. */
  reset(): void {
    this.speaking = false;
    this.voicedMs = 0;
    this.silentMs = 0;
    this.preRoll.length = 0;
    this.preRollMs = 0;
    this.utterance = [];
  }

  /** One frame; 'start' when speech begins, the utterance's samples when it ends, else undefined. */
  push(frame: Int16Array, sampleRate: number): 'start' | Int16Array | undefined {
    const ms = (frame.length / sampleRate) * 1000;
    const voiced = dbfs(frame) > this.o.thresholdDb;
    this.lastVoiced = voiced;
    if (!this.speaking) {
      this.preRoll.push(frame);
      this.preRollMs += ms;
      while (this.preRollMs - (this.preRoll[0]!.length / sampleRate) * 1000 >= this.o.preRollMs) {
        this.preRollMs -= (this.preRoll.shift()!.length / sampleRate) * 1000;
      }
      this.voicedMs = voiced ? this.voicedMs + ms : 0;
      if (this.voicedMs < this.o.startMs) return undefined;
      this.speaking = true;
      this.silentMs = 0;
      this.utterance = this.preRoll.splice(0);
      this.preRollMs = 0;
      return 'start';
    }
    this.utterance.push(frame);
    this.silentMs = voiced ? 0 : this.silentMs + ms;
    if (this.silentMs < this.o.endMs) return undefined;
    this.speaking = false;
    this.voicedMs = 0;
    const all = this.utterance;
    this.utterance = [];
    const out = new Int16Array(all.reduce((n, f) => n + f.length, 0));
    let at = 0;
    for (const f of all) {
      out.set(f, at);
      at += f.length;
    }
    return out;
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
