/**
 * The menu that opens when the input is a slash command being typed: the
 * commands it is a prefix of, one per row with its description, the chosen
 * one highlighted (Up/Down choose, Tab completes, Enter runs it).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { SLASH_COMMANDS } from './chat-controller.ts';
import { useTint } from './theme.ts';
import { cut } from './transcript.tsx';

export type MenuEntry = (typeof SLASH_COMMANDS)[number];

/** The commands matching the input, or none when the input is not a command name being typed. */
export function menuFor(input: string): readonly MenuEntry[] {
  if (!/^\/[a-z]*$/i.test(input)) return [];
  const typed = input.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(typed));
}

export function SlashMenu({
  entries,
  selected,
  width,
}: {
  entries: readonly MenuEntry[];
  selected: number;
  width: number;
}): ReactNode {
  const tint = useTint();
  const head = Math.max(...entries.map((e) => e.name.length + (e.args ? e.args.length + 1 : 0))) + 2;
  return (
    <Box flexDirection="column">
      {entries.map((e, i) => {
        const name = e.name + (e.args ? ' ' + e.args : '');
        const on = i === selected;
        return (
          <Text key={e.name} wrap="truncate-end">
            <Text color={on ? tint('cyan') : undefined} bold={on}>
              {(on ? '▸ ' : '  ') + name.padEnd(head)}
            </Text>
            <Text dimColor>{cut(e.does, Math.max(4, width - head - 2))}</Text>
          </Text>
        );
      })}
    </Box>
  );
}
