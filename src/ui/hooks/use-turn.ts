/**
 * Running a turn: the live state the screen shows while it streams (text and
 * tool calls), cancelling it, and its end written to the transcript. A
 * failure the runtime marks retryable on the provider's side (a 5xx, a
 * stall, a broken stream) that showed nothing yet is sent again once, after
 * the provider's Retry-After when it gave one (up to MAX_RETRY_AFTER_MS),
 * else RETRY_DELAY_MS less up to a quarter (lib/backoff.ts).
 */
import { useCallback, useEffect, useState } from 'react';
import type { AnyEvent, ToolCallState, TurnState } from '../../lib/protocol/index.ts';
import { backoffMs } from '../../lib/backoff.ts';
import type { TurnResult } from '../../client/client.ts';
import { OracleUnreachableError, PaymentRequiredError } from '../../client/errors.ts';
import { oracleWentAway, paymentWords, type ChatController } from '../chat-controller.ts';
import type { NewItem } from '../transcript.tsx';

export interface Live {
  text: string;
  tools: readonly ToolCallState[];
  cancelling: boolean;
  startedAt: number;
  /** Set while waiting to send a failed turn again. */
  retrying?: string;
}

/** How long the chat waits before it sends a turn that failed on the provider's side again. */
const RETRY_DELAY_MS = 1000;
/** How often an idle chat asks whether the oracle is still there (GET /health). */
const HEALTH_EVERY_MS = 5000;
/** The longest Retry-After the chat waits out by itself (a longer one is shown, and /retry is the user's). */
const MAX_RETRY_AFTER_MS = 60_000;

export interface TurnRunner {
  live: Live | null;
  busy: boolean;
  setBusy(b: boolean): void;
  connection: 'connected' | 'unreachable';
  /** Streams a turn; resolves when it ended (the transcript has its items). */
  run(text: string): Promise<void>;
  cancel(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retryable(r: TurnResult): boolean {
  const e = r.error;
  return (
    r.status === 'failed' &&
    !r.text &&
    r.toolCalls.length === 0 &&
    e !== undefined &&
    e.retryable &&
    (e.kind === 'provider' || e.kind === 'timeout' || e.kind === 'malformed_stream')
  );
}

const starting = (): Live => ({ text: '', tools: [], cancelling: false, startedAt: Date.now() });

export function useTurn(o: {
  controller: ChatController;
  add: (...xs: NewItem[]) => void;
  /** The oracle refused the message for payment. */
  onRefused: (text: string) => void;
  /** An answer arrived (for /copy and /tool). */
  onAnswer: (r: TurnResult) => void;
  retryDelayMs?: number | undefined;
}): TurnRunner {
  const { controller, add, onRefused, onAnswer } = o;
  const retryDelay = o.retryDelayMs ?? RETRY_DELAY_MS;
  const [live, setLive] = useState<Live | null>(null);
  const [busy, setBusy] = useState(false);
  const { stream, connection } = useTurnStream({ controller, add, onRefused, setLive, busy });

  const cancel = useCallback(() => {
    setLive((l) => (l ? { ...l, cancelling: true } : l));
    controller.cancel().catch((e: unknown) => add({ kind: 'error', text: controller.explain(e) }));
  }, [add, controller]);

  const run = useCallback(
    async (text: string) => {
      setBusy(true);
      setLive(starting());
      try {
        // the request leaves before React renders anything: rendering is not on the critical path
        let r = await stream(text);
        const asked = r !== 'thrown' ? r.error?.retryAfterSeconds : undefined;
        if (r !== 'thrown' && retryable(r) && asked !== undefined && asked * 1000 > MAX_RETRY_AFTER_MS) {
          // a wait longer than a person waits at a prompt: said, and left to /retry
          const why = controller.explainRun(r) ?? '';
          add({ kind: 'note', text: `${why}\nThe model provider asks to wait ${Math.ceil(asked)} s; /retry then.` });
        } else if (r !== 'thrown' && retryable(r)) {
          const why = controller.explainRun(r) ?? '';
          setLive((l) => (l ? { ...l, retrying: why } : l));
          // the provider's Retry-After when it gave one; else the package's retry curve, first step, with jitter:
          // chats that failed together do not retry together
          const wait =
            asked !== undefined ? asked * 1000 : backoffMs(0, { baseMs: retryDelay, maxMs: retryDelay, jitter: 0.25 });
          const as = asked !== undefined ? ', as the model provider asked' : '';
          add({ kind: 'note', text: `${why}\nTrying once more in ${(wait / 1000).toFixed(1)} s${as}.` });
          await sleep(wait);
          setLive(starting());
          r = await stream(text);
        }
        if (r === 'thrown') return;
        const extra: NewItem[] = [];
        const why = controller.explainRun(r);
        if (why && r.status !== 'aborted') extra.push({ kind: 'error', text: why });
        onAnswer(r);
        add({ kind: 'assistant', text: r.text, tools: r.toolCalls, status: r.status, usage: r.usage }, ...extra);
      } finally {
        setLive(null);
        setBusy(false);
      }
    },
    [add, controller, onAnswer, retryDelay, stream],
  );

  return { live, busy, setBusy, connection, run, cancel };
}

/**
 * Streams one turn into the live state (only when its text or tool calls changed: other events do not render) and
 * tracks whether the oracle is reachable. A failure is written to the transcript, with what showed of the answer.
 */
function useTurnStream(o: {
  controller: ChatController;
  add: (...xs: NewItem[]) => void;
  onRefused: (text: string) => void;
  setLive: (f: (l: Live | null) => Live | null) => void;
  busy: boolean;
}) {
  const { controller, add, onRefused, setLive, busy } = o;
  const [connection, setConnection] = useState<'connected' | 'unreachable'>('connected');
  // while idle, the oracle's health now and then: the footer stops saying `connected` once it is gone, and says it
  // again when it is back (a turn says so too, at once)
  useEffect(() => {
    if (busy) return;
    const probe = setInterval(() => {
      controller.client.health().then(
        () => setConnection('connected'),
        (e: unknown) => {
          if (OracleUnreachableError.isInstance(e)) setConnection('unreachable');
        },
      );
    }, HEALTH_EVERY_MS);
    return () => clearInterval(probe);
  }, [busy, controller]);
  const stream = useCallback(
    async (text: string): Promise<TurnResult | 'thrown'> => {
      let turn: TurnState | undefined;
      const onEvent = (e: AnyEvent, next: TurnState) => {
        const prev = turn;
        turn = next;
        if (next.text === (prev?.text ?? '') && (next.toolCalls.length === 0 || next.toolCalls === prev?.toolCalls))
          return;
        setLive((l) => ({
          text: next.text,
          tools: next.toolCalls,
          cancelling: l?.cancelling ?? false,
          startedAt: l?.startedAt ?? Date.now(),
        }));
      };
      try {
        const r = await controller.send(text, onEvent);
        setConnection('connected');
        return r;
      } catch (e) {
        if ((e as { code?: string }).code === 'oracle_unreachable' || oracleWentAway(e)) setConnection('unreachable');
        if (e instanceof PaymentRequiredError) onRefused(text);
        if (turn && (turn.text || turn.toolCalls.length))
          add({ kind: 'assistant', text: turn.text, tools: turn.toolCalls, status: 'failed' });
        // the terminal chat sends a refused message again once /pay went through, and says so
        add({ kind: 'error', text: e instanceof PaymentRequiredError ? paymentWords(e, true) : controller.explain(e) });
        return 'thrown';
      }
    },
    [add, controller, onRefused, setLive],
  );
  return { stream, connection };
}
