/**
 * The finished items of the chat (written once each, to Ink's <Static>), and
 * redrawing them: a resize or Ctrl+L clears the screen and its scroll-back and
 * mounts <Static> again, so every item is wrapped to the new width once.
 */
import { useStdout, useWindowSize } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Message } from '../../lib/protocol/index.ts';
import { historyItems, type Item, type NewItem } from '../transcript.tsx';

export interface Transcript {
  items: Item[];
  /** Bumped on each redraw: the key of <Static>. */
  epoch: number;
  add(...xs: NewItem[]): void;
  /** Replaces every item (a cleared or switched session) and redraws. */
  reset(xs?: NewItem[]): void;
  redraw(): void;
  columns: number;
  rows: number;
  tty: boolean;
  write(s: string): void;
}

/** The banner first, then a resumed session's turns (drawn as they looked live). */
export function useTranscript(banner: string[], resumed?: readonly Message[]): Transcript {
  const { stdout } = useStdout();
  const tty = Boolean((stdout as { isTTY?: boolean }).isTTY);
  const { columns, rows } = useWindowSize();
  const nextId = useRef(1);
  const [items, setItems] = useState<Item[]>(() => [
    ...(banner.length ? [{ id: 0, kind: 'note', text: banner.join('\n') } as Item] : []),
    ...historyItems(resumed ?? []).map((x) => ({ ...x, id: nextId.current++ }) as Item),
  ]);
  const [epoch, setEpoch] = useState(0);
  const withIds = (xs: NewItem[]) => xs.map((x) => ({ ...x, id: nextId.current++ }) as Item);
  const add = useCallback((...xs: NewItem[]) => setItems((prev) => [...prev, ...withIds(xs)]), []);
  const redraw = useCallback(() => {
    if (tty) stdout.write('\u001b[2J\u001b[3J\u001b[H');
    setEpoch((e) => e + 1);
  }, [stdout, tty]);
  const reset = useCallback(
    (xs: NewItem[] = []) => {
      setItems(withIds(xs));
      redraw();
    },
    [redraw],
  );
  const size = useRef({ columns, rows });
  useEffect(() => {
    if (size.current.columns === columns && size.current.rows === rows) return;
    size.current = { columns, rows };
    redraw();
  }, [columns, rows, redraw]);
  const write = useCallback((s: string) => void (tty && stdout.write(s)), [stdout, tty]);
  return { items, epoch, add, reset, redraw, columns, rows, tty, write };
}
