/**
 * Colours in the chat TUI: on only on a TTY and never with NO_COLOR (the CLI
 * decides and passes `color` to ChatApp). Components ask `useTint()` for a
 * colour name, which is `undefined` — no colour sequence at all — when
 * colours are off. Bold, dim and inverse are styles, not colours, and stay.
 */
import { createContext, useContext } from 'react';

type Tint = (color: string) => string | undefined;

export const ColorContext = createContext(true);

export function useTint(): Tint {
  const on = useContext(ColorContext);
  return (color) => (on ? color : undefined);
}
