/**
 * The user's turn in a call (src/calls/vad.ts) decided by the real Silero VAD model (silero.ts,
 * onnxruntime-node on the CPU) over espeak-ng's speech, noise and a tone, fed as a call's 10 ms frames at 16 kHz.
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

/** Feeds audio in 10 ms frames: when (ms, at the end of the frame) each turn started and ended, and its samples. */
async function turns(model: SpeechModel, audio: Int16Array) {
  const d = new TurnDetector(model, { endMs: END_MS });
  const out: { start: number; end?: number; speechEnd?: number; samples?: Int16Array }[] = [];
  for (let at = 0; at < audio.length; at += FRAME) {
    const r = await d.push(audio.subarray(at, at + FRAME));
    if (r === 'start') out.push({ start: ms(at + FRAME) });
    else if (r) Object.assign(out.at(-1)!, { end: ms(at + FRAME), speechEnd: d.speechEndMs, samples: r });
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
  it('starts within 100 ms of speech and ends the turn at the last loud frame plus the silence setting', async () => {
    const audio = padded(said.samples, 1000, 1500);
    const sound = soundMs(audio, VAD_RATE);
    const got = await turns(model, audio);
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

  it("ends a quiet speaker's turn (no frame louder than −45 dBFS) at the model's last speech window plus the setting", async () => {
    const quiet = espeak('What time is it in Nairobi right now', VAD_RATE, 50);
    expect(soundMs(quiet.samples, VAD_RATE).end).toBeLessThan(0); // not one frame above −45 dBFS
    const got = await turns(model, padded(quiet.samples, 1000, 1500));
    expect(got).toHaveLength(1);
    const end = 1000 + ms(quiet.samples.length);
    // the last speech window trails the words' end by up to ~130 ms
    expect(got[0]!.speechEnd).toBeGreaterThan(end - 300);
    expect(got[0]!.speechEnd).toBeLessThan(end + 200);
    expect(got[0]!.end! - got[0]!.speechEnd!).toBeGreaterThanOrEqual(END_MS);
    expect(got[0]!.end! - got[0]!.speechEnd!).toBeLessThan(END_MS + 10 + 32);
  });

  it('hears two sentences a second apart as two turns', async () => {
    const audio = padded(new Int16Array([...said.samples, ...new Int16Array(VAD_RATE), ...said.samples]), 500, 1000);
    expect(await turns(model, audio)).toHaveLength(2);
  });

  it('starts no turn on white noise at −30 dBFS, which a level rule (louder than −45 dBFS) would take for speech', async () => {
    const hiss = noise(2000, -30);
    // every frame is louder than −45 dBFS: the level-and-silence rule started a turn after its first 60 ms
    for (let at = 0; at < hiss.length; at += FRAME) expect(dbfs(hiss.subarray(at, at + FRAME))).toBeGreaterThan(-45);
    expect(await turns(model, padded(hiss, 200, 800))).toEqual([]);
  });

  it('starts no turn on a steady 440 Hz tone at a speaking level (the model scores it under 0.01)', async () => {
    const tone = new Int16Array(2 * VAD_RATE).map((_, i) =>
      Math.round(6500 * Math.sin((2 * Math.PI * 440 * i) / VAD_RATE)),
    );
    expect(await turns(model, padded(tone, 200, 800))).toEqual([]);
  });
});

describe("the model's streams", () => {
  it('share one inference session yet keep their own state: a stream after speech scores silence as a fresh one', async () => {
    const t0 = performance.now();
    const [a, b] = [await loadSilero(), await loadSilero()];
    // the session is made once per process: a later stream's model costs no load
    expect(performance.now() - t0).toBeLessThan(20);
    const window = (s: Int16Array, at: number) => Float32Array.from(s.subarray(at, at + 512), (x) => x / 32768);
    const quiet = new Int16Array(512 * 8);
    const fresh: number[] = [];
    for (let at = 0; at < quiet.length; at += 512) fresh.push(await a.probability(window(quiet, at)));
    a.reset();
    // interleaved: a hears speech while b hears silence
    const interleaved: number[] = [];
    for (let at = 0; at < quiet.length; at += 512) {
      await a.probability(window(said.samples, 4096 + at));
      interleaved.push(await b.probability(window(quiet, at)));
    }
    expect(interleaved).toEqual(fresh);
  });
});
