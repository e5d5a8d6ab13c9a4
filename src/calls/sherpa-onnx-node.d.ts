declare module 'sherpa-onnx-node' {
  /** The voice-activity detector's settings (sherpa-onnx's VadModelConfig; a 0 means the library's default). */
  export interface VadConfig {
    sileroVad: {
      /** Path of a Silero VAD .onnx file. */
      model: string;
      /** A window over this probability is speech; one at or under it minus 0.15 ends speech. */
      threshold: number;
      /** Seconds of windows under the threshold before speech ends. */
      minSilenceDuration: number;
      /** Seconds of windows over the threshold before speech starts (past the first window). */
      minSpeechDuration: number;
      windowSize: number;
      /** Seconds of speech after which the detector raises its threshold to cut the segment. */
      maxSpeechDuration: number;
    };
    sampleRate: number;
    numThreads: number;
    provider?: string;
    debug?: boolean | number;
  }

  /** sherpa-onnx's voice-activity detector: the model's session and its state, and the speech segments found. */
  export interface Vad {
    /** Runs the model on every whole window of the samples received so far (in [−1, 1]). */
    acceptWaveform(samples: Float32Array): void;
    /** Whether the last window run left the detector in speech. */
    isDetected(): boolean;
    /** Whether no finished speech segment is queued. */
    isEmpty(): boolean;
    /** Drops the finished speech segments queued. */
    clear(): void;
    /** Forgets the audio and the model's state. */
    reset(): void;
  }

  /** The package is CommonJS: its exports come as the default export of an ES import. */
  const sherpa: { Vad: new (config: VadConfig, bufferSizeInSeconds: number) => Vad };
  export default sherpa;
}
