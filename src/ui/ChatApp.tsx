/**
 * The Ink chat TUI (`oraclekit --chat`): finished turns in <Static>, one live
 * region (the answer being streamed — markdown, tool calls as they run and
 * finish, a spinner with the elapsed time until the first token and while a
 * tool runs), the slash menu, the input, a footer (oracle, model, session,
 * tokens and credits spent, connection).
 *
 * The component only composes one hook per behaviour (src/ui/hooks): the
 * transcript and redraws (use-transcript), the input (use-line-editor, with
 * the pure edits of input-line.ts), its history (use-input-history), /pay's
 * yes (use-pay-confirm), the commands that act on the screen
 * (use-screen-commands: /clear, /copy, /tool, /edit), the turn (use-turn),
 * what Enter does (use-submit, with the queue of use-message-queue; slash
 * commands go through ChatController.command, the one dispatcher) and the
 * keys (use-chat-keys, from the table of key-bindings.ts).
 *
 * The live region never grows past the terminal: it shows the tail of the
 * answer so far (clipped by Ink at the exact rendered height), and the input
 * shows at most a third of the screen around its cursor; the whole answer is
 * written once, to <Static>, when the turn ends. A live frame taller than the
 * screen is what left copies in the scroll-back.
 */
import { Box, Static, Text, useApp } from 'ink';
import { useCallback, type ReactNode } from 'react';
import type { Message } from '../lib/protocol/index.ts';
import type { ChatController } from './chat-controller.ts';
import { Footer, footerText, LiveRegion, liveRows } from './live-region.tsx';
import { SlashMenu } from './slash-menu.tsx';
import { ColorContext } from './theme.ts';
import { ItemView, Prompt, usageWords } from './transcript.tsx';
import { counted } from './text-wrap.ts';
import { useChatKeys } from './hooks/use-chat-keys.ts';
import { useInputHistory, type InputHistory } from './hooks/use-input-history.ts';
import { useLineEditor } from './hooks/use-line-editor.ts';
import { usePayConfirm } from './hooks/use-pay-confirm.ts';
import { useScreenCommands } from './hooks/use-screen-commands.ts';
import { useSubmit } from './hooks/use-submit.ts';
import { useTranscript } from './hooks/use-transcript.ts';
import { useTurn } from './hooks/use-turn.ts';

export type { InputHistory } from './hooks/use-input-history.ts';

interface ChatAppProps {
  controller: ChatController;
  /** Lines shown once at the top (oracle, identity, how to get help). */
  banner?: string[];
  /** A resumed session's history, drawn under the banner as it looked live. */
  resumed?: Message[];
  /** The oracle's name, for the footer. */
  oracleName?: string;
  /** Colours on (the CLI decides: a TTY and no NO_COLOR). Default true. */
  color?: boolean;
  /** Input history across runs (the CLI keeps it per oracle in the state dir); default in memory only. */
  history?: InputHistory;
  /** Spinner frame interval (ms); 0 disables the animation and the elapsed time (tests). */
  spinnerMs?: number;
  /** Puts text on the clipboard (/copy); default an OSC 52 sequence to the terminal. */
  copy?: (text: string) => void;
  /** How long to wait before sending a turn that failed on the provider's side again (default 1 s). */
  retryDelayMs?: number;
  onExit?: () => void;
}

export function ChatApp(props: ChatAppProps): ReactNode {
  return (
    <ColorContext.Provider value={props.color ?? true}>
      <Chat {...props} />
    </ColorContext.Provider>
  );
}

function Chat({
  controller,
  banner = [],
  resumed,
  oracleName,
  history,
  spinnerMs = 80,
  copy,
  retryDelayMs,
  onExit,
}: ChatAppProps): ReactNode {
  const { exit } = useApp();
  const transcript = useTranscript(banner, resumed);
  const { add, reset, redraw, columns, rows } = transcript;
  const editor = useLineEditor();
  const recall = useInputHistory(history);
  const pay = usePayConfirm();
  const { screen, onAnswer, openEditor } = useScreenCommands({ transcript, editor, copy });
  const turn = useTurn({ controller, add, onRefused: pay.refused, onAnswer, retryDelayMs });
  const quit = useCallback(() => {
    onExit?.();
    exit();
  }, [exit, onExit]);
  const submit = useSubmit({ controller, add, reset, recall, pay, turn, screen, quit });
  const keys = useChatKeys({ controller, editor, recall, turn, submit, redraw, quit, openEditor, add, pay });

  const { live, busy, connection } = turn;
  const queued = submit.queue.queued;
  const state = connection === 'unreachable' ? 'unreachable' : live ? 'streaming' : busy ? 'working' : 'connected';
  const footer = footerText(controller, { oracleName, state });
  const fit = liveRows({ rows, columns, input: editor.line.text, footer, below: queued.length + keys.menu.length });
  return (
    <Box flexDirection="column">
      <Static key={transcript.epoch} items={transcript.items} style={{ width: columns }}>
        {(item) => <ItemView key={item.id} item={item} width={columns} />}
      </Static>
      {live ? <LiveRegion live={live} width={columns} maxRows={fit.live} spinnerMs={spinnerMs} /> : null}
      {queued.map((q, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          queued: {q.replace(/\n/g, ' ⏎ ')}
        </Text>
      ))}
      {keys.armed && !live ? <Text dimColor>Press Ctrl+C again to quit.</Text> : null}
      {keys.menu.length ? <SlashMenu entries={keys.menu} selected={keys.selected} width={columns} /> : null}
      <Footer text={footer} unreachable={connection === 'unreachable'} gap={!live && !keys.menu.length} />
      <Prompt line={editor.line} busy={busy} cursor width={columns} maxRows={fit.input} />
    </Box>
  );
}

/** The session's usage in one line, for the summary on quit. */
export function spentWords(c: ChatController): string {
  const s = c.spent;
  const tokens = usageWords({ inputTokens: s.inputTokens, outputTokens: s.outputTokens });
  return [counted(s.turns, 'turn'), tokens, s.charged ? `${s.charged} ${s.denom} spent` : '']
    .filter(Boolean)
    .join(' · ');
}
