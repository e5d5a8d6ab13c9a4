/**
 * Colours in the chat TUI: on only on a TTY and never with NO_COLOR (the CLI
 * decides and passes `color` to ChatApp). Components ask `useTint()` for a
 * colour name, which is `undefined` — no colour sequence at all — when
 * colours are off. Bold, underline, dim and inverse are styles, not colours,
 * and stay (no-color.org); where colour alone set text apart (a heading, inline
 * code) the markdown keeps its markers instead (`useColour`).
 */
import { createContext, useContext } from 'react';

type Tint = (color: string) => string | undefined;

export const ColorContext = createContext(true);

export function useTint(): Tint {
  const on = useContext(ColorContext);
  return (color) => (on ? color : undefined);
}

/** Colours are on. */
export function useColour(): boolean {
  return useContext(ColorContext);
}
