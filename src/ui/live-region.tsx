/**
 * The part of the screen that changes: the answer being streamed (its tail,
 * at most `maxRows` rows), its status line, the queued messages, the footer.
 * The live region keeps to what the screen has left under the input, the
 * menu, the queue and the footer (`liveRows`): a frame taller than the screen
 * is what leaves copies in the scroll-back.
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { ChatController } from './chat-controller.ts';
import type { Live } from './hooks/use-turn.ts';
import { Markdown } from './markdown.tsx';
import { inputRows, textWidth } from './text-wrap.ts';
import { useTint } from './theme.ts';
import { Spinner, ToolLine } from './transcript.tsx';

export function LiveRegion({
  live,
  width,
  maxRows,
  spinnerMs,
}: {
  live: Live;
  width: number;
  maxRows: number;
  spinnerMs: number;
}): ReactNode {
  const toolRunning = live.tools.some((t) => t.status === 'isRunning');
  const spin = (label: string) => <Spinner ms={spinnerMs} since={live.startedAt} label={label} />;
  return (
    <Box flexDirection="column">
      <Box flexDirection="column" maxHeight={maxRows} overflow="hidden" justifyContent="flex-end">
        <Box flexDirection="column" flexShrink={0}>
          {live.tools.map((t) => (
            <ToolLine key={t.eventId} t={t} spinnerMs={spinnerMs} width={width} />
          ))}
          {live.text ? <Markdown text={live.text} width={width} /> : null}
        </Box>
      </Box>
      {live.cancelling ? (
        <Text dimColor>cancelling… (Ctrl+C again quits)</Text>
      ) : live.retrying !== undefined ? (
        spin('trying again… (Esc cancels)')
      ) : toolRunning ? (
        spin('running a tool… (Esc cancels)')
      ) : !live.text ? (
        spin('thinking… (Esc cancels)')
      ) : (
        <Text dimColor wrap="truncate-end">
          answering — Ctrl+C to cancel (Esc too)
        </Text>
      )}
    </Box>
  );
}

/** The footer's words: oracle, model, session, tokens and credits spent, connection. */
export function footerText(
  c: ChatController,
  o: { oracleName?: string | undefined; state: 'streaming' | 'working' | 'connected' | 'unreachable' },
): string {
  const s = c.spent;
  return [
    o.oracleName,
    c.model ?? c.defaultModel ?? 'no model',
    `session ${c.sessionId ? c.sessionId.slice(0, 8) : 'new'}`,
    s.inputTokens || s.outputTokens ? `${s.inputTokens + s.outputTokens} tokens` : '',
    s.charged ? `${s.charged} ${s.denom} spent` : '',
    o.state,
  ]
    .filter(Boolean)
    .join(' · ');
}

export function Footer({ text, unreachable, gap }: { text: string; unreachable: boolean; gap: boolean }): ReactNode {
  const tint = useTint();
  return (
    <Box marginTop={gap ? 1 : 0}>
      <Text dimColor wrap="wrap">
        {text}
        {unreachable ? <Text color={tint('red')}> ●</Text> : null}
      </Text>
    </Box>
  );
}

/** Rows the input may take (a third of the screen) and rows left for the live region (at least 3). */
export function liveRows(o: { rows: number; columns: number; input: string; footer: string; below: number }): {
  input: number;
  live: number;
} {
  const maxInput = Math.max(3, Math.floor(o.rows / 3));
  const rowsOfInput = o.input.split('\n').reduce((n, l) => n + inputRows(l, Math.max(4, o.columns - 2)).length, 0);
  const footerRows = Math.max(1, Math.ceil((textWidth(o.footer) + 2) / Math.max(1, o.columns)));
  // the status line, the footer's gap and one spare row
  return { input: maxInput, live: Math.max(3, o.rows - Math.min(maxInput, rowsOfInput) - o.below - footerRows - 3) };
}
