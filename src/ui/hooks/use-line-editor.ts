/**
 * The input being typed: a Line (input-line.ts) in React state, and a ref
 * with the latest value, because keys read faster than React renders must
 * see each other's edits.
 */
import { useCallback, useRef, useState } from 'react';
import { EMPTY_LINE, type Line } from '../input-line.ts';

export interface LineEditor {
  line: Line;
  /** The input as of the last key. */
  current(): Line;
  set(next: Line | ((l: Line) => Line)): void;
}

export function useLineEditor(): LineEditor {
  const [line, setLine] = useState<Line>(EMPTY_LINE);
  const ref = useRef<Line>(EMPTY_LINE);
  const set = useCallback((next: Line | ((l: Line) => Line)) => {
    ref.current = typeof next === 'function' ? next(ref.current) : next;
    setLine(ref.current);
  }, []);
  const current = useCallback(() => ref.current, []);
  return { line, current, set };
}
