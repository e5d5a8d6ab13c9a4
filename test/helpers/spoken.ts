/**
 * A user's words for the voice tests and the bench: espeak-ng (scripts/system-deps.sh) speaks a sentence, LiveKit's
 * resampler (@livekit/rtc-node) brings it to the call's rate, scaled to a microphone's level of speech. Silero's
 * voice-activity model hears it as speech (a tone or noise it does not).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AudioFrame, AudioResampler } from '@livekit/rtc-node';
import { dbfs } from '../../src/calls/audio.ts';
import { readWav } from './speech-server.ts';

export interface Spoken {
  samples: Int16Array;
  sampleRate: number;
  /** Where the sound starts and ends (ms): the first 10 ms frame louder than −45 dBFS and the end of the last one. */
  soundMs: { start: number; end: number };
}

/** The 10 ms frames louder than `db` dBFS: their total length (ms) and RMS (16-bit scale). */
export function voiced(samples: Int16Array, rate: number, db = -40): { ms: number; rms: number } {
  const n = Math.round(rate / 100);
  let frames = 0;
  let sq = 0;
  for (let at = 0; at + n <= samples.length; at += n) {
    const f = samples.subarray(at, at + n);
    if (dbfs(f) <= db) continue;
    frames++;
    sq += f.reduce((a, x) => a + x * x, 0) / n;
  }
  return { ms: frames * 10, rms: Math.sqrt(sq / Math.max(1, frames)) };
}

/** Where the sound of samples starts and ends (ms), by 10 ms frames louder than −45 dBFS. */
export function soundMs(samples: Int16Array, rate: number): { start: number; end: number } {
  const n = Math.round(rate / 100);
  let start = -1;
  let end = -1;
  for (let at = 0; at + n <= samples.length; at += n) {
    if (dbfs(samples.subarray(at, at + n)) <= -45) continue;
    if (start < 0) start = at;
    end = at + n;
  }
  return { start: (start / rate) * 1000, end: (end / rate) * 1000 };
}

/**
 * espeak-ng saying `text` at `rate` (Hz), its voiced frames at an RMS of `level` (16-bit scale; 6500 is about
 * −14 dBFS, a microphone's level of speech), with no silence added.
 */
export function espeak(text: string, rate: number, level = 6500): Spoken {
  const dir = mkdtempSync(join(tmpdir(), 'ok-espeak-'));
  let w: { sampleRate: number; samples: Int16Array };
  try {
    execFileSync('espeak-ng', ['-w', join(dir, 'say.wav'), text]);
    w = readWav(readFileSync(join(dir, 'say.wav')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  let samples = w.samples;
  if (w.sampleRate !== rate) {
    const r = new AudioResampler(w.sampleRate, rate, 1);
    const frames = [...r.push(new AudioFrame(samples, w.sampleRate, 1, samples.length)), ...r.flush()];
    r.close();
    samples = new Int16Array(frames.reduce((n, f) => n + f.data.length, 0));
    let at = 0;
    for (const f of frames) {
      samples.set(f.data, at);
      at += f.data.length;
    }
  }
  const gain = level / voiced(samples, rate).rms;
  samples = samples.map((x) => Math.max(-32768, Math.min(32767, Math.round(x * gain))));
  return { samples, sampleRate: rate, soundMs: soundMs(samples, rate) };
}
