/**
 * The keys of the chat: each key (key-bindings.ts) to what it does here —
 * the edits of input-line.ts, Enter, Tab and Up/Down in the slash menu, the
 * input history, cancel and quit (Ctrl+C twice), the editor — plus pastes.
 * Keys read in one chunk (tmux send-keys, a loaded machine) arrive as one
 * string: its control keys are keys of their own, in order, through the same
 * table (Ctrl+X Ctrl+E included); the text between them is text.
 */
import { useInput, usePaste, type Key } from 'ink';
import { useRef, useState } from 'react';
import type { ChatController, CommandResult } from '../chat-controller.ts';
import {
  continueLine,
  EDIT_COMMANDS,
  EMPTY_LINE,
  editChunk,
  editPaste,
  expandPastes,
  lineDown,
  lineOf,
  lineUp,
  splitChunk,
  withQueued,
  type EditCommand,
  type Line,
} from '../input-line.ts';
import { commandFor, isUnboundKey, prefixedCommand, type ChatCommand } from '../key-bindings.ts';
import { menuFor, type MenuEntry } from '../slash-menu.tsx';
import type { NewItem } from '../transcript.tsx';
import type { HistoryNavigation } from './use-input-history.ts';
import type { LineEditor } from './use-line-editor.ts';
import type { PayConfirm } from './use-pay-confirm.ts';
import type { Submit } from './use-submit.ts';
import type { TurnRunner } from './use-turn.ts';

interface ChatKeys {
  /** Ctrl+C was pressed once: the next one quits. */
  armed: boolean;
  /** The slash menu for the input, and the entry chosen in it. */
  menu: readonly MenuEntry[];
  selected: number;
}

interface ChatKeysOptions {
  controller: ChatController;
  editor: LineEditor;
  recall: HistoryNavigation;
  turn: TurnRunner;
  submit: Submit;
  redraw: () => void;
  quit: () => void;
  openEditor: () => Promise<CommandResult>;
  add: (...xs: NewItem[]) => void;
  pay: PayConfirm;
}

/** What a command's handler sees of one key press: the input line, its slash menu and the chat's actions. */
interface KeyPress {
  o: ChatKeysOptions;
  line: Line;
  entries: readonly MenuEntry[];
  chosen: MenuEntry | undefined;
  armed: boolean;
  setArmed: (armed: boolean) => void;
  setMenuIndex: (f: number | ((i: number) => number)) => void;
  /** Ctrl+X was pressed: the next key is read with prefixedCommand. */
  prefix: { current: boolean };
  /** Sends `text` (shown as `shown`) and empties the input. */
  enter: (text: string, shown?: string) => void;
}

/** Cancels the turn; the messages queued behind it go back to the input and to the history, never lost. */
const cancel = ({ o }: KeyPress) => {
  const queued = o.submit.queue.drain();
  for (const text of queued) o.recall.record(text);
  if (queued.length) o.editor.set((l) => withQueued(l, queued));
  o.turn.cancel();
};

/** Up/Down: the menu's choice, else a line of the input, else the history. */
const move = (k: KeyPress, step: 1 | -1) => {
  const { entries, o } = k;
  // the menu takes them unless they are recalling what was typed (a recalled "/quit" opens it too)
  if (entries.length > 1 && !o.recall.browsing())
    return k.setMenuIndex((i) => (i + step + entries.length) % entries.length);
  const moved = step < 0 ? lineUp(k.line) : lineDown(k.line);
  if (moved) return o.editor.set(moved);
  const h = step < 0 ? o.recall.up(k.line.text) : o.recall.down();
  if (h !== undefined) o.editor.set(lineOf(h));
};

/** What each command of key-bindings.ts does in the chat, but the edits (input-line.ts's EDIT_COMMANDS). */
const COMMANDS: { [C in Exclude<ChatCommand, EditCommand>]: (k: KeyPress) => void } = {
  interrupt: (k) => {
    if (k.o.controller.streaming && !k.armed) {
      k.setArmed(true);
      return cancel(k);
    }
    if (k.armed) return k.o.quit();
    k.setArmed(true);
  },
  cancel: (k) => k.o.controller.streaming && cancel(k),
  eof: (k) => (k.line.text === '' ? k.o.quit() : k.o.editor.set(EDIT_COMMANDS.delete)),
  redraw: (k) => k.o.redraw(),
  prefix: (k) => {
    k.prefix.current = true;
  },
  editor: ({ o }) =>
    void o.openEditor().then((r) => r.lines.length && o.add({ kind: 'note', text: r.lines.join('\n') })),
  submit: ({ o, line, entries, chosen, enter }) => {
    // a command being typed runs the one chosen in the menu
    if (chosen && !entries.some((e) => e.name === line.text.toLowerCase())) return enter(chosen.name);
    const continued = continueLine(line);
    if (continued) return o.editor.set(continued);
    enter(expandPastes(line), line.text);
  },
  complete: (k) => k.chosen && k.o.editor.set(lineOf(k.chosen.name + ' ')),
  up: (k) => move(k, -1),
  down: (k) => move(k, 1),
};

const isEdit = (cmd: ChatCommand): cmd is EditCommand => Object.hasOwn(EDIT_COMMANDS, cmd);

export function useChatKeys(o: ChatKeysOptions): ChatKeys {
  const { editor } = o;
  const [armed, setArmed] = useState(false);
  const [menuIndex, setMenuIndex] = useState(0);
  const prefix = useRef(false);

  const enter = (text: string, shown = text) => {
    editor.set(EMPTY_LINE);
    setMenuIndex(0);
    o.submit.enter(text, shown);
  };

  const onKey = (ch: string, key: Key) => {
    const cmd = prefix.current ? prefixedCommand(ch) : commandFor(ch, key);
    if (prefix.current) {
      prefix.current = false;
      if (!cmd) return;
    }
    if (cmd !== 'interrupt') setArmed(false);
    const line = editor.current();
    if (cmd && isEdit(cmd)) {
      setMenuIndex(0);
      return editor.set(EDIT_COMMANDS[cmd]);
    }
    if (cmd) {
      const entries = menuFor(line.text);
      const chosen = entries[Math.min(menuIndex, entries.length - 1)];
      return COMMANDS[cmd]({ o, line, entries, chosen, armed, setArmed, setMenuIndex, prefix, enter });
    }
    if (isUnboundKey(key) || !ch) return;
    // /pay's question is answered by one key, as a y/N prompt is
    if (o.pay.waiting() && line.text === '' && /^[yn]$/i.test(ch)) return enter(ch);
    setMenuIndex(0);
    const r = editChunk(line, ch);
    if (r.send !== undefined) return enter(r.send);
    editor.set(r.line);
  };

  useInput((ch, key) => {
    if (ch.length < 2 || key.ctrl || key.meta) return onKey(ch, key);
    for (const piece of splitChunk(ch)) {
      if (typeof piece === 'string') onKey(piece, key);
      else onKey(piece.ctrl, { ...key, ctrl: true });
    }
  });
  usePaste((text) => {
    setArmed(false);
    editor.set((l) => editPaste(l, text));
  });

  const menu = menuFor(editor.line.text);
  return { armed, menu, selected: Math.min(menuIndex, Math.max(0, menu.length - 1)) };
}
