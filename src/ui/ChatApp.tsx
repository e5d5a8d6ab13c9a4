/**
 * The Ink chat TUI (`oraclekit --chat`): finished turns in <Static>, the
 * answer being streamed in a live region (markdown, tool calls as they run
 * and finish, a spinner until the first token), an input line with history.
 * Ctrl+C cancels the stream; a second Ctrl+C quits. All network work goes
 * through ChatController → the headless client.
 */
import { Box, Static, Text, useApp, useInput } from 'ink';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { AnyEvent, ToolCallState, TurnState } from '../lib/protocol/index.ts';
import { explainError, explainRunError, type ChatController } from './chat-controller.ts';
import { Markdown } from './markdown.tsx';

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
}

export interface ChatAppProps {
  controller: ChatController;
  /** Lines shown once at the top (oracle, identity, how to get help). */
  banner?: string[];
  /** Spinner frame interval (ms); 0 disables the animation (tests). */
  spinnerMs?: number;
  /** Called when the first text delta of a turn arrives, before it is rendered (bench). */
  onFirstTokenEvent?: () => void;
  onExit?: () => void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

function Spinner({ ms }: { ms: number }): ReactNode {
  const [i, setI] = useState(0);
  useEffect(() => {
    if (!ms) return;
    const t = setInterval(() => setI((x) => (x + 1) % FRAMES.length), ms);
    return () => clearInterval(t);
  }, [ms]);
  return <Text color="cyan">{FRAMES[i]}</Text>;
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

/** The input line after the keys of one chunk: Ctrl+U clears, Backspace deletes, line breaks are spaces. */
function editLine(line: string, keys: string): string {
  let text = line;
  for (const c of keys) {
    if (c === '\u0015') text = '';
    else if (c === '\u007f' || c === '\b') text = [...text].slice(0, -1).join('');
    else if (c === '\r' || c === '\n') text += ' ';
    else if (c >= ' ') text += c;
  }
  return text;
}

function ToolLine({ t, spinnerMs }: { t: ToolCallState; spinnerMs: number }): ReactNode {
  const icon = t.status === 'isRunning' ? <Spinner ms={spinnerMs} /> : t.status === 'done' ? <Text color="green">✓</Text> : <Text color="red">✗</Text>;
  return (
    <Box>
      {icon}
      <Text> </Text>
      <Text color="blue">{t.toolName}</Text>
      <Text dimColor> {short(t.args)}</Text>
      {t.status === 'done' ? <Text dimColor> → {short(t.output, 50)}</Text> : null}
      {t.status === 'error' ? <Text color="red"> {t.error ?? 'failed'}</Text> : null}
    </Box>
  );
}

function ItemView({ item, spinnerMs }: { item: Item; spinnerMs: number }): ReactNode {
  switch (item.kind) {
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color="green" bold>› </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box flexDirection="column">
          {item.tools.map((t) => <ToolLine key={t.eventId} t={t} spinnerMs={0} />)}
          {item.text ? <Markdown text={item.text} /> : null}
          {item.status === 'aborted' ? <Text dimColor>(cancelled)</Text> : null}
        </Box>
      );
    case 'note':
      return (
        <Box marginTop={1}>
          <Text dimColor>{item.text}</Text>
        </Box>
      );
    case 'error':
      return <Text color="red">{item.text}</Text>;
  }
  void spinnerMs;
}

export function ChatApp({ controller, banner = [], spinnerMs = 80, onFirstTokenEvent, onExit }: ChatAppProps): ReactNode {
  const { exit } = useApp();
  const nextId = useRef(1);
  const [items, setItems] = useState<Item[]>(() => (banner.length ? [{ id: 0, kind: 'note', text: banner.join('\n') }] : []));
  const [live, setLive] = useState<Live | null>(null);
  const [input, setInput] = useState('');
  const [busy, setBusy] = useState(false);
  const [armed, setArmed] = useState(false);
  const history = useRef<string[]>([]);
  const histIdx = useRef<number>(-1);
  const draft = useRef('');
  const firstTokenSeen = useRef(false);
  /** Messages typed while a turn runs, sent one after the other when it ends. */
  const queue = useRef<string[]>([]);
  const [queued, setQueued] = useState<string[]>([]);

  const add = useCallback((...xs: NewItem[]) => {
    setItems((prev) => [...prev, ...xs.map((x) => ({ ...x, id: nextId.current++ }) as Item)]);
  }, []);

  const quit = useCallback(() => {
    onExit?.();
    exit();
  }, [exit, onExit]);

  const submit = useCallback(
    async (text: string) => {
      if (!text.trim()) return;
      history.current.push(text);
      histIdx.current = -1;
      draft.current = '';
      setArmed(false);
      if (controller.isCommand(text)) {
        setBusy(true);
        try {
          const r = await controller.command(text);
          if (r.quit) return quit();
          add({ kind: 'note', text: r.lines.join('\n') });
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
        if (next.text === (prev?.text ?? '') && (next.toolCalls.length === 0 || next.toolCalls === prev?.toolCalls)) return;
        if (e.event === 'message' && !firstTokenSeen.current) {
          firstTokenSeen.current = true;
          onFirstTokenEvent?.();
        }
        setLive((l) => ({ text: next.text, tools: next.toolCalls, cancelling: l?.cancelling ?? false }));
      };
      // the request leaves before React renders the user's line: rendering is not on the critical path
      const pending = controller.send(text, onEvent);
      add({ kind: 'user', text });
      setBusy(true);
      setLive({ text: '', tools: [], cancelling: false });
      try {
        const r = await pending;
        const extra: NewItem[] = [];
        const why = explainRunError(r);
        if (why && r.status !== 'aborted') extra.push({ kind: 'error', text: why });
        add({ kind: 'assistant', text: r.text, tools: r.toolCalls, status: r.status }, ...extra);
      } catch (e) {
        if (turn && (turn.text || turn.toolCalls.length)) add({ kind: 'assistant', text: turn.text, tools: turn.toolCalls, status: 'failed' });
        add({ kind: 'error', text: explainError(e, controller.client.baseUrl) });
      } finally {
        setLive(null);
        setBusy(false);
      }
    },
    [add, controller, onFirstTokenEvent, quit],
  );

  useEffect(() => {
    if (busy || queue.current.length === 0) return;
    const next = queue.current.shift()!;
    setQueued([...queue.current]);
    void submit(next);
  }, [busy, submit]);

  useInput((ch, key) => {
    if (key.ctrl && ch === 'c') {
      if (controller.streaming && !armed) {
        setArmed(true);
        setLive((l) => (l ? { ...l, cancelling: true } : l));
        queue.current = [];
        setQueued([]);
        controller.cancel().catch((e: unknown) => add({ kind: 'error', text: explainError(e, controller.client.baseUrl) }));
        return;
      }
      if (armed) return quit();
      setArmed(true);
      return;
    }
    if (key.ctrl && ch === 'd' && input === '') return quit();
    setArmed(false);
    const enter = (text: string) => {
      if (busy) {
        if (text.trim()) {
          queue.current.push(text);
          setQueued([...queue.current]);
          setInput('');
        }
        return;
      }
      setInput('');
      void submit(text);
    };
    if (key.return) return enter(input);
    if (key.upArrow) {
      const h = history.current;
      if (!h.length) return;
      if (histIdx.current === -1) {
        draft.current = input;
        histIdx.current = h.length - 1;
      } else if (histIdx.current > 0) histIdx.current--;
      setInput(h[histIdx.current] ?? '');
      return;
    }
    if (key.downArrow) {
      const h = history.current;
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
    if (key.escape || key.tab || key.leftArrow || key.rightArrow || key.pageUp || key.pageDown || key.meta || key.ctrl) return;
    if (!ch) return;
    // Keys read in one chunk (a fast typist, a loaded machine, tmux send-keys, a paste) reach us as
    // one input with no key flags: Ctrl+U and Backspace inside it still edit, a trailing CR is the
    // Enter, and other line breaks become spaces (a pasted paragraph stays one message).
    const typed = ch.replace(/\r+$/, '');
    if (typed !== ch) return enter(editLine(input, typed));
    setInput((s) => editLine(s, typed));
  });

  return (
    <Box flexDirection="column">
      <Static items={items}>{(item) => <ItemView key={item.id} item={item} spinnerMs={spinnerMs} />}</Static>
      {live ? (
        <Box flexDirection="column">
          {live.tools.map((t) => <ToolLine key={t.eventId} t={t} spinnerMs={spinnerMs} />)}
          {live.text ? <Markdown text={live.text} /> : null}
          {!live.text && !live.tools.some((t) => t.status === 'isRunning') ? (
            <Box>
              <Spinner ms={spinnerMs} />
              <Text dimColor> thinking…</Text>
            </Box>
          ) : null}
          {live.cancelling ? <Text dimColor>cancelling… (Ctrl+C again quits)</Text> : <Text dimColor>answering — Ctrl+C to cancel</Text>}
        </Box>
      ) : null}
      {queued.map((q, i) => (
        <Text key={i} dimColor>
          queued: {q}
        </Text>
      ))}
      {armed && !live ? <Text dimColor>Press Ctrl+C again to quit.</Text> : null}
      <Box marginTop={live ? 0 : 1}>
        <Text color={busy ? 'gray' : 'green'} bold>{'› '}</Text>
        <Text>{input}</Text>
        <Text inverse> </Text>
      </Box>
    </Box>
  );
}
