/**
 * The Ink chat TUI (`oraclekit --chat`): finished turns in <Static>, one live
 * region (the answer being streamed — markdown, tool calls as they run and
 * finish, a spinner with the elapsed time until the first token and while a
 * tool runs), the input, a footer (oracle, model, session, connection).
 *
 * - The live region never grows past the terminal: it shows the tail of the
 *   answer so far (clipped by Ink at the exact rendered height); the whole
 *   answer is written once, to <Static>, when the turn ends. A live frame
 *   taller than the screen is what left copies in the scroll-back.
 * - A resize (and Ctrl+L) redraws: the screen and scroll-back are cleared and
 *   <Static> is mounted again, so every turn is wrapped to the new width once.
 * - Input rules: src/ui/input-line.ts. Esc or Ctrl+C cancels the stream; a
 *   second Ctrl+C quits. All network work goes through ChatController → the
 *   headless client.
 */
import { Box, Static, Text, useApp, useInput, usePaste, useStdout, useWindowSize } from 'ink';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { AnyEvent, ToolCallState, TurnState } from '../lib/protocol/index.ts';
import {
  explainError,
  explainRunError,
  SLASH_COMMANDS,
  type ChatController,
  type CommandResult,
} from './chat-controller.ts';
import { PaymentRequiredError } from '../client/errors.ts';
import { editChunk, editPaste } from './input-line.ts';
import { Markdown } from './markdown.tsx';
import { ColorContext, useTint } from './theme.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type NewItem = DistributiveOmit<Item, 'id'>;

type Item =
  | { id: number; kind: 'user'; text: string }
  | { id: number; kind: 'assistant'; text: string; tools: readonly ToolCallState[]; status: string }
  | { id: number; kind: 'note'; text: string }
  | { id: number; kind: 'error'; text: string };

interface Live {
  text: string;
  tools: readonly ToolCallState[];
  cancelling: boolean;
  startedAt: number;
}

/** What the input history needs: the entries so far (oldest first) and where new ones go. */
export interface InputHistory {
  entries: string[];
  append(text: string): void;
}

export interface ChatAppProps {
  controller: ChatController;
  /** Lines shown once at the top (oracle, identity, how to get help). */
  banner?: string[];
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
  onExit?: () => void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function useTicker(ms: number): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!ms) return;
    const t = setInterval(() => setN((x) => x + 1), ms);
    return () => clearInterval(t);
  }, [ms]);
  return n;
}

function Spinner({ ms, since, label }: { ms: number; since?: number; label?: string }): ReactNode {
  const tint = useTint();
  const n = useTicker(ms);
  const elapsed = ms && since !== undefined ? ` ${((Date.now() - since) / 1000).toFixed(1)}s` : '';
  return (
    <Text>
      <Text color={tint('cyan')}>{FRAMES[n % FRAMES.length]}</Text>
      {label !== undefined ? (
        <Text dimColor>
          {' '}
          {label}
          {elapsed}
        </Text>
      ) : null}
    </Text>
  );
}

function short(v: unknown, n = 60): string {
  let s: string;
  try {
    s = typeof v === 'string' ? v : JSON.stringify(v);
  } catch {
    s = String(v);
  }
  s = s ?? '';
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** A tool call: the icon in a column of its own, then one paragraph (name, args, result or error) wrapped to the width. */
function ToolLine({ t, spinnerMs }: { t: ToolCallState; spinnerMs: number }): ReactNode {
  const tint = useTint();
  const icon =
    t.status === 'isRunning' ? (
      <Spinner ms={spinnerMs} />
    ) : t.status === 'done' ? (
      <Text color={tint('green')}>✓</Text>
    ) : (
      <Text color={tint('red')}>✗</Text>
    );
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        {icon}
      </Box>
      <Box flexGrow={1} flexShrink={1}>
        <Text wrap="wrap">
          <Text color={tint('blue')}>{t.toolName}</Text>
          <Text dimColor> {short(t.args)}</Text>
          {t.status === 'done' ? <Text dimColor> → {short(t.output, 50)}</Text> : null}
          {t.status === 'error' ? <Text color={tint('red')}> {short(t.error ?? 'failed', 300)}</Text> : null}
        </Text>
      </Box>
    </Box>
  );
}

function Prompt({ text, busy, cursor }: { text: string; busy?: boolean; cursor?: boolean }): ReactNode {
  const tint = useTint();
  const lines = text.split('\n');
  return (
    <Box>
      <Box width={2} flexShrink={0}>
        <Text color={tint(busy ? 'gray' : 'green')} bold>
          ›
        </Text>
      </Box>
      <Box flexGrow={1} flexShrink={1} flexDirection="column">
        {lines.map((l, i) => (
          <Text key={i} wrap="wrap">
            {l === '' && !(cursor && i === lines.length - 1) ? ' ' : l}
            {cursor && i === lines.length - 1 ? <Text inverse> </Text> : null}
          </Text>
        ))}
      </Box>
    </Box>
  );
}

function ItemView({ item }: { item: Item }): ReactNode {
  const tint = useTint();
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Prompt text={item.text} />
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column">
          {item.tools.map((t) => (
            <ToolLine key={t.eventId} t={t} spinnerMs={0} />
          ))}
          {item.text ? <Markdown text={item.text} /> : null}
          {item.status === 'aborted' ? <Text dimColor>(cancelled)</Text> : null}
        </Box>
      );
    case 'note':
      return (
        <Box marginTop={1}>
          <Text dimColor wrap="wrap">
            {item.text}
          </Text>
        </Box>
      );
    case 'error':
      return (
        <Text color={tint('red')} wrap="wrap">
          {item.text}
        </Text>
      );
  }
}

/** Completions of a slash command being typed: the commands it is a prefix of. */
function completions(input: string): string[] {
  if (!/^\/[a-z]*$/i.test(input)) return [];
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(input.toLowerCase())).map((c) => c.name);
}

function commonPrefix(xs: string[]): string {
  if (!xs.length) return '';
  let p = xs[0]!;
  for (const x of xs) while (!x.startsWith(p)) p = p.slice(0, -1);
  return p;
}

function memoryHistory(): InputHistory {
  const entries: string[] = [];
  return { entries, append: (t) => void entries.push(t) };
}

function osc52(text: string): string {
  return `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
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
  oracleName,
  history,
  spinnerMs = 80,
  onFirstTokenEvent,
  copy,
  onExit,
}: ChatAppProps): ReactNode {
  const { exit } = useApp();
  const tint = useTint();
  const { stdout } = useStdout();
  const tty = Boolean((stdout as { isTTY?: boolean }).isTTY);
  const { columns, rows } = useWindowSize();
  const nextId = useRef(1);
  const [items, setItems] = useState<Item[]>(() =>
    banner.length ? [{ id: 0, kind: 'note', text: banner.join('\n') }] : [],
  );
  /** Bumped to mount <Static> again (a redraw writes every item once more, at the current width). */
  const [epoch, setEpoch] = useState(0);
  const [live, setLive] = useState<Live | null>(null);
  const [input, setInputState] = useState('');
  /** The input as of the last key: keys read faster than React renders must see each other's edits. */
  const inputRef = useRef('');
  const setInput = useCallback((v: string | ((s: string) => string)) => {
    inputRef.current = typeof v === 'function' ? v(inputRef.current) : v;
    setInputState(inputRef.current);
  }, []);
  const [busy, setBusy] = useState(false);
  const [armed, setArmed] = useState(false);
  const [connection, setConnection] = useState<'connected' | 'unreachable'>('connected');
  const [, setFooterTick] = useState(0);
  const hist = useRef<InputHistory>(history ?? memoryHistory());
  const histIdx = useRef<number>(-1);
  const draft = useRef('');
  const firstTokenSeen = useRef(false);
  const lastAnswer = useRef('');
  /** A command waiting for a yes (/pay). */
  const confirm = useRef<CommandResult['confirm']>(undefined);
  /** The message the oracle refused for payment: sent again once /pay succeeds. */
  const refused = useRef<string | undefined>(undefined);
  /** Messages typed while a turn runs, sent one after the other when it ends. */
  const queue = useRef<string[]>([]);
  const [queued, setQueued] = useState<string[]>([]);

  const add = useCallback((...xs: NewItem[]) => {
    setItems((prev) => [...prev, ...xs.map((x) => ({ ...x, id: nextId.current++ }) as Item)]);
  }, []);

  /** Clears the screen and its scroll-back, then writes every finished turn again (resize, Ctrl+L). */
  const redraw = useCallback(() => {
    if (tty) stdout.write('\u001b[2J\u001b[3J\u001b[H');
    setEpoch((e) => e + 1);
  }, [stdout, tty]);

  const size = useRef({ columns, rows });
  useEffect(() => {
    if (size.current.columns === columns && size.current.rows === rows) return;
    size.current = { columns, rows };
    redraw();
  }, [columns, rows, redraw]);

  const quit = useCallback(() => {
    onExit?.();
    exit();
  }, [exit, onExit]);

  const cancel = useCallback(() => {
    setLive((l) => (l ? { ...l, cancelling: true } : l));
    queue.current = [];
    setQueued([]);
    controller.cancel().catch((e: unknown) => add({ kind: 'error', text: explainError(e, controller.client.baseUrl) }));
  }, [add, controller]);

  const submit = useCallback(
    async (text: string) => {
      if (!text.trim()) return;
      const asked = confirm.current;
      if (asked) {
        confirm.current = undefined;
        add({ kind: 'user', text });
        if (!/^y(es)?$/i.test(text.trim())) return add({ kind: 'note', text: 'Not paid.' });
        setBusy(true);
        try {
          const r = await asked.run();
          add({ kind: 'note', text: r.lines.join('\n') });
        } catch (e) {
          return add({ kind: 'error', text: explainError(e, controller.client.baseUrl) });
        } finally {
          setBusy(false);
        }
        const again = refused.current;
        refused.current = undefined;
        if (again) {
          add({ kind: 'note', text: 'Sending your message again.' });
          queue.current.unshift(again);
          setQueued([...queue.current]);
        }
        return;
      }
      hist.current.append(text);
      histIdx.current = -1;
      draft.current = '';
      setArmed(false);
      if (controller.isCommand(text)) {
        const name = text.trim().split(/\s+/)[0]!.toLowerCase();
        if (name === '/clear') {
          setItems([]);
          redraw();
          return;
        }
        if (name === '/copy') {
          if (!lastAnswer.current) return add({ kind: 'note', text: 'No answer to copy yet.' });
          if (copy) copy(lastAnswer.current);
          else if (tty) stdout.write(osc52(lastAnswer.current));
          return add({
            kind: 'note',
            text: `Copied the last answer (${lastAnswer.current.length} characters) to the clipboard.`,
          });
        }
        setBusy(true);
        try {
          const r = await controller.command(text);
          if (r.quit) return quit();
          if (r.reset) setItems([]);
          if (r.reset) redraw();
          if (r.confirm) confirm.current = r.confirm;
          add({ kind: 'note', text: [...r.lines, ...(r.confirm ? [r.confirm.question] : [])].join('\n') });
        } catch (e) {
          add({ kind: 'error', text: explainError(e, controller.client.baseUrl) });
        } finally {
          setBusy(false);
        }
        return;
      }
      firstTokenSeen.current = false;
      let turn: TurnState | undefined;
      const onEvent = (e: AnyEvent, next: TurnState) => {
        const prev = turn;
        turn = next;
        // the live region shows the text and the tool calls: other events do not render
        if (next.text === (prev?.text ?? '') && (next.toolCalls.length === 0 || next.toolCalls === prev?.toolCalls))
          return;
        if (e.event === 'message' && !firstTokenSeen.current) {
          firstTokenSeen.current = true;
          onFirstTokenEvent?.();
        }
        setLive((l) => ({
          text: next.text,
          tools: next.toolCalls,
          cancelling: l?.cancelling ?? false,
          startedAt: l?.startedAt ?? Date.now(),
        }));
      };
      // the request leaves before React renders the user's line: rendering is not on the critical path
      const pending = controller.send(text, onEvent);
      add({ kind: 'user', text });
      setBusy(true);
      setLive({ text: '', tools: [], cancelling: false, startedAt: Date.now() });
      try {
        const r = await pending;
        setConnection('connected');
        const extra: NewItem[] = [];
        const why = explainRunError(r);
        if (why && r.status !== 'aborted') extra.push({ kind: 'error', text: why });
        if (r.text) lastAnswer.current = r.text;
        add({ kind: 'assistant', text: r.text, tools: r.toolCalls, status: r.status }, ...extra);
      } catch (e) {
        if ((e as { code?: string }).code === 'oracle_unreachable') setConnection('unreachable');
        if (e instanceof PaymentRequiredError) refused.current = text;
        if (turn && (turn.text || turn.toolCalls.length))
          add({ kind: 'assistant', text: turn.text, tools: turn.toolCalls, status: 'failed' });
        add({ kind: 'error', text: explainError(e, controller.client.baseUrl) });
      } finally {
        setLive(null);
        setBusy(false);
        setFooterTick((x) => x + 1);
      }
    },
    [add, controller, copy, onFirstTokenEvent, quit, redraw, stdout, tty],
  );

  useEffect(() => {
    if (busy || queue.current.length === 0) return;
    const next = queue.current.shift()!;
    setQueued([...queue.current]);
    void submit(next);
  }, [busy, submit]);

  const enter = (text: string) => {
    if (busy) {
      if (text.trim()) {
        queue.current.push(text);
        setQueued([...queue.current]);
      }
      setInput('');
      return;
    }
    setInput('');
    void submit(text);
  };

  usePaste((text) => {
    setArmed(false);
    setInput((s) => editPaste(s, text));
  });

  useInput((ch, key) => {
    if (key.ctrl && ch === 'c') {
      if (controller.streaming && !armed) {
        setArmed(true);
        return cancel();
      }
      if (armed) return quit();
      setArmed(true);
      return;
    }
    if (key.escape) {
      if (controller.streaming) cancel();
      return;
    }
    if (key.ctrl && ch === 'd' && inputRef.current === '') return quit();
    if (key.ctrl && ch === 'l') return redraw();
    setArmed(false);
    // Alt+Enter or Ctrl+J (a lone LF): a newline in the message
    if ((key.return && key.meta) || ch === '\n') return setInput((s) => s + '\n');
    if (key.return) return enter(inputRef.current);
    if (key.tab) {
      const c = completions(inputRef.current);
      if (c.length === 1) setInput(c[0]! + ' ');
      else if (c.length > 1) setInput(commonPrefix(c));
      return;
    }
    const single = !inputRef.current.includes('\n');
    if (key.upArrow && single) {
      const h = hist.current.entries;
      if (!h.length) return;
      if (histIdx.current === -1) {
        draft.current = inputRef.current;
        histIdx.current = h.length - 1;
      } else if (histIdx.current > 0) histIdx.current--;
      setInput(h[histIdx.current] ?? '');
      return;
    }
    if (key.downArrow && single) {
      const h = hist.current.entries;
      if (histIdx.current === -1) return;
      if (histIdx.current < h.length - 1) {
        histIdx.current++;
        setInput(h[histIdx.current] ?? '');
      } else {
        histIdx.current = -1;
        setInput(draft.current);
      }
      return;
    }
    if (key.backspace || key.delete) {
      setInput((s) => [...s].slice(0, -1).join(''));
      return;
    }
    if (key.ctrl && ch === 'u') return setInput('');
    if (
      key.upArrow ||
      key.downArrow ||
      key.leftArrow ||
      key.rightArrow ||
      key.pageUp ||
      key.pageDown ||
      key.meta ||
      key.ctrl
    )
      return;
    if (!ch) return;
    const r = editChunk(inputRef.current, ch);
    if (r.send !== undefined) return enter(r.send);
    setInput(r.text);
  });

  const toolRunning = live?.tools.some((t) => t.status === 'isRunning') ?? false;
  const session = controller.sessionId ? controller.sessionId.slice(0, 8) : 'new';
  const model = controller.model ?? controller.defaultModel ?? 'no model';
  const inputRows = input
    .split('\n')
    .reduce((n, l) => n + Math.max(1, Math.ceil(([...l].length + 3) / Math.max(1, columns - 2))), 0);
  const hints = completions(input);
  // The live region keeps to what the screen has left under the status line, the queue, the hints,
  // the footer and the input (and one spare row): a frame taller than the screen leaves copies behind.
  const footer = [
    oracleName,
    model,
    `session ${session}`,
    connection === 'connected' ? (busy ? 'streaming' : 'connected') : 'unreachable',
  ]
    .filter(Boolean)
    .join(' · ');
  const footerRows = Math.max(1, Math.ceil(([...footer].length + 2) / Math.max(1, columns)));
  const liveMax = Math.max(3, rows - inputRows - queued.length - (hints.length ? 1 : 0) - footerRows - 3);

  return (
    <Box flexDirection="column">
      <Static key={epoch} items={items} style={{ width: columns }}>
        {(item) => <ItemView key={item.id} item={item} />}
      </Static>
      {live ? (
        <Box flexDirection="column">
          <Box flexDirection="column" maxHeight={liveMax} overflow="hidden" justifyContent="flex-end">
            <Box flexDirection="column" flexShrink={0}>
              {live.tools.map((t) => (
                <ToolLine key={t.eventId} t={t} spinnerMs={spinnerMs} />
              ))}
              {live.text ? <Markdown text={live.text} /> : null}
            </Box>
          </Box>
          {live.cancelling ? (
            <Text dimColor>cancelling… (Ctrl+C again quits)</Text>
          ) : !live.text && !toolRunning ? (
            <Spinner ms={spinnerMs} since={live.startedAt} label="thinking… (Esc cancels)" />
          ) : toolRunning ? (
            <Spinner ms={spinnerMs} since={live.startedAt} label="running a tool… (Esc cancels)" />
          ) : (
            <Text dimColor>answering — Ctrl+C to cancel (Esc too)</Text>
          )}
        </Box>
      ) : null}
      {queued.map((q, i) => (
        <Text key={i} dimColor wrap="truncate-end">
          queued: {q.replace(/\n/g, ' ⏎ ')}
        </Text>
      ))}
      {armed && !live ? <Text dimColor>Press Ctrl+C again to quit.</Text> : null}
      {hints.length ? (
        <Text dimColor wrap="truncate-end">
          {hints.join('  ')} (Tab completes)
        </Text>
      ) : null}
      <Box marginTop={live || hints.length ? 0 : 1}>
        <Text dimColor wrap="wrap">
          {footer}
          {connection === 'connected' ? null : <Text color={tint('red')}> ●</Text>}
        </Text>
      </Box>
      <Prompt text={input} busy={busy} cursor />
    </Box>
  );
}
