/**
 * One agent turn: an increasing event id, a buffer of every event (replay
 * from `after=N`), live subscribers (SSE streams, the socket bridge) and an
 * abort controller. A subscriber that goes away never stops the run.
 */
import { randomUUID } from 'node:crypto';
import {
  initialTurn,
  reduceTurn,
  type AnyEvent,
  type AnyEventInput,
  type DoneStatus,
  type RunStatus,
  type TurnState,
} from '../lib/protocol/index.ts';

type RunListener = (e: AnyEvent) => void;

export class Run {
  readonly runId: string;
  readonly requestId: string;
  readonly sessionId: string;
  readonly userDid: string;
  status: RunStatus = 'queued';
  readonly events: AnyEvent[] = [];
  readonly abort = new AbortController();
  /**
   * Several instances: resolves once every instance can find the run (its owner and events announced in Redis); at once
   * otherwise.
   */
  announced: Promise<void> = Promise.resolve();
  /** The run's events folded by reduceTurn: text, reasoning, tool calls, last error. */
  turn: TurnState;
  /**
   * Settles once the turn's user message is durable (resolves) or could not be stored (rejects with the storage
   * fault, see `accept`): POST /messages answers only then, so a refused write is a 507 or 503 reply, not a stream.
   * A run that ends before either resolves it (its events say why).
   */
  readonly accepted: Promise<void>;
  private settleAccepted!: (refusal?: unknown) => void;
  /** Why part of the turn's history could not be stored (a storage fault: storage/faults.ts), when it could not. */
  storageFault: unknown;
  private readonly listeners = new Set<RunListener>();
  private resolveDone!: (s: DoneStatus) => void;
  readonly done: Promise<DoneStatus>;
  /**
   * Resolves once the model's stream has ended, every `message` of the answer emitted; the turn's history is stored
   * and `done` sent after it. A listener that needs only the text (a call saying the answer's last sentence) need not
   * wait for that write. Resolves at `done` at the latest.
   */
  readonly streamed: Promise<void>;
  private resolveStreamed!: () => void;
  private ended = false;

  constructor(init: { sessionId: string; userDid: string; requestId?: string; runId?: string }) {
    this.runId = init.runId ?? randomUUID();
    this.requestId = init.requestId ?? randomUUID();
    this.sessionId = init.sessionId;
    this.userDid = init.userDid;
    this.done = new Promise((r) => (this.resolveDone = r));
    this.streamed = new Promise((r) => (this.resolveStreamed = r));
    let settled = false;
    this.accepted = new Promise<void>((resolve, reject) => {
      this.settleAccepted = (refusal) => {
        if (settled) return;
        settled = true;
        if (refusal === undefined) resolve();
        else reject(refusal);
      };
    });
    this.accepted.catch(() => {}); // a turn nobody answers over HTTP (a plugin's, a socket's) has no one to tell
    this.turn = initialTurn({ runId: this.runId, requestId: this.requestId });
  }

  /** The user's message is durable (no argument), or could not be stored (why). */
  accept(refusal?: unknown): void {
    if (refusal !== undefined) this.storageFault = refusal;
    this.settleAccepted(refusal);
  }

  /** The model's stream has ended: no more of the answer's text comes (`streamed`). */
  endStream(): void {
    this.ended = true;
    this.resolveStreamed();
  }

  /** What the listener of an aborted answer got of it (a call: what was heard), when less than was streamed. */
  heard: string | undefined;

  /** The answer text so far. */
  get text(): string {
    return this.turn.text;
  }

  /**
   * Before aborting: the answer's listener got only `text` of it (a call's user heard that much before speaking over
   * it), so an aborted turn keeps that in its history, not what the model streamed past it.
   */
  keepHeard(text: string): void {
    this.heard = text;
  }

  /** Whether the model's stream may still emit: `streamed` has not resolved. */
  get streaming(): boolean {
    return !this.ended;
  }

  get finished(): boolean {
    return this.status === 'finished' || this.status === 'aborted' || this.status === 'failed';
  }

  emit(e: AnyEventInput): AnyEvent {
    const ev = { ...e, id: this.events.length + 1 } as AnyEvent;
    this.events.push(ev);
    this.turn = reduceTurn(this.turn, ev);
    for (const l of this.listeners) {
      try {
        l(ev);
      } catch {
        // a broken subscriber never breaks the run
      }
    }
    if (ev.event === 'done') {
      this.settleAccepted();
      this.endStream();
      this.resolveDone(ev.data.status);
    }
    return ev;
  }

  /** Replays events after `after`, then follows live; returns the unsubscribe. */
  subscribe(after: number, l: RunListener): () => void {
    for (const e of this.events) if (e.id > after) l(e);
    if (this.events.at(-1)?.event === 'done') return () => {};
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
