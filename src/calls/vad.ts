/**
 * The user's turn in a call: when they start speaking and when their turn ends, decided by a voice-activity model
 * (Silero VAD, injected: silero.ts) over 32 ms windows, with each 10 ms frame's level placing the end of speech.
 *
 * - The model decides each window by Silero's reference rule: speech starts on the second window in a row of
 *   probability over 0.5 (64 ms), and goes on while each window's is over 0.35; after a window at or under that,
 *   speech resumes only as it starts. Loudness alone (noise, music, a hum) never starts a turn.
 * - The end of speech is the end of the last frame louder than −45 dBFS inside a speech window: the model's
 *   probability trails the sound by about 100 ms (a few windows), a frame's level does not. A speech window that
 *   starts more than 200 ms after that frame is quiet speech the level misses: the end of speech moves to its end.
 * - The turn ends once the end-of-turn silence has passed since the end of speech after a non-speech window, counted
 *   in samples (the audio's own time, not the clock's), on the frame that reaches it. A frame arrives only once all its
 *   audio has been heard, so that would end the turn up to a frame late (32 ms in a call): when the next window ends
 *   the turn unless it is speech, and it cannot be (no loud frame since the last window began, so the next is at most
 *   the first of the two that start speech), the caller ends it as its silence passes on the clock (`msToEnd`, `end()`).
 */
import { concat, dbfs } from './audio.ts';

/** The sample rate the model runs at; the user's audio is read at it. */
export const VAD_RATE = 16_000;
/** Silero's window at 16 kHz: 512 samples (32 ms). */
const WINDOW = 512;
/** The window's length (ms): a call reads the user's audio in frames of it. */
export const VAD_WINDOW_MS = (WINDOW / VAD_RATE) * 1000;
/** Windows in a row over the threshold that start speech: 64 ms, so a click or a cough's edge does not. */
const START_WINDOWS = 2;
/** The audio whose level is measured as one: 10 ms. */
const LEVEL_FRAME = VAD_RATE / 100;
/** A frame louder than this is sound: it places the end of speech (a 10 ms frame's RMS, dBFS). */
const LOUD_DB = -45;
/** A speech window this long after the last loud frame is quiet speech, not the model's trailing (ms). */
const TRAILING_MS = 200;
/** Audio kept from before speech started, handed to speech-to-text with the utterance (ms). */
const PRE_ROLL_MS = 200;

/**
 * A voice-activity model for one stream, over windows of 512 samples at 16 kHz (in [−1, 1]), deciding by Silero's
 * reference rule: a window is speech from the second window in a row of probability over 0.5, and while each
 * window's probability stays over 0.35 (after a window at or under it, from the second window over 0.5 again).
 */
export interface SpeechModel {
  /** Whether this window is speech, given the windows before it (the model keeps state between windows). */
  speech(window: Float32Array): boolean;
  /** Forgets the audio heard so far. */
  reset(): void;
  /** The stream is done with the model: it may serve another stream (a released model is not used again). */
  release(): void;
}

interface Frame {
  samples: Int16Array;
  /** The frame's first sample in the stream's audio time. */
  at: number;
  loud: boolean;
}

export class TurnDetector {
  private readonly model: SpeechModel;
  private readonly endSamples: number;
  private readonly preRollSamples = (PRE_ROLL_MS / 1000) * VAD_RATE;
  private readonly trailingSamples = (TRAILING_MS / 1000) * VAD_RATE;
  /** Samples received so far: the audio time now. */
  private now = 0;
  /** Samples not yet in a window, and where the next window starts. */
  private pending = new Float32Array(WINDOW);
  private pendingLength = 0;
  private windowAt = 0;
  /** Recent frames (before speech: the pre-roll and the windows being decided), then the utterance's frames. */
  private frames: Frame[] = [];
  private speaking = false;
  private lastWindowSpeech = false;
  /** The end of the last loud frame in a speech window, and the end of speech (sample positions). */
  private lastLoudEnd: number | undefined;
  private speechEnd = 0;

  /** A detector for one stream: the model's state from other audio is forgotten. */
  constructor(model: SpeechModel, o: { endMs: number }) {
    this.model = model;
    this.endSamples = Math.round((o.endMs / 1000) * VAD_RATE);
    model.reset();
  }

  /** Where speech ended, in ms of the stream's audio (valid once speech started). */
  get speechEndMs(): number {
    return (this.speechEnd / VAD_RATE) * 1000;
  }

  /** Whether the user is speaking now (speech started and the turn has not ended). */
  get isSpeaking(): boolean {
    return this.speaking;
  }

  /** The stream's audio time now (ms). */
  get nowMs(): number {
    return (this.now / VAD_RATE) * 1000;
  }

  /** How long ago (ms of audio) speech ended: at the end of a turn, the silence counted. */
  get msSinceSpeechEnd(): number {
    return ((this.now - this.speechEnd) / VAD_RATE) * 1000;
  }

  /**
   * The silence (ms of audio) in the user's speech now: since the end of speech, once the model's last window was not
   * speech; 0 while they speak or before speech starts. A turn ends when it reaches the end-of-turn silence.
   */
  get pauseMs(): number {
    return this.speaking && !this.lastWindowSpeech ? this.msSinceSpeechEnd : 0;
  }

  /**
   * The silence (ms of audio) still to pass before the turn ends, when the next window ends it: the user pauses (the
   * last window was not speech), and neither that window nor the audio since had a frame louder than −45 dBFS, so the
   * next window is at most the first of the two that start speech; else undefined.
   */
  get msToEnd(): number | undefined {
    if (!this.speaking || this.lastWindowSpeech) return undefined;
    const left = ((this.endSamples - (this.now - this.speechEnd)) / VAD_RATE) * 1000;
    if (left > VAD_WINDOW_MS || this.loudIn(this.windowAt - WINDOW, this.now)) return undefined;
    return Math.max(0, left);
  }

  /**
   * Ends the turn while `msToEnd` is defined (its silence passed on the clock before the frame holding its end came):
   * the utterance's samples; else undefined.
   */
  end(): Int16Array | undefined {
    return this.msToEnd === undefined ? undefined : this.endTurn();
  }

  /** The utterance heard so far (with its pre-roll), as the turn would end with it now; the turn goes on. */
  soFar(): Int16Array {
    return concat(this.frames.map((f) => f.samples));
  }

  /** Forgets what was heard: the next frame starts from silence. */
  reset(): void {
    this.model.reset();
    this.now = 0;
    this.pendingLength = 0;
    this.windowAt = 0;
    this.frames = [];
    this.speaking = false;
    this.lastWindowSpeech = false;
    this.lastLoudEnd = undefined;
    this.speechEnd = 0;
  }

  /**
   * One frame of 16 kHz mono audio (any length; 32 ms in a call, one window of the model): 'start' when speech begins,
   * the utterance's samples (with the pre-roll) when the turn ends, else undefined.
   */
  push(samples: Int16Array): 'start' | Int16Array | undefined {
    // each 10 ms of it a frame whose level may place the end of speech, whatever length the stream's frames are
    for (let at = 0; at < samples.length; at += LEVEL_FRAME) {
      const part = samples.subarray(at, at + LEVEL_FRAME);
      this.frames.push({ samples: part, at: this.now, loud: dbfs(part) > LOUD_DB });
      this.now += part.length;
    }
    let started = false;
    for (let i = 0; i < samples.length;) {
      const n = Math.min(WINDOW - this.pendingLength, samples.length - i);
      for (let k = 0; k < n; k++) this.pending[this.pendingLength + k] = samples[i + k]! / 32768;
      this.pendingLength += n;
      i += n;
      if (this.pendingLength < WINDOW) break;
      this.pendingLength = 0;
      const at = this.windowAt;
      this.windowAt += WINDOW;
      if (this.window(at, this.model.speech(this.pending))) started = true;
    }
    if (started) return 'start';
    if (!this.speaking) {
      // kept: the pre-roll before the windows that may yet start speech
      this.forgetBefore(this.windowAt - START_WINDOWS * WINDOW - this.preRollSamples);
      return undefined;
    }
    if (this.lastWindowSpeech || this.now - this.speechEnd < this.endSamples) return undefined;
    return this.endTurn();
  }

  /** One window decided: true when it starts speech. */
  private window(at: number, speech: boolean): boolean {
    const end = at + WINDOW;
    if (!this.speaking) {
      if (!speech) return false;
      // the model says speech on the second window of it
      const start = end - START_WINDOWS * WINDOW;
      this.forgetBefore(start - this.preRollSamples);
      this.speaking = true;
      this.lastLoudEnd = undefined;
      this.speechEnd = 0;
      this.placeEnd(start, end);
      this.lastWindowSpeech = true;
      return true;
    }
    this.lastWindowSpeech = speech;
    if (this.lastWindowSpeech) this.placeEnd(at, end);
    return false;
  }

  /** Speech from `from` to `to` (samples): its last loud frame, or the window's end for quiet speech. */
  private placeEnd(from: number, to: number): void {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      const fEnd = f.at + f.samples.length;
      if (fEnd <= from) break;
      if (f.loud && f.at < to) {
        this.lastLoudEnd = Math.max(this.lastLoudEnd ?? 0, fEnd);
        break;
      }
    }
    const quiet = this.lastLoudEnd === undefined || from - this.lastLoudEnd > this.trailingSamples;
    this.speechEnd = Math.max(this.speechEnd, quiet ? to : this.lastLoudEnd!);
  }

  /** Whether a frame between two sample positions is loud. */
  private loudIn(from: number, to: number): boolean {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const f = this.frames[i]!;
      if (f.at + f.samples.length <= from) break;
      if (f.loud && f.at < to) return true;
    }
    return false;
  }

  /** Drops the frames that end before a sample position (not while speaking: they are the utterance). */
  private forgetBefore(sample: number): void {
    let drop = 0;
    while (drop < this.frames.length && this.frames[drop]!.at + this.frames[drop]!.samples.length <= sample) drop++;
    if (drop) this.frames.splice(0, drop);
  }

  private endTurn(): Int16Array {
    this.speaking = false;
    this.lastWindowSpeech = false;
    const out = concat(this.frames.map((f) => f.samples));
    this.frames = [];
    return out;
  }
}
