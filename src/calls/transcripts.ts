/**
 * Both sides' live transcripts in the call's room, as a LiveKit Agents worker publishes them: text streams on the
 * `lk.transcription` topic, one segment per utterance or answer (`lk.segment_id`), naming the track it transcribes
 * (`lk.transcribed_track_id`) and whether it is final (`lk.transcription_final`). What the user said is sent on their
 * behalf (the stream names them as its sender) once it is transcribed, final. An answer streams as it is spoken
 * (interim, sentence by sentence as each starts to play), then comes once more, final, as far as the user heard it.
 * LiveKit's UI (`useTranscriptions`, `useVoiceAssistant`) keeps one entry per segment, the latest text winning.
 */
import type { Room, TextStreamWriter } from '@livekit/rtc-node';
import { randomUUID } from 'node:crypto';

export const TRANSCRIPTION_TOPIC = 'lk.transcription';
const SEGMENT_ID = 'lk.segment_id';
const FINAL = 'lk.transcription_final';
const TRACK_ID = 'lk.transcribed_track_id';

/** A transcript segment as the voice tells it (the same the room gets). */
export interface TranscriptSegment {
  id: string;
  /** 'user': what the call's user said; 'agent': what the agent said. */
  speaker: 'user' | 'agent';
  text: string;
  final: boolean;
}

/** One answer's segment: its text as it is spoken, then final with what was heard. */
export interface AnswerTranscript {
  /** A sentence starts to play. */
  spoken(sentence: string): void;
  /** The answer ended (or was cut): the final segment, the text as heard. */
  final(heard: string): void;
}

export class Transcripts {
  private readonly room: Room;
  private readonly who: { user: string; agent: string };
  private readonly log: (line: string) => void;
  /** The user's microphone track and the agent's voice track (their sids, once known). */
  userTrack: string | undefined;
  agentTrack: string | undefined;
  private failed = false;
  /** Sends one after another, in order, as a worker's transcription output does. */
  private queue: Promise<void> = Promise.resolve();

  constructor(room: Room, who: { user: string; agent: string }, log: (line: string) => void) {
    this.room = room;
    this.who = who;
    this.log = log;
  }

  private attributes(id: string, final: boolean, track: string | undefined): Record<string, string> {
    return { [SEGMENT_ID]: id, [FINAL]: String(final), ...(track ? { [TRACK_ID]: track } : {}) };
  }

  private then(f: () => Promise<void>): void {
    this.queue = this.queue.then(f).catch((e: unknown) => {
      if (this.failed) return;
      this.failed = true;
      this.log(`[calls] a transcript could not be sent to the room: ${(e as Error).message}`);
    });
  }

  private async send(text: string, o: { sender?: string; attributes: Record<string, string> }): Promise<void> {
    const lp = this.room.localParticipant;
    if (!lp || !this.room.isConnected) return;
    const w = await lp.streamText({
      topic: TRANSCRIPTION_TOPIC,
      attributes: o.attributes,
      ...(o.sender ? { senderIdentity: o.sender } : {}),
    });
    await w.write(text);
    await w.close();
  }

  /** What the user said, transcribed: one final segment on their behalf. */
  user(text: string): TranscriptSegment {
    const id = `SG_${randomUUID()}`;
    const track = this.userTrack;
    this.then(() => this.send(text, { sender: this.who.user, attributes: this.attributes(id, true, track) }));
    return { id, speaker: 'user', text, final: true };
  }

  /** An answer's segment; `told` hears each change as the room does. */
  answer(told: (s: TranscriptSegment) => void): AnswerTranscript {
    const id = `SG_${randomUUID()}`;
    let writer: Promise<TextStreamWriter | undefined> | undefined;
    let text = '';
    let ended = false;
    return {
      spoken: (sentence) => {
        if (ended) return;
        const delta = text ? ` ${sentence}` : sentence;
        text += delta;
        told({ id, speaker: 'agent', text, final: false });
        writer ??= (async () =>
          this.room.isConnected
            ? this.room.localParticipant?.streamText({
                topic: TRANSCRIPTION_TOPIC,
                attributes: this.attributes(id, false, this.agentTrack),
              })
            : undefined)();
        const w = writer;
        this.then(async () => void (await (await w)?.write(delta)));
      },
      final: (heard) => {
        if (ended) return;
        ended = true;
        told({ id, speaker: 'agent', text: heard, final: true });
        const w = writer;
        this.then(async () => {
          await (await w)?.close();
          if (heard || w) await this.send(heard, { attributes: this.attributes(id, true, this.agentTrack) });
        });
      },
    };
  }

  /** Resolves once what was queued is sent (or given up). */
  async flushed(): Promise<void> {
    await this.queue;
  }
}
