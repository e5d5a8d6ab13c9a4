/**
 * The voice of a call: the user's audio (16 kHz) → start and end of turn
 * (vad.ts TurnDetector on the Silero VAD model) → speech-to-text (an
 * OpenAI-compatible POST /audio/transcriptions) → an
 * ordinary agent turn in the call's session (host.startTurn: plugins, tools,
 * credits and history as for a chat message) → each sentence of the answer,
 * as it streams, to text-to-speech (POST /audio/speech, 24 kHz PCM) → the
 * agent's audio track. Speech from the user while the agent answers is a
 * barge-in once it has lasted the minimum interruption: playback stops and
 * the turn is aborted, as Esc does in chat; shorter speech (a cough, a "hm")
 * does not cut the agent and is not taken as a turn. The agent's state
 * (listening, thinking, speaking) is told as it changes (LiveKit Agents'
 * `lk.agent.state`).
 */
import type * as Livekit from '@livekit/rtc-node';
import type { AudioFrame, AudioSource } from '@livekit/rtc-node';
import type { PluginHost } from 'oraclekit/plugin';
import type { Run } from 'oraclekit/plugin';
import { takeSentences, wav } from './audio.ts';
import { TurnDetector, VAD_RATE, type SpeechModel } from './vad.ts';
import { fetchJson, type FetchJsonReply } from 'oraclekit/plugin';
import { runtimeError } from 'oraclekit/plugin';

/** A speech service's refusal: 502 upstream_error with its status and the start of its answer. */
function answered(what: string, res: FetchJsonReply<unknown>): Error {
  return runtimeError('upstream_error', `the ${what} service answered ${res.status}: ${res.text.slice(0, 200)}`, {
    details: { status: res.status },
  });
}

type Rtc = typeof Livekit;

export interface VoiceServices {
  stt: { baseUrl: string; apiKey?: string; model: string };
  tts: { baseUrl: string; apiKey?: string; model: string; voice: string };
  endOfTurnMs: number;
  /** Speech shorter than this (ms) while the agent answers does not interrupt it (0: any speech does). */
  minInterruptionMs: number;
}

/** The agent's state as LiveKit Agents name it (`lk.agent.state`). */
export type AgentState = 'initializing' | 'listening' | 'thinking' | 'speaking';

const RATE = 48_000;
/** The PCM of OpenAI's `response_format: "pcm"`: 24 kHz, 16-bit little-endian, mono. */
const TTS_RATE = 24_000;
const FRAME = RATE / 100; // 10 ms

interface VoiceOptions {
  rtc: Rtc;
  host: PluginHost;
  userDid: string;
  sessionId: string;
  callId: string;
  language: string | null;
  voice: string | null;
  services: VoiceServices;
  source: AudioSource;
  log: (line: string) => void;
  /** Told each change of the agent's state. */
  onState?: (state: AgentState) => void;
}

/**
 * When each stage of an answer ended (performance.now()), from the end of the user's turn (the end-of-turn
 * silence counted) to the first frame of the answer on the agent's track.
 */
interface Stages {
  /** When the end of the utterance's speech (its last loud frame) arrived. */
  lastLoud: number;
  heard: number;
  transcribed?: number;
  turnStarted?: number;
  firstText?: number;
  firstSentence?: number;
  synthesized?: number;
  firstFrame?: number;
}

/** One answer being given: its run, its speech, how to stop both, and its stages. */
interface Answer {
  abort: AbortController;
  /** The answer was given in full (or failed): speech after it is a new turn, not a barge-in. */
  finished: boolean;
  run?: Run;
  done: Promise<void>;
  stages: Stages;
}

/** One line saying where the time to an answer's first sound went (ms), for the log and the bench. */
function stagesLine(t: Stages): string {
  const ms = (a?: number, b?: number) => (a === undefined || b === undefined ? '?' : String(Math.round(b - a)));
  return (
    `first audio ${ms(t.heard, t.firstFrame)} ms after the end of turn (${ms(t.lastLoud, t.heard)} ms after the last ` +
    `loud frame): speech-to-text ${ms(t.heard, t.transcribed)}, ` +
    `turn start ${ms(t.transcribed, t.turnStarted)}, first text ${ms(t.turnStarted, t.firstText)}, ` +
    `first sentence ${ms(t.firstText, t.firstSentence)}, text-to-speech ${ms(t.firstSentence, t.synthesized)}, ` +
    `to the track ${ms(t.synthesized, t.firstFrame)}`
  );
}

/** The voice-activity model for one stream (silero.ts, imported only once a call needs it). */
const loadModel = async (): Promise<SpeechModel> => (await import('./silero.ts')).loadSilero();

export class VoiceSession {
  private readonly o: VoiceOptions;
  /** The model for the first stream, loaded before joining (prepare). */
  private prepared: SpeechModel | undefined;
  /** The turn detector of the stream listened to (its model keeps that stream's state). */
  private detector: TurnDetector | undefined;
  private answer: Answer | undefined;
  private closed = false;
  /** Frames the call's key cannot decrypt: not listened to (Opus would make noise of them). */
  private refused = false;
  /** Where (audio ms) speech began that may interrupt the answer once it lasts the minimum interruption. */
  private interrupting: number | undefined;
  private state: AgentState = 'initializing';
  /** What was heard and said (tests and the bench read it). */
  readonly stats = { utterances: 0, bargeIns: 0, refusedFrames: 0 };

  constructor(o: VoiceOptions) {
    this.o = o;
  }

  /**
   * Loads the voice-activity model before the call's media flows: the process's first load holds the event loop for
   * 20–50 ms, and the embedded endpoint forwards every call's packets on that loop (a stall there is jitter the
   * receivers' buffers then keep).
   */
  async prepare(): Promise<void> {
    // a model that does not load is said when the agent starts listening (listen loads it again and logs why)
    this.prepared = await loadModel().catch(() => undefined);
  }

  /** Reads the user's audio (16 kHz mono frames) until the track ends or the session closes. */
  async listen(frames: AsyncIterable<AudioFrame>): Promise<void> {
    // a model state of its own for each stream: the one prepared for the first
    const model = this.prepared ?? (await loadModel());
    this.prepared = undefined;
    const detector = new TurnDetector(model, { endMs: this.o.services.endOfTurnMs });
    this.detector = detector;
    try {
      await this.read(frames, detector);
    } finally {
      if (this.detector === detector) this.detector = undefined;
      model.release();
    }
  }

  private async read(frames: AsyncIterable<AudioFrame>, detector: TurnDetector): Promise<void> {
    for await (const f of frames) {
      if (this.closed) break;
      if (this.refused) {
        this.stats.refusedFrames++;
        continue;
      }
      const r = detector.push(f.data);
      if (r === 'start') {
        // speech over the agent's answer: an interruption once it has lasted long enough (its 64 ms start included)
        this.interrupting = this.answering() ? detector.nowMs - 64 : undefined;
      } else if (r) {
        const short = this.interrupting !== undefined;
        this.interrupting = undefined;
        // speech shorter than the minimum while the agent spoke: not a turn, and the answer went on
        if (!short) this.utterance(r, performance.now() - detector.msSinceSpeechEnd);
      }
      if (
        this.interrupting !== undefined &&
        detector.isSpeaking &&
        detector.nowMs - this.interrupting >= this.o.services.minInterruptionMs
      ) {
        this.interrupting = undefined;
        this.bargeIn();
      }
    }
  }

  /** Whether an answer is being given now (not finished, not stopped). */
  private answering(): boolean {
    const a = this.answer;
    return a !== undefined && !a.finished && !a.abort.signal.aborted;
  }

  private setState(state: AgentState): void {
    if (this.state === state || this.closed) return;
    this.state = state;
    this.o.onState?.(state);
  }

  /** The agent is in the room and listens. */
  ready(): void {
    this.setState('listening');
  }

  /** Stops (or resumes) listening to the user: their frames do not decrypt with the call's key. */
  refuse(on: boolean): void {
    if (on && !this.refused) this.detector?.reset();
    this.refused = on;
  }

  /** The user speaks while an answer is given: stop the speech and abort the turn. */
  private bargeIn(): void {
    const a = this.answer;
    if (!a || a.finished || a.abort.signal.aborted) return;
    this.stats.bargeIns++;
    a.abort.abort(new Error('interrupted by the user'));
    a.run?.abort.abort(new Error('interrupted by the user'));
    this.o.source.clearQueue();
    this.o.log(`[calls] ${this.o.callId}: barge-in, the answer stopped`);
  }

  /**
   * Says the call's greeting as the agent joins: spoken like an answer (a barge-in cuts it), and kept in the session's
   * history as the agent's message.
   */
  greet(text: string): void {
    const abort = new AbortController();
    const now = performance.now();
    const answer: Answer = { abort, finished: false, done: Promise.resolve(), stages: { lastLoud: now, heard: now } };
    answer.done = (async () => {
      await this.o.host.postMessage(this.o.sessionId, { content: text });
      await this.speakAll([text], abort.signal);
    })()
      .catch((e: unknown) => {
        if (!abort.signal.aborted) this.o.log(`[calls] ${this.o.callId}: the greeting failed: ${(e as Error).message}`);
      })
      .finally(() => {
        answer.finished = true;
        if (this.answer === answer) this.setState('listening');
      });
    this.answer = answer;
  }

  private utterance(samples: Int16Array, speechEndAt: number): void {
    this.stats.utterances++;
    const previous = this.answer;
    const abort = new AbortController();
    const answer: Answer = {
      abort,
      finished: false,
      done: Promise.resolve(),
      stages: { lastLoud: speechEndAt, heard: performance.now() },
    };
    answer.done = (async () => {
      await previous?.done; // one turn at a time in a session
      if (abort.signal.aborted || this.closed) return;
      this.setState('thinking');
      await this.respond(samples, answer);
    })()
      .catch((e: unknown) => {
        if (!abort.signal.aborted) this.o.log(`[calls] ${this.o.callId}: ${(e as Error).message}`);
      })
      .finally(() => {
        answer.finished = true;
        if (this.answer === answer) this.setState('listening');
      });
    this.answer = answer;
  }

  private async respond(samples: Int16Array, answer: Answer): Promise<void> {
    const t = answer.stages;
    const text = await this.transcribe(samples, answer.abort.signal);
    t.transcribed = performance.now();
    if (!text.trim()) return;
    let run: Run;
    try {
      run = await this.o.host.startTurn(this.o.userDid, this.o.sessionId, {
        message: text,
        metadata: { callId: this.o.callId, via: 'call' },
      });
    } catch (e) {
      // a refused turn (402, a running turn, no model) is said, not swallowed
      await this.speakAll([(e as Error).message], answer.abort.signal);
      return;
    }
    answer.run = run;
    t.turnStarted = performance.now();
    let buffer = '';
    let speaking = Promise.resolve();
    const say = (sentences: string[]) => {
      for (const s of sentences) {
        t.firstSentence ??= performance.now();
        const audio = this.synthesize(s, answer.abort.signal); // fetched now, played in order
        audio.then(() => (t.synthesized ??= performance.now())).catch(() => {});
        speaking = speaking.then(async () => this.play(await audio, answer.abort.signal, t));
      }
    };
    const off = run.subscribe(0, (e) => {
      if (e.event !== 'message') return;
      t.firstText ??= performance.now();
      // the first words are spoken as soon as a clause is complete, the rest sentence by sentence
      const r = takeSentences(buffer + e.data.content, { clause: t.firstSentence === undefined });
      buffer = r.rest;
      say(r.sentences);
    });
    await run.done;
    off();
    if (buffer.trim()) say([buffer.trim()]);
    await speaking;
  }

  /** The utterance (16 kHz, the rate it is heard at) as a WAV upload to the speech-to-text service. */
  private async transcribe(samples: Int16Array, signal: AbortSignal): Promise<string> {
    const s = this.o.services.stt;
    const form = new FormData();
    form.append(
      'file',
      new Blob([wav(samples, VAD_RATE) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }),
      'utterance.wav',
    );
    form.append('model', s.model);
    form.append('response_format', 'json');
    if (this.o.language) form.append('language', this.o.language.split('-')[0]!);
    const res = await fetchJson<{ text?: unknown }>({
      method: 'POST',
      url: `${s.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`,
      form,
      bearer: s.apiKey,
      signal,
      what: 'the speech-to-text service',
    });
    if (!res.ok) throw answered('speech-to-text', res);
    return typeof res.body?.text === 'string' ? res.body.text : '';
  }

  /** The speech of one sentence as 48 kHz frames (the service's 24 kHz PCM, resampled by LiveKit). */
  private async synthesize(input: string, signal: AbortSignal): Promise<AudioFrame[]> {
    const s = this.o.services.tts;
    const res = await fetchJson({
      method: 'POST',
      url: `${s.baseUrl.replace(/\/+$/, '')}/audio/speech`,
      body: { model: s.model, input, voice: this.o.voice ?? s.voice, response_format: 'pcm' },
      bearer: s.apiKey,
      binary: true,
      signal,
      what: 'the text-to-speech service',
    });
    if (!res.ok || !res.bytes) throw answered('text-to-speech', res);
    const bytes = res.bytes;
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
    const { AudioFrame: Frame, AudioResampler } = this.o.rtc;
    const resampler = new AudioResampler(TTS_RATE, RATE, 1);
    const out = [...resampler.push(new Frame(pcm.slice(), TTS_RATE, 1, pcm.length)), ...resampler.flush()];
    resampler.close();
    return out;
  }

  private async play(frames: AudioFrame[], signal: AbortSignal, stages?: Stages): Promise<void> {
    const { AudioFrame: Frame } = this.o.rtc;
    for (const f of frames) {
      for (let at = 0; at < f.data.length; at += FRAME) {
        if (signal.aborted || this.closed) return;
        const chunk = f.data.slice(at, at + FRAME);
        await this.o.source.captureFrame(new Frame(chunk, RATE, 1, chunk.length));
        this.setState('speaking');
        if (stages && stages.firstFrame === undefined) {
          stages.firstFrame = performance.now();
          this.o.log(`[calls] ${this.o.callId}: ${stagesLine(stages)}`);
        }
      }
    }
  }

  private async speakAll(sentences: string[], signal: AbortSignal): Promise<void> {
    for (const s of sentences) await this.play(await this.synthesize(s, signal), signal);
  }

  close(): void {
    this.closed = true;
    this.bargeIn();
  }
}
