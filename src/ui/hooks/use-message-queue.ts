/**
 * Messages typed while a turn runs: kept in order and sent one after the
 * other once the chat is idle again. Cancelling the turn takes them back
 * (`drain`): the chat puts them in the input rather than drop them.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

export interface MessageQueue {
  queued: readonly string[];
  push(text: string): void;
  /** Puts a message first (the one a payment unblocked). */
  unshift(text: string): void;
  /** Empties the queue and returns what was in it, oldest first. */
  drain(): string[];
}

export function useMessageQueue(busy: boolean, send: (text: string) => void): MessageQueue {
  const queue = useRef<string[]>([]);
  const [queued, setQueued] = useState<readonly string[]>([]);
  const sync = () => setQueued([...queue.current]);
  const push = useCallback((text: string) => {
    queue.current.push(text);
    sync();
  }, []);
  const unshift = useCallback((text: string) => {
    queue.current.unshift(text);
    sync();
  }, []);
  const drain = useCallback(() => {
    const taken = queue.current;
    queue.current = [];
    sync();
    return taken;
  }, []);
  useEffect(() => {
    if (busy || queue.current.length === 0) return;
    const next = queue.current.shift()!;
    sync();
    send(next);
  }, [busy, send, queued]);
  return { queued, push, unshift, drain };
}
