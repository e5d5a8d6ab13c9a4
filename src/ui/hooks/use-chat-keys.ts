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
} from '../input-line.ts';
import { commandFor, isUnboundKey, prefixedCommand } from '../key-bindings.ts';
import { menuFor, type MenuEntry } from '../slash-menu.tsx';
import type { NewItem } from '../transcript.tsx';
import type { HistoryNavigation } from './use-input-history.ts';
import type { LineEditor } from './use-line-editor.ts';
import type { Submit } from './use-submit.ts';
import type { TurnRunner } from './use-turn.ts';

interface ChatKeys {
  /** Ctrl+C was pressed once: the next one quits. */
  armed: boolean;
  /** The slash menu for the input, and the entry chosen in it. */
  menu: readonly MenuEntry[];
  selected: number;
}

export function useChatKeys(o: {
  controller: ChatController;
  editor: LineEditor;
  recall: HistoryNavigation;
  turn: TurnRunner;
  submit: Submit;
  redraw: () => void;
  quit: () => void;
  openEditor: () => Promise<CommandResult>;
  add: (...xs: NewItem[]) => void;
}): ChatKeys {
  const { controller, editor, recall, turn, submit, redraw, quit, openEditor, add } = o;
  const [armed, setArmed] = useState(false);
  const [menuIndex, setMenuIndex] = useState(0);
  const prefix = useRef(false);

  const enter = (text: string, shown = text) => {
    editor.set(EMPTY_LINE);
    setMenuIndex(0);
    submit.enter(text, shown);
  };
  const cancel = () => {
    submit.queue.clear();
    turn.cancel();
  };
  /** Up/Down: the menu's choice, else a line of the input, else the history. */
  const move = (entries: readonly MenuEntry[], step: 1 | -1) => {
    // the menu takes them unless they are recalling what was typed (a recalled "/quit" opens it too)
    if (entries.length > 1 && !recall.browsing())
      return setMenuIndex((i) => (i + step + entries.length) % entries.length);
    const line = editor.current();
    const moved = step < 0 ? lineUp(line) : lineDown(line);
    if (moved) return editor.set(moved);
    const h = step < 0 ? recall.up(line.text) : recall.down();
    if (h !== undefined) editor.set(lineOf(h));
  };

  const onKey = (ch: string, key: Key) => {
    const cmd = prefix.current ? prefixedCommand(ch) : commandFor(ch, key);
    if (prefix.current) {
      prefix.current = false;
      if (!cmd) return;
    }
    if (cmd !== 'interrupt') setArmed(false);
    const line = editor.current();
    const entries = menuFor(line.text);
    const chosen = entries[Math.min(menuIndex, entries.length - 1)];
    switch (cmd) {
      case 'interrupt':
        if (controller.streaming && !armed) {
          setArmed(true);
          return cancel();
        }
        if (armed) return quit();
        return setArmed(true);
      case 'cancel':
        return controller.streaming ? cancel() : undefined;
      case 'eof':
        if (line.text === '') return quit();
        return editor.set(EDIT_COMMANDS.delete);
      case 'redraw':
        return redraw();
      case 'prefix':
        prefix.current = true;
        return;
      case 'editor':
        void openEditor().then((r) => r.lines.length && add({ kind: 'note', text: r.lines.join('\n') }));
        return;
      case 'submit':
        // a command being typed runs the one chosen in the menu
        if (chosen && !entries.some((e) => e.name === line.text.toLowerCase())) return enter(chosen.name);
        return enter(expandPastes(line), line.text);
      case 'complete':
        return chosen ? editor.set(lineOf(chosen.name + ' ')) : undefined;
      case 'up':
        return move(entries, -1);
      case 'down':
        return move(entries, 1);
      case undefined:
        break;
      default:
        setMenuIndex(0);
        return editor.set(EDIT_COMMANDS[cmd as EditCommand]);
    }
    if (isUnboundKey(key) || !ch) return;
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
