/**
 * Silero VAD v5 (the voice-activity model LiveKit's agents use), run on the CPU by sherpa-onnx's voice-activity
 * detector (sherpa-onnx-node: ONNX Runtime's native library for the one platform installed, no install step). The
 * model's weights ship in this package (models/silero_vad_16k_op15.onnx, Silero's own file, MIT). Loaded when the
 * first call's agent joins, never at the runtime's start.
 *
 * The detector decides each 512-sample window with Silero's reference rule, which SpeechModel (vad.ts) asks for:
 * threshold 0.5, speech from the second window in a row over it (sherpa-onnx always waits for a second one; no
 * minimum speech beyond it), and the end of speech at the first window at or under 0.35 (the threshold − 0.15; no
 * minimum silence: vad.ts counts the end-of-turn silence itself). It is fed 64 zero samples first, so that each of
 * vad.ts's windows is one model window whose context is the 64 samples before it, as Silero's reference runs it.
 *
 * Each detector holds its own inference session (making one takes 40–50 ms of CPU on the event loop): a stream's
 * detector goes back to a pool when the stream ends, reset, and serves the next stream.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Vad, VadConfig } from 'sherpa-onnx-node';
import { taskTurns } from './turns.ts';
import { VAD_RATE, type SpeechModel } from './vad.ts';

/** The model's window at 16 kHz and the context it reads before each window (samples). */
const WINDOW = 512;
const CONTEXT = new Float32Array(64);
/** Seconds of speech the detector's buffer holds before it grows (and logs that it did). */
const BUFFER_SECONDS = 30;
/** Detectors kept for later streams; more streams than this at once make new ones. */
const POOL_MAX = 32;

/** The model file: in this package, beside dist/ (found through the package's own name, from src/ or dist/). */
const MODEL = join(
  dirname(createRequire(import.meta.url).resolve('@oraclekit/calls/package.json')),
  'models',
  'silero_vad_16k_op15.onnx',
);

const CONFIG: VadConfig = {
  sileroVad: {
    model: MODEL,
    threshold: 0.5,
    // sherpa-onnx takes a 0 for its default (0.25 s, 0.5 s): a positive value that rounds to 0 samples
    minSpeechDuration: 1e-6,
    minSilenceDuration: 1e-6,
    windowSize: WINDOW,
    // past this the detector raises its threshold to cut long speech; an hour keeps Silero's rule throughout
    maxSpeechDuration: 3600,
  },
  sampleRate: VAD_RATE,
  // one thread: a window takes well under a millisecond, and calls run side by side
  numThreads: 1,
  debug: 0,
};

let runtime: Promise<new (config: VadConfig, bufferSizeInSeconds: number) => Vad> | undefined;
const pool: Vad[] = [];

async function load(): Promise<new (config: VadConfig, bufferSizeInSeconds: number) => Vad> {
  try {
    // sherpa-onnx reports a model file it cannot read on stderr and gives a detector that does not work
    if (!existsSync(MODEL)) throw new Error(`the model file ${MODEL} is missing`);
    return (await import('sherpa-onnx-node')).default.Vad;
  } catch (e) {
    runtime = undefined; // the next call tries again
    // e.g. a platform sherpa-onnx has no binaries for: the agent cannot tell speech, so it does not listen
    throw new Error(`the voice-activity model (Silero VAD on sherpa-onnx) did not load: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/**
 * A place to make a new detector, one at a time. Making one holds the event loop for 40–50 ms, so streams starting at
 * once make theirs one after another, each in a task of its own after the I/O waiting for the loop has been served:
 * the loop is never held longer than one detector takes.
 */
const detectorTurn = taskTurns(1);

async function makeDetector(Detector: new (config: VadConfig, bufferSizeInSeconds: number) => Vad): Promise<Vad> {
  const release = await detectorTurn();
  try {
    return new Detector(CONFIG, BUFFER_SECONDS);
  } finally {
    release();
  }
}

/** The model for one stream: a detector of its own (from the pool when one is free), from a fresh state. */
export async function loadSilero(): Promise<SpeechModel> {
  const Detector = await (runtime ??= load());
  const vad = pool.pop() ?? (await makeDetector(Detector));
  let released = false;
  const reset = () => {
    vad.reset();
    vad.acceptWaveform(CONTEXT);
  };
  reset();
  return {
    speech(window) {
      if (released) throw new Error('the voice-activity model was released');
      vad.acceptWaveform(window);
      const speech = vad.isDetected();
      // the speech segments the detector collects are not read here: dropped as each ends
      if (!vad.isEmpty()) vad.clear();
      return speech;
    },
    reset() {
      // a released detector may serve another stream now: not this one's to reset
      if (!released) reset();
    },
    release() {
      if (released) return;
      released = true;
      reset();
      if (pool.length < POOL_MAX) pool.push(vad);
    },
  };
}
