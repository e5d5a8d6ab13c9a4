/**
 * Recalling what was typed: Up goes back through the entries (oldest first,
 * also from earlier runs when the CLI keeps them), Down forward and then to
 * the draft that was being typed before the first Up.
 */
import { useCallback, useRef } from 'react';

/** What the input history needs: the entries so far (oldest first) and where new ones go. */
export interface InputHistory {
  entries: string[];
  append(text: string): void;
}

function memoryHistory(): InputHistory {
  const entries: string[] = [];
  return { entries, append: (t) => void entries.push(t) };
}

export interface HistoryNavigation {
  /** The entry before, given what is typed now; undefined when there is none. */
  up(current: string): string | undefined;
  /** The entry after (or the draft); undefined when not recalling. */
  down(): string | undefined;
  /** Keeps a sent message and stops recalling. */
  record(text: string): void;
  /** Up or Down recalled an entry and nothing was sent since. */
  browsing(): boolean;
}

export function useInputHistory(history: InputHistory | undefined): HistoryNavigation {
  const hist = useRef<InputHistory>(history ?? memoryHistory());
  const index = useRef(-1);
  const draft = useRef('');
  const up = useCallback((current: string) => {
    const h = hist.current.entries;
    if (!h.length) return undefined;
    if (index.current === -1) {
      draft.current = current;
      index.current = h.length - 1;
    } else if (index.current > 0) index.current--;
    return h[index.current] ?? '';
  }, []);
  const down = useCallback(() => {
    const h = hist.current.entries;
    if (index.current === -1) return undefined;
    if (index.current < h.length - 1) return h[++index.current] ?? '';
    index.current = -1;
    return draft.current;
  }, []);
  const record = useCallback((text: string) => {
    hist.current.append(text);
    index.current = -1;
    draft.current = '';
  }, []);
  const browsing = useCallback(() => index.current !== -1, []);
  return { up, down, record, browsing };
}
