/**
 * The Ink chat TUI (`oraclekit --chat`): finished turns in <Static>, one live
 * region (the answer being streamed — markdown, tool calls as they run and
 * finish, a spinner with the elapsed time until the first token and while a
 * tool runs), the slash menu, the input, a footer (oracle, model, session,
 * tokens and credits spent, connection).
 *
 * The component only composes: the transcript and redraws (hooks/use-transcript),
 * the input (hooks/use-line-editor, the pure edits of input-line.ts, the keys
 * of key-bindings.ts), its history (hooks/use-input-history), the queue of
 * messages typed during a turn (hooks/use-message-queue), /pay's yes
 * (hooks/use-pay-confirm), the turn itself (hooks/use-turn) and the slash
 * commands, all dispatched by ChatController.command with this screen's
 * handlers for /clear, /copy, /tool and /edit.
 *
 * The live region never grows past the terminal: it shows the tail of the
 * answer so far (clipped by Ink at the exact rendered height), and the input
 * shows at most a third of the screen around its cursor; the whole answer is
 * written once, to <Static>, when the turn ends. A live frame taller than the
 * screen is what left copies in the scroll-back.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Box, Static, Text, useApp, useInput, usePaste, type Key } from 'ink';
import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Message, ToolCallState } from '../lib/protocol/index.ts';
import type { TurnResult } from '../client/client.ts';
import type { ChatController, ChatScreen, CommandResult } from './chat-controller.ts';
import {
  EDIT_COMMANDS,
  EMPTY_LINE,
  editChunk,
  editPaste,
  expandPastes,
  lineDown,
  lineOf,
  lineUp,
  splitChunk,
  type EditCommand,
} from './input-line.ts';
import { commandFor, isUnboundKey, prefixedCommand } from './key-bindings.ts';
import { codeBlocks, Markdown } from './markdown.tsx';
import { menuFor, SlashMenu } from './slash-menu.tsx';
import { ColorContext, useTint } from './theme.ts';
import { historyItems, ItemView, oneLine, Prompt, Spinner, ToolLine, usageWords } from './transcript.tsx';
import { textWidth } from './text-wrap.ts';
import { useInputHistory, type InputHistory } from './hooks/use-input-history.ts';
import { useLineEditor } from './hooks/use-line-editor.ts';
import { useMessageQueue } from './hooks/use-message-queue.ts';
import { usePayConfirm } from './hooks/use-pay-confirm.ts';
import { useTranscript } from './hooks/use-transcript.ts';
import { useTurn } from './hooks/use-turn.ts';

export type { InputHistory } from './hooks/use-input-history.ts';

export interface ChatAppProps {
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
  /** Called when the first text delta of a turn arrives, before it is rendered (bench). */
  onFirstTokenEvent?: () => void;
  /** Puts text on the clipboard (/copy); default an OSC 52 sequence to the terminal. */
  copy?: (text: string) => void;
  /** How long to wait before sending a turn that failed on the provider's side again (default 1 s). */
  retryDelayMs?: number;
  onExit?: () => void;
}

function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/** Opens $VISUAL or $EDITOR (else vi) on a file holding `text`; the file's text after it exits. */
function editInEditor(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'oraclekit-message-'));
  const file = join(dir, 'message.md');
  try {
    writeFileSync(file, text, { mode: 0o600 });
    const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
    const r = spawnSync(`${editor} '${file.replace(/'/g, "'\\''")}'`, { shell: true, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${editor} exited with ${r.status ?? r.signal}`);
    return readFileSync(file, 'utf8').replace(/\n$/, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  onFirstTokenEvent,
  copy,
  retryDelayMs,
  onExit,
}: ChatAppProps): ReactNode {
  const { exit, suspendTerminal } = useApp();
  const tint = useTint();
  const transcript = useTranscript(banner, resumed ? historyItems(resumed) : []);
  const { add, columns, rows } = transcript;
  const editor = useLineEditor();
  const recall = useInputHistory(history);
  const pay = usePayConfirm();
  const lastAnswer = useRef<TurnResult | undefined>(undefined);
  const lastTool = useRef<ToolCallState | undefined>(undefined);
  const onAnswer = useCallback((r: TurnResult) => {
    if (r.text) lastAnswer.current = r;
    if (r.toolCalls.length) lastTool.current = r.toolCalls.at(-1);
  }, []);
  const turn = useTurn({ controller, add, onRefused: pay.refused, onAnswer, onFirstTokenEvent, retryDelayMs });
  const { busy, setBusy, live } = turn;
  const [armed, setArmed] = useState(false);
  const [menuIndex, setMenuIndex] = useState(0);
  const prefix = useRef(false);

  const quit = useCallback(() => {
    onExit?.();
    exit();
  }, [exit, onExit]);

  const openEditor = useCallback(async (): Promise<CommandResult> => {
    let text: string | undefined;
    let failed: string | undefined;
    await suspendTerminal(() => {
      try {
        text = editInEditor(expandPastes(editor.current()));
      } catch (e) {
        failed = (e as Error).message;
      }
    });
    if (failed) return { lines: [`The editor failed: ${failed}. Your message is unchanged.`] };
    if (text !== undefined) editor.set(lineOf(text));
    return { lines: [] };
  }, [editor, suspendTerminal]);

  const screen = useMemo<ChatScreen>(
    () => ({
      clear: () => {
        transcript.reset();
        return { lines: [] };
      },
      copy: (arg) => {
        const answer = lastAnswer.current?.text;
        if (!answer) return { lines: ['No answer to copy yet.'] };
        let text = answer;
        let what = `the last answer (${answer.length} characters)`;
        if (arg) {
          const blocks = codeBlocks(answer);
          const n = Number(arg);
          if (!Number.isInteger(n) || n < 1 || n > blocks.length)
            return {
              lines: [
                `/copy ${arg}: the last answer has ${blocks.length} code block${blocks.length === 1 ? '' : 's'}; /copy 1 copies the first.`,
              ],
            };
          text = blocks[n - 1]!;
          what = `code block ${n} of the last answer (${text.split('\n').length} lines)`;
        }
        if (copy) copy(text);
        else transcript.write(osc52(text));
        return { lines: [`Copied ${what} to the clipboard.`] };
      },
      tool: () => {
        const t = lastTool.current;
        if (!t) return { lines: ['No tool call yet.'] };
        const pretty = (v: unknown) => {
          try {
            return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
          } catch {
            return String(v);
          }
        };
        return {
          lines: [
            `${t.toolName} ${oneLine(t.args ?? {})} (${t.status === 'error' ? 'failed' : t.status})`,
            t.status === 'error' ? (t.error ?? 'failed') : pretty(t.output),
          ],
        };
      },
      edit: openEditor,
    }),
    [copy, openEditor, transcript],
  );

  /** Shows what a command did, and follows up (quit, reset, a question, a payment, a message to send). */
  const afterCommand = (r: CommandResult, queue: { unshift(text: string): void }) => {
    if (r.quit) return quit();
    if (r.reset) transcript.reset(r.history ? historyItems(r.history) : []);
    const lines = r.history ? r.lines.slice(0, 1) : r.lines;
    if (r.confirm) pay.ask(r.confirm);
    const text = [...lines, ...(r.confirm ? [r.confirm.question] : [])].join('\n');
    if (text) add({ kind: 'note', text, hanging: r.hanging });
    if (r.paid) {
      const again = pay.takeRefused();
      if (again) {
        add({ kind: 'note', text: 'Sending your message again.' });
        queue.unshift(again);
      }
    }
    if (r.send) queue.unshift(r.send);
  };

  const submitRef = useRef<(text: string) => void>(() => {});
  const queue = useMessageQueue(
    busy,
    useCallback((text: string) => submitRef.current(text), []),
  );

  const submit = async (text: string, shown = text) => {
    if (!text.trim()) return;
    if (pay.waiting()) {
      add({ kind: 'user', text });
      const paying = pay.answer(text);
      if (!paying) return add({ kind: 'note', text: 'Not paid.' });
      setBusy(true);
      try {
        afterCommand(await paying, queue);
      } catch (e) {
        add({ kind: 'error', text: controller.explain(e) });
      } finally {
        setBusy(false);
      }
      return;
    }
    recall.record(shown);
    setArmed(false);
    if (controller.isCommand(text)) {
      setBusy(true);
      try {
        afterCommand(await controller.command(text, screen), queue);
      } catch (e) {
        add({ kind: 'error', text: controller.explain(e) });
      } finally {
        setBusy(false);
      }
      return;
    }
    add({ kind: 'user', text: shown });
    await turn.run(text);
  };
  submitRef.current = (text) => void submit(text);

  const enter = (text: string, shown = text) => {
    editor.set(EMPTY_LINE);
    setMenuIndex(0);
    if (busy) {
      if (text.trim()) queue.push(text);
      return;
    }
    void submit(text, shown);
  };

  usePaste((text) => {
    setArmed(false);
    editor.set((l) => editPaste(l, text));
  });

  const menu = menuFor(editor.line.text);
  const selected = Math.min(menuIndex, Math.max(0, menu.length - 1));

  /** One key (or a run of text) as Ink reports it. */
  const onKey = (ch: string, key: Key) => {
    let cmd = prefix.current ? prefixedCommand(ch) : commandFor(ch, key);
    if (prefix.current) {
      prefix.current = false;
      if (!cmd) return;
    }
    const line = editor.current();
    const entries = menuFor(line.text);
    switch (cmd) {
      case 'interrupt':
        if (controller.streaming && !armed) {
          setArmed(true);
          queue.clear();
          return turn.cancel();
        }
        if (armed) return quit();
        setArmed(true);
        return;
      case 'cancel':
        if (controller.streaming) {
          queue.clear();
          turn.cancel();
        }
        return;
      case 'eof':
        if (line.text === '') return quit();
        cmd = 'delete';
        break;
      case 'redraw':
        return transcript.redraw();
      case 'prefix':
        prefix.current = true;
        return;
      case 'editor':
        void openEditor().then((r) => r.lines.length && add({ kind: 'note', text: r.lines.join('\n') }));
        return;
      case 'submit': {
        const chosen = entries[Math.min(menuIndex, entries.length - 1)];
        if (chosen && !entries.some((e) => e.name === line.text.toLowerCase())) return enter(chosen.name);
        return enter(expandPastes(line), line.text);
      }
      case 'complete': {
        const chosen = entries[Math.min(menuIndex, entries.length - 1)];
        if (chosen) editor.set(lineOf(chosen.name + ' '));
        return;
      }
      case 'up': {
        // the menu takes Up/Down, unless they are recalling what was typed (a recalled "/quit" opens it too)
        if (entries.length > 1 && !recall.browsing())
          return setMenuIndex((i) => (i - 1 + entries.length) % entries.length);
        const moved = lineUp(line);
        if (moved) return editor.set(moved);
        const h = recall.up(line.text);
        if (h !== undefined) editor.set(lineOf(h));
        return;
      }
      case 'down': {
        if (entries.length > 1 && !recall.browsing()) return setMenuIndex((i) => (i + 1) % entries.length);
        const moved = lineDown(line);
        if (moved) return editor.set(moved);
        const h = recall.down();
        if (h !== undefined) editor.set(lineOf(h));
        return;
      }
      default:
        break;
    }
    setArmed(false);
    if (cmd) {
      setMenuIndex(0);
      return editor.set(EDIT_COMMANDS[cmd as EditCommand]);
    }
    if (isUnboundKey(key) || !ch) return;
    setMenuIndex(0);
    const r = editChunk(line, ch);
    if (r.send !== undefined) return enter(r.send);
    editor.set(r.line);
  };

  // keys read in one chunk (tmux send-keys, a loaded machine) arrive as one string: its control keys are
  // keys of their own, in order, through the same table (Ctrl+X Ctrl+E included); the text between them is text
  useInput((ch, key) => {
    if (ch.length < 2 || key.ctrl || key.meta) return onKey(ch, key);
    for (const piece of splitChunk(ch)) {
      if (typeof piece === 'string') onKey(piece, key);
      else onKey(piece.ctrl, { ...key, ctrl: true });
    }
  });

  const toolRunning = live?.tools.some((t) => t.status === 'isRunning') ?? false;
  const session = controller.sessionId ? controller.sessionId.slice(0, 8) : 'new';
  const model = controller.model ?? controller.defaultModel ?? 'no model';
  const spent = controller.spent;
  const footer = [
    oracleName,
    model,
    `session ${session}`,
    spent.inputTokens || spent.outputTokens ? `${spent.inputTokens + spent.outputTokens} tokens` : '',
    spent.charged ? `${spent.charged} ${spent.denom} spent` : '',
    turn.connection === 'connected' ? (busy ? 'streaming' : 'connected') : 'unreachable',
  ]
    .filter(Boolean)
    .join(' · ');
  const footerRows = Math.max(1, Math.ceil((textWidth(footer) + 2) / Math.max(1, columns)));
  const maxInputRows = Math.max(3, Math.floor(rows / 3));
  const inputRows = Math.min(
    maxInputRows,
    editor.line.text
      .split('\n')
      .reduce((n, l) => n + Math.max(1, Math.ceil((textWidth(l) + 1) / Math.max(1, columns - 2))), 0),
  );
  // The live region keeps to what the screen has left under the status line, the queue, the menu,
  // the footer and the input (and one spare row): a frame taller than the screen leaves copies behind.
  const liveMax = Math.max(3, rows - inputRows - queue.queued.length - menu.length - footerRows - 3);

  return (
    <Box flexDirection="column">
      <Static key={transcript.epoch} items={transcript.items} style={{ width: columns }}>
        {(item) => <ItemView key={item.id} item={item} width={columns} />}
      </Static>
      {live ? (
        <Box flexDirection="column">
          <Box flexDirection="column" maxHeight={liveMax} overflow="hidden" justifyContent="flex-end">
            <Box flexDirection="column" flexShrink={0}>
              {live.tools.map((t) => (
                <ToolLine key={t.eventId} t={t} spinnerMs={spinnerMs} width={columns} />
              ))}
              {live.text ? <Markdown text={live.text} width={columns} /> : null}
            </Box>
          </Box>
          {live.cancelling ? (
            <Text dimColor>cancelling… (Ctrl+C again quits)</Text>
          ) : live.retrying !== undefined ? (
            <Spinner ms={spinnerMs} since={live.startedAt} label="trying again… (Esc cancels)" />
          ) : !live.text && !toolRunning ? (
            <Spinner ms={spinnerMs} since={live.startedAt} label="thinking… (Esc cancels)" />
          ) : toolRunning ? (
            <Spinner ms={spinnerMs} since={live.startedAt} label="running a tool… (Esc cancels)" />
          ) : (
            <Text dimColor wrap="truncate-end">
              answering — Ctrl+C to cancel (Esc too)
            </Text>
          )}
        </Box>
      ) : null}
      {queue.queued.map((q, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          queued: {q.replace(/\n/g, ' ⏎ ')}
        </Text>
      ))}
      {armed && !live ? <Text dimColor>Press Ctrl+C again to quit.</Text> : null}
      {menu.length ? <SlashMenu entries={menu} selected={selected} width={columns} /> : null}
      <Box marginTop={live || menu.length ? 0 : 1}>
        <Text dimColor wrap="wrap">
          {footer}
          {turn.connection === 'connected' ? null : <Text color={tint('red')}> ●</Text>}
        </Text>
      </Box>
      <Prompt line={editor.line} busy={busy} cursor width={columns} maxRows={maxInputRows} />
    </Box>
  );
}

/** The session's usage in one line, for the summary on quit. */
export function spentWords(c: ChatController): string {
  const s = c.spent;
  const tokens = usageWords({ inputTokens: s.inputTokens, outputTokens: s.outputTokens });
  return [`${s.turns} turn${s.turns === 1 ? '' : 's'}`, tokens, s.charged ? `${s.charged} ${s.denom} spent` : '']
    .filter(Boolean)
    .join(' · ');
}
