/**
 * The user's turn in a call (src/calls/vad.ts) decided by the real Silero VAD model (silero.ts, sherpa-onnx's
 * detector on the CPU) over espeak-ng's speech, noise and a tone, fed as a call's 10 ms frames at 16 kHz.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TurnDetector, VAD_RATE, type SpeechModel } from '../../../../../src/calls/vad.ts';
import { loadSilero } from '../../../../../src/calls/silero.ts';
import { dbfs } from '../../../../../src/calls/audio.ts';
import { espeak, soundMs, voiced, type Spoken } from '../../../../helpers/spoken.ts';

const FRAME = VAD_RATE / 100;
const END_MS = 500;
const ms = (samples: number) => (samples / VAD_RATE) * 1000;

/** Audio of silence, then `middle`, then silence (ms). */
function padded(middle: Int16Array, beforeMs: number, afterMs: number): Int16Array {
  const before = (beforeMs / 1000) * VAD_RATE;
  const out = new Int16Array(before + middle.length + (afterMs / 1000) * VAD_RATE);
  out.set(middle, before);
  return out;
}

/** Gaussian-like white noise (a sum of 12 uniforms) at an RMS of `db` dBFS. */
function noise(msLong: number, db: number): Int16Array {
  const sigma = 32768 * 10 ** (db / 20);
  return new Int16Array((msLong / 1000) * VAD_RATE).map(() => {
    let x = -6;
    for (let k = 0; k < 12; k++) x += Math.random();
    return Math.round(x * sigma);
  });
}

/**
 * Feeds audio in frames (10 ms unless told): when (ms, at the end of the frame) each turn started and ended, and its
 * samples.
 */
function turns(model: SpeechModel, audio: Int16Array, frame = FRAME) {
  const d = new TurnDetector(model, { endMs: END_MS });
  const out: { start: number; end?: number; speechEnd?: number; samples?: Int16Array }[] = [];
  for (let at = 0; at < audio.length; at += frame) {
    const r = d.push(audio.subarray(at, at + frame));
    if (r === 'start') out.push({ start: ms(at + frame) });
    else if (r) Object.assign(out.at(-1)!, { end: ms(at + frame), speechEnd: d.speechEndMs, samples: r });
  }
  return out;
}

/**
 * Feeds audio in 32 ms frames, ending a turn as its silence passes (`msToEnd` after a frame, as a call's timer does)
 * when no frame ended it: when (ms) each turn ended, where its speech ended, and its samples.
 */
function clockTurns(model: SpeechModel, audio: Int16Array, frame = 512) {
  const d = new TurnDetector(model, { endMs: END_MS });
  const out: { end: number; speechEnd: number; samples: Int16Array }[] = [];
  for (let at = 0; at < audio.length; at += frame) {
    const r = d.push(audio.subarray(at, at + frame));
    const left = d.msToEnd;
    if (r instanceof Int16Array) out.push({ end: ms(at + frame), speechEnd: d.speechEndMs, samples: r });
    else if (left !== undefined) {
      const speechEnd = d.speechEndMs;
      out.push({ end: ms(at + frame) + left, speechEnd, samples: d.end()! });
      expect(d.end()).toBeUndefined();
    }
  }
  return out;
}

let model: SpeechModel;
let said: Spoken;
beforeAll(async () => {
  model = await loadSilero();
  said = espeak('What time is it in Nairobi right now', VAD_RATE);
});

describe('the turn detector on Silero VAD', () => {
  it('starts within 100 ms of speech and ends the turn at the last loud frame plus the silence setting', () => {
    const audio = padded(said.samples, 1000, 1500);
    const sound = soundMs(audio, VAD_RATE);
    const got = turns(model, audio);
    expect(got).toHaveLength(1);
    const t = got[0]!;
    expect(t.start - sound.start).toBeGreaterThan(0);
    expect(t.start - sound.start).toBeLessThanOrEqual(100);
    // the model's probability trails the sound by ~100 ms; the frame's level places the end to 10 ms
    expect(Math.abs(t.speechEnd! - sound.end)).toBeLessThanOrEqual(10);
    expect(Math.abs(t.end! - (sound.end + END_MS))).toBeLessThanOrEqual(10);
    // the utterance holds all of the speech, with the 200 ms before the start
    expect(voiced(t.samples!, VAD_RATE).ms).toBe(voiced(said.samples, VAD_RATE).ms);
    // (the start is known at the end of the frame that completes the second window: up to 10 ms later)
    expect(Math.abs(ms(t.samples!.length) - (t.end! - (t.start - 64 - 200)))).toBeLessThanOrEqual(10);
  });

  it("ends a quiet speaker's turn (no frame louder than −45 dBFS) at the model's last speech window plus the setting", () => {
    const quiet = espeak('What time is it in Nairobi right now', VAD_RATE, 50);
    expect(soundMs(quiet.samples, VAD_RATE).end).toBeLessThan(0); // not one frame above −45 dBFS
    const got = turns(model, padded(quiet.samples, 1000, 1500));
    expect(got).toHaveLength(1);
    const end = 1000 + ms(quiet.samples.length);
    // the last speech window trails the words' end by up to ~130 ms
    expect(got[0]!.speechEnd).toBeGreaterThan(end - 300);
    expect(got[0]!.speechEnd).toBeLessThan(end + 200);
    expect(got[0]!.end! - got[0]!.speechEnd!).toBeGreaterThanOrEqual(END_MS);
    expect(got[0]!.end! - got[0]!.speechEnd!).toBeLessThan(END_MS + 10 + 32);
  });

  it('hears two sentences a second apart as two turns', () => {
    const audio = padded(new Int16Array([...said.samples, ...new Int16Array(VAD_RATE), ...said.samples]), 500, 1000);
    expect(turns(model, audio)).toHaveLength(2);
  });

  it('starts no turn on white noise at −30 dBFS, which a level rule (louder than −45 dBFS) would take for speech', () => {
    const hiss = noise(2000, -30);
    // every frame is louder than −45 dBFS: the level-and-silence rule started a turn after its first 60 ms
    for (let at = 0; at < hiss.length; at += FRAME) expect(dbfs(hiss.subarray(at, at + FRAME))).toBeGreaterThan(-45);
    expect(turns(model, padded(hiss, 200, 800))).toEqual([]);
  });

  it('starts no turn on a steady 440 Hz tone at a speaking level', () => {
    const tone = new Int16Array(2 * VAD_RATE).map((_, i) =>
      Math.round(6500 * Math.sin((2 * Math.PI * 440 * i) / VAD_RATE)),
    );
    expect(turns(model, padded(tone, 200, 800))).toEqual([]);
  });

  it("decides a call's 32 ms frames (one window each) as its 10 ms ones: the same start and turn, the end of speech within 10 ms", () => {
    const audio = padded(said.samples, 1000, 1500);
    const ten = turns(model, audio);
    const window = turns(model, audio, 512);
    expect(ten).toHaveLength(1);
    expect(window).toHaveLength(1);
    // a window is decided as its last sample arrives: in a 32 ms frame that is the frame's end, in 10 ms ones the end of
    // the frame it falls in (up to 8 ms later)
    expect(ten[0]!.start - window[0]!.start).toBeGreaterThanOrEqual(0);
    expect(ten[0]!.start - window[0]!.start).toBeLessThan(10);
    // the level is measured over 10 ms of each frame and its 2 ms rest: the last loud one ends within 10 ms of the same
    expect(Math.abs(window[0]!.speechEnd! - ten[0]!.speechEnd!)).toBeLessThanOrEqual(10);
    expect(Math.abs(window[0]!.end! - ten[0]!.end!)).toBeLessThan(32);
  });

  it('tells the silence left when the next window ends the turn, so in 32 ms frames it can end at the setting, not up to a frame late', () => {
    const audio = padded(said.samples, 1000, 1500);
    const byFrames = turns(model, audio, 512);
    const byClock = clockTurns(model, audio);
    expect(byFrames).toHaveLength(1);
    expect(byClock).toHaveLength(1);
    const [f, c] = [byFrames[0]!, byClock[0]!];
    expect(c.speechEnd).toBe(f.speechEnd);
    expect(c.end - c.speechEnd).toBeCloseTo(END_MS, 6);
    // the frame that holds the end comes later, by up to a frame
    expect(f.end! - c.end).toBeGreaterThan(0);
    expect(f.end! - c.end).toBeLessThan(32);
    expect(c.samples).toEqual(f.samples!.subarray(0, c.samples.length));
  });

  it('ends the same turns by the clock as by the frames whatever the pause: speech going on at the limit is not cut', () => {
    // the second sentence's sound starts from 100 ms before to 60 ms after the end of turn's silence from the first's
    // sound: where the window that starts speech again comes just before the turn would end, the turn goes on
    const sound = soundMs(said.samples, VAD_RATE);
    const around = ms(said.samples.length) - sound.end + sound.start;
    const counts = new Set<number>();
    for (let off = -100; off <= 60; off += 8) {
      const silence = new Int16Array(Math.round(((END_MS + off - around) / 1000) * VAD_RATE));
      const audio = padded(new Int16Array([...said.samples, ...silence, ...said.samples]), 500, 1000);
      // a call's 32 ms frames, and 10 ms ones, whose last window leaves audio not yet in a window
      for (const frame of [512, FRAME]) {
        const byFrames = turns(model, audio, frame).map((t) => Math.round(t.speechEnd!));
        const byClock = clockTurns(model, audio, frame).map((t) => Math.round(t.speechEnd));
        expect(byClock, `${off} ms, ${frame} samples a frame`).toEqual(byFrames);
        counts.add(byFrames.length);
      }
    }
    // both a pause too short to end the turn and one long enough were tried
    expect([...counts].sort()).toEqual([1, 2]);
  });

  it("tells a pause in the speech as it grows, and the utterance so far is the start of the turn's", () => {
    const audio = padded(said.samples, 1000, 1500);
    const d = new TurnDetector(model, { endMs: END_MS });
    let paused: { at: number; speechEnd: number; samples: Int16Array } | undefined;
    let turn: Int16Array | undefined;
    for (let at = 0; at < audio.length && !turn; at += FRAME) {
      const r = d.push(audio.subarray(at, at + FRAME));
      if (r instanceof Int16Array) turn = r;
      else if (!paused && d.pauseMs >= 200)
        paused = { at: ms(at + FRAME), speechEnd: d.speechEndMs, samples: d.soFar() };
    }
    expect(paused).toBeDefined();
    expect(turn).toBeDefined();
    // the pause is counted from the end of speech, once the model's windows are no longer speech
    expect(paused!.at - paused!.speechEnd).toBeGreaterThanOrEqual(200);
    expect(paused!.at - paused!.speechEnd).toBeLessThan(200 + 32 + 10);
    expect(d.speechEndMs).toBe(paused!.speechEnd);
    expect(turn!.length - paused!.samples.length).toBeGreaterThan(((END_MS - 250) / 1000) * VAD_RATE);
    expect(turn!.subarray(0, paused!.samples.length)).toEqual(paused!.samples);
    expect(d.pauseMs).toBe(0);
  });
});

describe("the model's streams", () => {
  const window = (s: Int16Array, at: number) => Float32Array.from(s.subarray(at, at + 512), (x) => x / 32768);
  const decide = (m: SpeechModel, s: Int16Array) => {
    const out: boolean[] = [];
    for (let at = 0; at + 512 <= s.length; at += 512) out.push(m.speech(window(s, at)));
    return out;
  };

  it('keep their own state side by side; a released one serves the next stream from a fresh state, with no new session', async () => {
    const speech = padded(said.samples, 300, 300);
    const quiet = new Int16Array(speech.length);
    const a = await loadSilero();
    const reference = decide(a, speech);
    expect(reference).toContain(true);
    a.reset();
    // interleaved: a hears speech while b hears silence
    const b = await loadSilero();
    const heard: boolean[] = [];
    const silence: boolean[] = [];
    for (let at = 0; at + 512 <= speech.length; at += 512) {
      heard.push(a.speech(window(speech, at)));
      silence.push(b.speech(window(quiet, at)));
    }
    expect(heard).toEqual(reference);
    expect(silence).not.toContain(true);
    // released in the middle of speech: its detector goes back to the pool, and a is not used again
    a.reset();
    decide(a, speech.subarray(0, speech.length / 2));
    a.release();
    expect(() => a.speech(window(speech, 0))).toThrow(/released/);
    const t0 = performance.now();
    const c = await loadSilero();
    // a new detector makes an inference session (40–50 ms of CPU); the pool's costs none
    expect(performance.now() - t0).toBeLessThan(20);
    expect(decide(c, speech)).toEqual(reference);
    for (const m of [b, c]) m.release();
  });
});
