/**
 * The voice of a call: the user's audio (16 kHz) → start and end of turn
 * (vad.ts TurnDetector on the Silero VAD model) → speech-to-text (an
 * OpenAI-compatible POST /audio/transcriptions) → an
 * ordinary agent turn in the call's session (host.startTurn: plugins, tools,
 * credits and history as for a chat message) → each sentence of the answer,
 * as it streams, to text-to-speech (POST /audio/speech, 24 kHz PCM) → the
 * agent's audio track. Speech from the user while the agent answers is a
 * an interruption once it has lasted the minimum interruption: playback
 * pauses, and the user's speech is transcribed. Words make it a barge-in (the
 * answer stops and its turn is aborted, as Esc does in chat; the history keeps
 * what the user heard of it); no words (a cough, noise) make it a false
 * interruption, and the answer resumes where it paused. Shorter speech does
 * not pause the agent and is not taken as a turn. The agent's state
 * (initializing until the user's microphone reaches it, then listening,
 * thinking, speaking) and both sides' transcripts are told as
 * they change (VoiceEvents; LiveKit Agents' `lk.agent.state` and
 * `lk.transcription` in the room).
 */
import { EventEmitter } from 'node:events';
import type * as Livekit from '@livekit/rtc-node';
import type { AudioFrame, AudioSource } from '@livekit/rtc-node';
import type { PluginHost } from 'oraclekit/plugin';
import type { PreemptedTurn, Run } from 'oraclekit/plugin';
import { StreamedSpeech, takeSentences, wav } from './audio.ts';
import { TurnDetector, VAD_RATE, type SpeechModel } from './vad.ts';
import { fetchJson, fetchOutbound, preconnect, type FetchJsonReply } from 'oraclekit/plugin';
import { runtimeError } from 'oraclekit/plugin';
import type { AnswerTranscript, TranscriptSegment, Transcripts } from './transcripts.ts';

/** A speech service's refusal: 502 upstream_error with its status and the start of its answer. */
function answered(what: string, res: Pick<FetchJsonReply<unknown>, 'status' | 'text'>): Error {
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
  /**
   * A pause this long (ms) in the user's speech starts transcribing what they said so far, used at the end of the
   * turn if they said nothing more (0: transcribed at the end of the turn).
   */
  earlyTranscriptionMs: number;
  /**
   * The model's request of an answer is sent on the early transcription, before the turn ends (LiveKit's preemptive
   * generation): the turn that ends without more speech streams from it (host.preemptTurn).
   */
  preemptiveGeneration: boolean;
  /** With it, the speech of the reply's first words is fetched as they stream, before the turn ends. */
  preemptiveSpeech: boolean;
}

/** The agent's state as LiveKit Agents name it (`lk.agent.state`). */
export type AgentState = 'initializing' | 'listening' | 'thinking' | 'speaking';

const RATE = 48_000;
/**
 * Early transcriptions one turn may send (as LiveKit Agents bounds its preemptive generations): a user who pauses and
 * goes on again and again costs at most this many dropped requests, the rest of the turn is transcribed as it ends.
 */
const MAX_EARLY_PER_TURN = 3;
/** The PCM of OpenAI's `response_format: "pcm"`: 24 kHz, 16-bit little-endian, mono. */
const TTS_RATE = 24_000;
const FRAME = RATE / 100; // 10 ms
/** How long one sentence's speech may take to come whole from the text-to-speech service (ms). */
const SYNTHESIS_TIMEOUT_MS = 30_000;
/**
 * While a sentence's speech is still coming, it counts as at least this long per character of its text (ms: 15
 * characters a second, a brisk speaking rate), so that a cut then does not count more of its words as heard than were.
 */
const MS_PER_CHARACTER = 66;

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
  /** Rewrites a stored answer's row (its id) to what the user heard of it, for an answer cut after its turn ended. */
  keepHeard?: (sessionId: string, answerId: string, text: string) => Promise<void>;
  /** Where both sides' transcripts go in the room (none: they are only told as events). */
  transcripts?: Transcripts;
}

/**
 * What a call's voice tells as it happens (VoiceSession is an EventEmitter of these): for the agent's room, the
 * operator's log and whoever measures a call.
 */
export interface VoiceEvents {
  /** The agent's state changed. */
  state: [state: AgentState];
  /** A transcript segment of either side, interim or final. */
  transcript: [segment: TranscriptSegment];
  /** An answer's first audio reached the agent's track: when each stage ended (performance.now()). */
  stages: [stages: Readonly<Stages>];
  /**
   * The user spoke over an answer for the minimum interruption: 'paused' (the answer waits), then 'barge-in' (they
   * said words: the answer stops) or 'resumed' (no words: a false interruption, the answer goes on).
   */
  interruption: [what: 'paused' | 'barge-in' | 'resumed'];
  /** The user's frames do not decrypt with the call's key: this many were not listened to so far. */
  refused: [frames: number];
}

/**
 * When each stage of an answer ended (performance.now()), from the end of the user's turn (the end-of-turn
 * silence counted) to the first frame of the answer on the agent's track.
 */
export interface Stages {
  /** When the end of the utterance's speech (its last loud frame) arrived. */
  lastLoud: number;
  heard: number;
  transcribed?: number;
  turnStarted?: number;
  firstText?: number;
  firstSentence?: number;
  /** The first sentence's first samples came from the text-to-speech service (resampled to 48 kHz). */
  synthesized?: number;
  firstFrame?: number;
}

/** A transcription of the utterance so far, started in a pause of the user's speech that ended where `speechEndMs` is. */
interface EarlyText {
  speechEndMs: number;
  abort: AbortController;
  text: Promise<string>;
  /** The answer's model request sent on that text (preemptive generation), if it was. */
  preempted?: Promise<PreemptedTurn | undefined>;
  /** The speech of that reply's first words (its first clause or sentence), fetched as they came. */
  speech?: { sentence: string; audio: Promise<StreamedSpeech>; abort: AbortController };
}

/** One answer being given: its run, its speech, how to stop both, and its stages. */
interface Answer {
  abort: AbortController;
  /** The answer was given in full (or failed): speech after it is a new turn, not a barge-in. */
  finished: boolean;
  run?: Run;
  done: Promise<void>;
  stages: Stages;
  /** Set while the user speaks over it: playback waits for it to resolve. */
  paused?: { resume: () => void; until: Promise<void> };
  /** The sentences whose playback started, and how many 10 ms chunks of the current one were played of how many. */
  played: string[];
  chunk: { at: number; of: number };
  transcript: AnswerTranscript | undefined;
}

/**
 * What the user heard of an answer: the sentences played in full and, of the one cut, its words in the share of its
 * audio that was played.
 */
export function heardText(a: { played: readonly string[]; chunk: { at: number; of: number } }): string {
  if (a.played.length === 0) return '';
  const whole = a.played.slice(0, -1);
  const last = a.played.at(-1)!;
  const share = a.chunk.of > 0 ? Math.min(1, a.chunk.at / a.chunk.of) : 1;
  if (share >= 1) return [...whole, last].join(' ');
  const words = last.split(/\s+/).filter(Boolean);
  const part = words.slice(0, Math.floor(words.length * share)).join(' ');
  return [...whole, ...(part ? [part] : [])].join(' ');
}

/** One line saying where the time to an answer's first sound went (ms), for the operator's log. */
export function stagesLine(t: Stages): string {
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

export class VoiceSession extends EventEmitter<VoiceEvents> {
  private readonly o: VoiceOptions;
  /** The turn detector of the stream listened to (its model keeps that stream's state). */
  private detector: TurnDetector | undefined;
  private answer: Answer | undefined;
  private closed = false;
  /** Frames the call's key cannot decrypt: not listened to (Opus would make noise of them). */
  private refused = false;
  /** Where (audio ms) speech began that may interrupt the answer once it lasts the minimum interruption. */
  private interrupting: number | undefined;
  private state: AgentState = 'initializing';
  /** Whether the user's microphone has reached the agent: until then it says `initializing`, never `listening`. */
  private hearing = false;
  private refusedFrames = 0;
  private early: EarlyText | undefined;
  /** Early transcriptions sent in the turn being heard. */
  private earlyInTurn = 0;

  constructor(o: VoiceOptions) {
    super();
    this.o = o;
  }

  /**
   * Reads the user's audio (16 kHz mono frames) until the track ends or the session closes. The voice-activity model
   * is made for each stream as it starts, when the user's microphone is subscribed, not as the agent joins: an agent
   * waiting in a room nobody joined holds none, and the frames that come while it is made wait in the stream. The
   * agent listens from now on: its state says so.
   */
  async listen(frames: AsyncIterable<AudioFrame>): Promise<void> {
    this.hearing = true;
    if (this.state === 'initializing') this.setState('listening');
    this.preconnect();
    const model = await loadModel();
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
    // the end of turn's last silence passes on the clock, between frames (vad.ts): a timer ends the turn then, unless
    // the next frame comes first
    let timer: NodeJS.Timeout | undefined;
    let frameAt = 0;
    try {
      for await (const f of frames) {
        clearTimeout(timer);
        if (this.closed) break;
        if (this.refused) {
          if (++this.refusedFrames % 100 === 1) this.emit('refused', this.refusedFrames);
          continue;
        }
        frameAt = performance.now();
        const r = detector.push(f.data);
        if (r === 'start') {
          this.preconnect();
          // speech over the agent's answer: an interruption once it has lasted long enough (its 64 ms start included)
          this.interrupting = this.answering() ? detector.nowMs - 64 : undefined;
        } else if (r) this.turnEnded(r, frameAt - detector.msSinceSpeechEnd, detector);
        else this.transcribeEarly(detector);
        if (
          this.interrupting !== undefined &&
          detector.isSpeaking &&
          detector.nowMs - this.interrupting >= this.o.services.minInterruptionMs
        ) {
          this.interrupting = undefined;
          this.pause();
        }
        const left = detector.msToEnd;
        if (left !== undefined) {
          timer = setTimeout(() => {
            const speechEndAt = frameAt - detector.msSinceSpeechEnd;
            const samples = this.closed ? undefined : detector.end();
            if (samples) this.turnEnded(samples, speechEndAt, detector);
          }, left);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens the connections the turn will need while the user speaks, to the speech-to-text service, the model and the
   * text-to-speech service: one left idle since the last answer may have been closed by the service (many close an
   * idle connection after 5 s) or by the pool (after 10 s), and a new one would cost the answer a TCP and a TLS
   * handshake each. Each is sent at most once every 2 s.
   */
  private preconnect(): void {
    const { stt, tts } = this.o.services;
    preconnect(stt.baseUrl);
    preconnect(tts.baseUrl);
    this.o.host.prepareModel();
  }

  /** The user's turn ended (speech at `speechEndAt`, performance.now()): an utterance, unless it was too short. */
  private turnEnded(samples: Int16Array, speechEndAt: number, detector: TurnDetector): void {
    const short = this.interrupting !== undefined;
    this.interrupting = undefined;
    const early = this.takeEarly(detector);
    this.earlyInTurn = 0;
    // speech shorter than the minimum while the agent spoke: not a turn, and the answer went on
    if (!short) this.utterance(samples, speechEndAt, early);
    else early?.abort.abort();
  }

  /**
   * In a pause of the user's speech as long as the early transcription's, transcribes what they said so far; when
   * they speak again, that transcription is dropped (and the next pause starts another, up to MAX_EARLY_PER_TURN). Not
   * for speech over an answer that is not yet an interruption: it may be no turn at all.
   */
  private transcribeEarly(d: TurnDetector): void {
    const e = this.early;
    if (e && e.speechEndMs !== d.speechEndMs) {
      e.abort.abort();
      this.early = undefined;
    }
    const after = this.o.services.earlyTranscriptionMs;
    if (after <= 0 || this.early || this.interrupting !== undefined || d.pauseMs < after) return;
    if (this.earlyInTurn >= MAX_EARLY_PER_TURN) return;
    this.earlyInTurn++;
    const abort = new AbortController();
    const text = this.transcribe(d.soFar(), abort.signal);
    text.catch(() => {}); // a failed one is transcribed again at the end of the turn
    const early: EarlyText = { speechEndMs: d.speechEndMs, abort, text };
    // not while an answer is given: the turn waits for it, and its request will carry that answer
    if (this.o.services.preemptiveGeneration && !this.answering()) {
      early.preempted = text.then(
        (t) => (t.trim() && !abort.signal.aborted ? this.o.host.preemptTurn(...this.turnOf(t)) : undefined),
        () => undefined,
      );
      abort.signal.addEventListener('abort', () => void early.preempted!.then((p) => p?.cancel()), { once: true });
      if (this.o.services.preemptiveSpeech) void early.preempted.then((p) => p && this.speakEarly(p, early));
    }
    this.early = early;
  }

  /**
   * Fetches the speech of the early reply's first words as they stream (cut as the answer cuts them: takeSentences),
   * so that the answer's first sentence has its speech on the way when the turn ends.
   */
  private speakEarly(p: PreemptedTurn, early: EarlyText): void {
    let text = '';
    p.watchText((delta) => {
      if (early.abort.signal.aborted) return false;
      // the reply's step ended: what it said is its first sentence, as the answer says its last one
      const [sentence] =
        delta === undefined ? [text.trim()] : takeSentences((text += delta), { clause: true }).sentences;
      if (sentence === undefined) return true;
      if (!sentence) return false;
      const abort = new AbortController();
      const audio = this.synthesize(sentence, AbortSignal.any([early.abort.signal, abort.signal]));
      audio.catch(() => {}); // the answer fetches it again
      early.speech = { sentence, audio, abort };
      return false;
    });
  }

  /** The turn of an utterance's text in the call's session. */
  private turnOf(message: string): [string, string, { message: string; metadata: Record<string, unknown> }] {
    return [this.o.userDid, this.o.sessionId, { message, metadata: { callId: this.o.callId, via: 'call' } }];
  }

  /** The early transcription of the utterance whose turn just ended, if it was made of all its speech. */
  private takeEarly(d: TurnDetector): EarlyText | undefined {
    const e = this.early;
    this.early = undefined;
    if (!e || e.speechEndMs === d.speechEndMs) return e;
    e.abort.abort();
    return undefined;
  }

  /** The utterance's text: its early transcription when there is one (again at the end of the turn if it failed). */
  private textOf(samples: Int16Array, answer: Answer, early: EarlyText | undefined): Promise<string> {
    const signal = answer.abort.signal;
    return early ? early.text.catch(() => this.transcribe(samples, signal)) : this.transcribe(samples, signal);
  }

  /** Whether an answer is being given now (not finished, not stopped). */
  private answering(): boolean {
    const a = this.answer;
    return a !== undefined && !a.finished && !a.abort.signal.aborted;
  }

  /**
   * The agent's state. Between answers it is `listening` once the user's microphone reaches it (the user's words from
   * then on are heard: LiveKit's UI tells them to speak), `initializing` before.
   */
  private setState(state: AgentState): void {
    if (state === 'listening' && !this.hearing) state = 'initializing';
    if (this.state === state || this.closed) return;
    this.state = state;
    this.emit('state', state);
  }

  /** The user speaks over the answer: its playback waits (what is queued on the track is dropped, to be said again). */
  private pause(): void {
    const a = this.answer;
    if (!a || !this.answering() || a.paused) return;
    let resume!: () => void;
    const until = new Promise<void>((r) => (resume = r));
    a.paused = { resume, until };
    // the chunks queued on the track but not yet played are said again on resuming
    const queued = Math.ceil(this.o.source.queuedDuration / 10);
    a.chunk.at = Math.max(0, a.chunk.at - queued);
    this.o.source.clearQueue();
    this.setState('listening');
    this.emit('interruption', 'paused');
  }

  /** The user's speech over the answer had no words: the answer goes on where it paused. */
  private resume(a: Answer): void {
    const p = a.paused;
    if (!p) return;
    a.paused = undefined;
    this.o.log(`[calls] ${this.o.callId}: a false interruption (no words), the answer resumes`);
    this.emit('interruption', 'resumed');
    p.resume();
  }

  /** Stops (or resumes) listening to the user: their frames do not decrypt with the call's key. */
  refuse(on: boolean): void {
    if (on && !this.refused) {
      this.detector?.reset();
      this.early?.abort.abort();
      this.early = undefined;
      this.earlyInTurn = 0;
    }
    this.refused = on;
  }

  /**
   * Stops the answer and aborts its turn, the history keeping what the user heard of it. `said`: the user spoke words
   * over it (a barge-in, logged); otherwise the call ends.
   */
  private stop(a: Answer | undefined, said: boolean): void {
    if (!a || a.finished || a.abort.signal.aborted) return;
    const heard = heardText(a);
    const run = a.run;
    // the model still streams: the turn stores what was heard as it ends; its stream ended (its text all streamed, its
    // speech not all played): its stored answer is rewritten, once the turn has stored it
    if (run?.streaming) run.keepHeard(heard);
    else if (run && run.text !== heard)
      void run.done
        .then(() => this.o.keepHeard?.(this.o.sessionId, run.requestId, heard))
        .catch((e: unknown) => {
          this.o.log(`[calls] ${this.o.callId}: the cut answer could not be stored as heard: ${(e as Error).message}`);
        });
    a.abort.abort(new Error('interrupted by the user'));
    a.run?.abort.abort(new Error('interrupted by the user'));
    a.paused?.resume();
    this.o.source.clearQueue();
    a.transcript?.final(heard);
    if (said) {
      this.o.log(`[calls] ${this.o.callId}: barge-in, the answer stopped`);
      this.emit('interruption', 'barge-in');
    }
  }

  /**
   * Says the call's greeting (once the user hears the agent: agent.ts): spoken like an answer (a barge-in cuts it),
   * and kept in the session's history as the agent's message.
   */
  greet(text: string): void {
    const abort = new AbortController();
    const now = performance.now();
    const answer = this.newAnswer(abort, { lastLoud: now, heard: now });
    answer.done = (async () => {
      await this.o.host.postMessage(this.o.sessionId, { content: text });
      await this.speakAll([text], answer);
    })()
      .catch((e: unknown) => {
        if (!abort.signal.aborted) this.o.log(`[calls] ${this.o.callId}: the greeting failed: ${(e as Error).message}`);
      })
      .finally(() => {
        // its transcript ends final, as an answer's does (a barge-in has given it already)
        if (!answer.finished && !abort.signal.aborted) answer.transcript?.final(heardText(answer));
        answer.finished = true;
        if (this.answer === answer) this.setState('listening');
      });
    this.answer = answer;
  }

  private newAnswer(abort: AbortController, stages: Stages): Answer {
    return {
      abort,
      finished: false,
      done: Promise.resolve(),
      stages,
      played: [],
      chunk: { at: 0, of: 0 },
      transcript: this.o.transcripts?.answer((s) => this.emit('transcript', s)),
    };
  }

  private utterance(samples: Int16Array, speechEndAt: number, early: EarlyText | undefined): void {
    const previous = this.answer;
    const abort = new AbortController();
    if (early) abort.signal.addEventListener('abort', () => early.abort.abort(), { once: true });
    const answer = this.newAnswer(abort, { lastLoud: speechEndAt, heard: performance.now() });
    answer.done = (async () => {
      // the user spoke over an answer, which waits: words stop it, none let it go on (and this is no turn)
      if (previous?.paused) {
        const text = await this.textOf(samples, answer, early).catch(() => '');
        answer.stages.transcribed = performance.now();
        if (!text.trim()) {
          answer.transcript = undefined;
          this.resume(previous);
          return;
        }
        this.stop(previous, true);
        this.answer = answer;
        await previous.done;
        if (abort.signal.aborted || this.closed) return;
        this.setState('thinking');
        await this.respond(answer, text);
        return;
      }
      await previous?.done; // one turn at a time in a session
      if (abort.signal.aborted || this.closed) return;
      this.setState('thinking');
      await this.respond(answer, this.textOf(samples, answer, early), early);
    })()
      .catch((e: unknown) => {
        if (!abort.signal.aborted) this.o.log(`[calls] ${this.o.callId}: ${(e as Error).message}`);
      })
      .finally(() => {
        // not taken by the turn: the user's words had no answer
        void early?.preempted?.then((p) => p?.cancel());
        early?.speech?.abort.abort();
        if (!answer.finished && !abort.signal.aborted) answer.transcript?.final(heardText(answer));
        answer.finished = true;
        if (this.answer === answer) this.setState('listening');
      });
    // speech over a paused answer is not yet an answer: the paused one stays the one being given until words stop it
    if (!previous?.paused) this.answer = answer;
  }

  /**
   * Says the answer to the user's text: its turn, streaming from the request sent early if it can, its first sentence
   * with the speech fetched early if that is the sentence (`early`: what was sent in the user's pause).
   */
  private async respond(answer: Answer, transcribed: string | Promise<string>, early?: EarlyText): Promise<void> {
    const t = answer.stages;
    const text = await transcribed;
    t.transcribed ??= performance.now();
    if (!text.trim()) return;
    const said = this.o.transcripts?.user(text) ?? {
      id: `user-${t.heard}`,
      speaker: 'user' as const,
      text,
      final: true,
    };
    this.emit('transcript', said);
    let run: Run;
    try {
      run = await this.o.host.startTurn(...this.turnOf(text), await early?.preempted);
    } catch (e) {
      // a refused turn (402, a running turn, no model) is said, not swallowed
      await this.speakAll([(e as Error).message], answer);
      return;
    }
    answer.run = run;
    t.turnStarted = performance.now();
    let buffer = '';
    let speaking = Promise.resolve();
    const say = (sentences: string[]) => {
      for (const s of sentences) {
        const ready = t.firstSentence === undefined ? early?.speech : undefined;
        t.firstSentence ??= performance.now();
        if (ready && ready.sentence !== s) ready.abort.abort();
        // fetched now (or in the user's pause), played in order as it comes
        const audio =
          ready?.sentence === s
            ? ready.audio.catch(() => this.synthesize(s, answer.abort.signal)) // a failed one is fetched again
            : this.synthesize(s, answer.abort.signal);
        audio
          .then(async (speech) => speech.first)
          .then(() => (t.synthesized ??= performance.now()))
          .catch(() => {});
        speaking = speaking.then(async () => this.play(await audio, answer, s));
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
    // the answer's text is complete when the model's stream ends: its last sentence is said then, not once the turn's
    // history is stored
    await run.streamed;
    off();
    if (buffer.trim()) say([buffer.trim()]);
    await speaking;
    await run.done;
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

  /**
   * The speech of one sentence at 48 kHz as the service streams it (its 24 kHz PCM, resampled by LiveKit): resolves
   * once the service has answered, and the samples come in as it sends them.
   */
  private async synthesize(input: string, signal: AbortSignal): Promise<StreamedSpeech> {
    const s = this.o.services.tts;
    const within = AbortSignal.any([signal, AbortSignal.timeout(SYNTHESIS_TIMEOUT_MS)]);
    const res = await fetchOutbound(
      `${s.baseUrl.replace(/\/+$/, '')}/audio/speech`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: s.model, input, voice: this.o.voice ?? s.voice, response_format: 'pcm' }),
        signal: within,
      },
      { what: 'the text-to-speech service' },
    );
    if (!res.ok || !res.body)
      throw answered('text-to-speech', { status: res.status, text: await res.text().catch(() => '') });
    const speech = new StreamedSpeech();
    void this.receive(res.body, speech);
    return speech;
  }

  /** Reads the service's PCM as it comes into `speech`, resampled to 48 kHz (a sample may straddle two chunks). */
  private async receive(body: ReadableStream<Uint8Array>, speech: StreamedSpeech): Promise<void> {
    const { AudioFrame: Frame, AudioResampler } = this.o.rtc;
    const resampler = new AudioResampler(TTS_RATE, RATE, 1);
    let odd: number | undefined;
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        let bytes = chunk;
        if (odd !== undefined) {
          bytes = new Uint8Array(chunk.length + 1);
          bytes[0] = odd;
          bytes.set(chunk, 1);
        }
        const n = Math.floor(bytes.length / 2);
        odd = bytes.length % 2 ? bytes[bytes.length - 1] : undefined;
        if (n === 0) continue;
        const pcm = new Int16Array(n);
        new Uint8Array(pcm.buffer).set(bytes.subarray(0, n * 2));
        for (const f of resampler.push(new Frame(pcm, TTS_RATE, 1, n))) speech.push(f.data);
      }
      for (const f of resampler.flush()) speech.push(f.data);
      speech.end();
    } catch (e) {
      speech.end(e);
    } finally {
      resampler.close();
    }
  }

  /**
   * Plays one sentence of an answer in 10 ms chunks as its speech comes, counting what was played (what the user
   * heard), waiting while the answer is paused. A sentence whose speech failed part way ends the answer with that
   * error once what came is played.
   */
  private async play(speech: StreamedSpeech, answer: Answer, sentence: string): Promise<void> {
    const { AudioFrame: Frame } = this.o.rtc;
    const signal = answer.abort.signal;
    if (signal.aborted || this.closed) return;
    /** The sentence's length in chunks: what came once it all came, else at least what its text takes to say. */
    const chunks = () =>
      Math.ceil(
        speech.ended
          ? speech.length / FRAME
          : Math.max(speech.length / FRAME, (sentence.length * MS_PER_CHARACTER) / 10),
      );
    answer.played.push(sentence);
    answer.chunk = { at: 0, of: chunks() };
    answer.transcript?.spoken(sentence);
    for (;;) {
      if (answer.paused) await answer.paused.until;
      if (signal.aborted || this.closed) return;
      const at = answer.chunk.at * FRAME;
      // a whole 10 ms chunk, or the end of the speech
      if (!speech.ended && speech.length < at + FRAME) {
        await speech.more();
        answer.chunk.of = chunks();
        continue;
      }
      answer.chunk.of = chunks();
      if (at >= speech.length) break;
      const chunk = speech.slice(at, FRAME);
      await this.o.source.captureFrame(new Frame(chunk, RATE, 1, chunk.length));
      if (answer.paused) continue; // paused while this chunk was queued: it was dropped, and is said again
      answer.chunk.at++;
      this.setState('speaking');
      const t = answer.stages;
      if (t.firstFrame === undefined && t.turnStarted !== undefined) {
        t.firstFrame = performance.now();
        this.emit('stages', t);
      }
    }
    if (speech.failed !== undefined && !signal.aborted) throw speech.failed;
  }

  private async speakAll(sentences: string[], answer: Answer): Promise<void> {
    for (const s of sentences) await this.play(await this.synthesize(s, answer.abort.signal), answer, s);
  }

  close(): void {
    this.closed = true;
    this.early?.abort.abort();
    this.stop(this.answer, false);
  }
}
