/**
 * Silero VAD (the voice-activity model LiveKit's agents use), run on the CPU by ONNX Runtime's WebAssembly backend:
 * the package ships the model's weights and the part of onnxruntime-web that Node runs in dist/vad/
 * (scripts/vad-assets.js), so installing it runs no install step and fetches nothing. Loaded when the first call's agent
 * joins, never at the runtime's start. The model's inference session is made once per process (compiling the
 * WebAssembly module and loading the weights take a while); each stream listened to gets a state of its own on it,
 * since the model keeps state across its windows, and the streams' windows run one at a time on the session.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Ort from 'onnxruntime-common';
import { VAD_RATE, type SpeechModel } from './vad.ts';

/** The samples of context before each 512-sample window at 16 kHz, as the model was trained. */
const CONTEXT = 64;
const WINDOW = 512;

interface Session {
  ort: typeof Ort;
  session: Ort.InferenceSession;
  rate: Ort.Tensor;
  /** The last window run on the session: the next one waits for it. */
  tail: Promise<unknown>;
}

/** The first session made: it serves every stream of the process. */
let first: Promise<Session> | undefined;

/** dist/vad/ of this package, found by the package's own name (so from its sources and its build alike). */
function assetsDir(): string {
  const root = dirname(createRequire(import.meta.url).resolve('@oraclekit/calls/package.json'));
  return join(root, 'dist', 'vad');
}

async function load(): Promise<Session> {
  try {
    const dir = assetsDir();
    const runtime = join(dir, 'ort.node.min.cjs');
    if (!existsSync(runtime)) throw new Error(`${runtime} is missing (the package's build copies it there)`);
    // by Node's own loader: the runtime finds its WebAssembly module beside itself
    const ort = createRequire(import.meta.url)(runtime) as typeof Ort;
    ort.env.wasm.numThreads = 1; // a window takes about a millisecond, and calls run side by side
    ort.env.logLevel = 'error';
    const session = await ort.InferenceSession.create(readFileSync(join(dir, 'silero_vad.onnx')), {
      executionProviders: ['wasm'],
    });
    return {
      ort,
      session,
      rate: new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_RATE)])),
      tail: Promise.resolve(),
    };
  } catch (e) {
    first = undefined; // the next call tries again
    // the agent cannot tell speech, so it does not listen
    throw new Error(`the voice-activity model (Silero VAD on ONNX Runtime Web) did not load: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/** The model for one stream: the process's session, with a state of its own. */
export async function loadSilero(): Promise<SpeechModel> {
  const s = await (first ??= load());
  const [probability, state] = [s.session.outputNames[0]!, s.session.outputNames[1]!];
  let memory = new Float32Array(2 * 128);
  const input = new Float32Array(CONTEXT + WINDOW); // the last window's end, then this window
  const run = async (window: Float32Array): Promise<number> => {
    if (window.length !== WINDOW) throw new Error(`a window is ${WINDOW} samples at 16 kHz, not ${window.length}`);
    input.copyWithin(0, WINDOW); // the context: the previous window's last 64 samples
    input.set(window, CONTEXT);
    const out = await s.session.run({
      input: new s.ort.Tensor('float32', input, [1, CONTEXT + WINDOW]),
      state: new s.ort.Tensor('float32', memory, [2, 1, 128]),
      sr: s.rate,
    });
    memory = Float32Array.from(out[state]!.data as Float32Array);
    return (out[probability]!.data as Float32Array)[0]!;
  };
  return {
    probability: (window) => {
      const next = s.tail.then(
        () => run(window),
        () => run(window),
      );
      s.tail = next.catch(() => {});
      return next;
    },
    reset: () => {
      memory = new Float32Array(2 * 128);
      input.fill(0);
    },
  };
}
