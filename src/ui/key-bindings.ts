/**
 * The chat's keys as a table: each command and the keys that run it, as
 * Ink reports them (useInput's input and Key). `commandFor` reads one key;
 * the chat composes the commands (ChatApp.tsx), the editing ones are the pure
 * functions of input-line.ts. Ctrl+X is a prefix: Ctrl+X Ctrl+E opens
 * $EDITOR, as in bash.
 */
import type { Key } from 'ink';
import type { EditCommand } from './input-line.ts';

export type ChatCommand =
  EditCommand | 'submit' | 'up' | 'down' | 'complete' | 'cancel' | 'interrupt' | 'eof' | 'redraw' | 'prefix' | 'editor';

/** One key: the Key flags that must be set, and the input (a letter for Ctrl/Alt keys) when it matters. */
interface KeySpec {
  key?: keyof Key;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  input?: string;
}

interface Binding {
  command: ChatCommand;
  keys: KeySpec[];
  /** For /help; bindings without one are not listed. */
  help?: string;
}

/** First match wins: the more specific keys (with a modifier) come before the plain ones. */
const KEY_BINDINGS: readonly Binding[] = [
  { command: 'interrupt', keys: [{ ctrl: true, input: 'c' }] },
  { command: 'cancel', keys: [{ key: 'escape' }] },
  { command: 'eof', keys: [{ ctrl: true, input: 'd' }] },
  { command: 'redraw', keys: [{ ctrl: true, input: 'l' }], help: 'Ctrl+L redraws' },
  { command: 'prefix', keys: [{ ctrl: true, input: 'x' }] },
  {
    command: 'newline',
    keys: [{ key: 'return', shift: true }, { key: 'return', meta: true }, { input: '\n' }, { ctrl: true, input: 'j' }],
    help: 'Shift+Enter, Alt+Enter, Ctrl+J or \\ then Enter adds a line',
  },
  { command: 'submit', keys: [{ key: 'return' }], help: 'Enter sends' },
  { command: 'complete', keys: [{ key: 'tab' }], help: 'Tab completes a command' },
  { command: 'killWordBack', keys: [{ key: 'backspace', meta: true }], help: 'Alt+Backspace deletes a word' },
  { command: 'backspace', keys: [{ key: 'backspace' }, { ctrl: true, input: 'h' }] },
  { command: 'delete', keys: [{ key: 'delete' }] },
  {
    command: 'wordLeft',
    keys: [
      { key: 'leftArrow', meta: true },
      { key: 'leftArrow', ctrl: true },
      { meta: true, input: 'b' },
    ],
  },
  {
    command: 'wordRight',
    keys: [
      { key: 'rightArrow', meta: true },
      { key: 'rightArrow', ctrl: true },
      { meta: true, input: 'f' },
    ],
  },
  { command: 'killWordForward', keys: [{ meta: true, input: 'd' }] },
  { command: 'left', keys: [{ key: 'leftArrow' }, { ctrl: true, input: 'b' }], help: 'Left/Right, Alt+B/F move' },
  { command: 'right', keys: [{ key: 'rightArrow' }, { ctrl: true, input: 'f' }] },
  { command: 'home', keys: [{ key: 'home' }, { ctrl: true, input: 'a' }], help: 'Home/End or Ctrl+A/E' },
  { command: 'end', keys: [{ key: 'end' }, { ctrl: true, input: 'e' }] },
  { command: 'killToEnd', keys: [{ ctrl: true, input: 'k' }], help: 'Ctrl+K/U delete to the end/start of the line' },
  { command: 'killToStart', keys: [{ ctrl: true, input: 'u' }] },
  { command: 'killBigWordBack', keys: [{ ctrl: true, input: 'w' }], help: 'Ctrl+W deletes the word before' },
  {
    command: 'up',
    keys: [{ key: 'upArrow' }, { ctrl: true, input: 'p' }],
    help: 'Up/Down move between lines, and recall what you typed on the first/last line',
  },
  { command: 'down', keys: [{ key: 'downArrow' }, { ctrl: true, input: 'n' }] },
];

/**
 * A spec with a named key checks only the modifiers it sets (the bindings
 * with a modifier come first); one by input alone needs exactly its modifiers.
 */
function matches(spec: KeySpec, input: string, key: Key): boolean {
  if (spec.input !== undefined && input !== spec.input) return false;
  if (spec.key)
    return Boolean(key[spec.key]) && (!spec.ctrl || key.ctrl) && (!spec.meta || key.meta) && (!spec.shift || key.shift);
  return Boolean(spec.ctrl) === key.ctrl && Boolean(spec.meta) === key.meta;
}

/**
 * Keys in xterm's modifyOtherKeys form, `ESC [ 27 ; <modifiers> ; <code> ~` (xterm, and terminals set to send
 * it: Shift+Enter is `ESC[27;2;13~`), rewritten in the kitty keyboard protocol's form `ESC [ <code> ; <modifiers> u`,
 * which Ink reads as the key it is (Ink drops the first form as a sequence it does not know). run-chat.tsx applies it
 * to what is read from the terminal.
 */
export function modifyOtherKeysAsCsiU(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.includes('\u001b[27;') ? s.replace(/\u001b\[27;(\d+);(\d+)~/g, '\u001b[$2;$1u') : s;
}

/** The command of one key, or undefined (text to insert, or a key the chat ignores). */
export function commandFor(input: string, key: Key): ChatCommand | undefined {
  for (const b of KEY_BINDINGS) if (b.keys.some((k) => matches(k, input, key))) return b.command;
  return undefined;
}

/** After the Ctrl+X prefix: Ctrl+E (or E) opens the editor; anything else cancels the prefix. */
export function prefixedCommand(input: string): ChatCommand | undefined {
  return input === 'e' ? 'editor' : undefined;
}

/** A key that is neither text nor bound: ignored rather than inserted. */
export function isUnboundKey(key: Key): boolean {
  return (
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end ||
    key.meta ||
    key.ctrl ||
    key.escape
  );
}

/** The help lines of the table. */
export function keyHelp(): string[] {
  return KEY_BINDINGS.flatMap((b) => (b.help ? [b.help] : []));
}

/**
 * Whether to ask the terminal for the kitty keyboard protocol's first level (disambiguated keys: Shift+Enter
 * arrives as `ESC[13;2u`, not as Enter). Ink pushes it (`CSI > 1 u`) and pops it (`CSI < u`) when the chat
 * exits — on a crash or a signal too (Ink's exit hook) — and while $EDITOR has the terminal.
 * - 'enabled': a terminal known to speak it (kitty, WezTerm, Ghostty, foot), seen outside a multiplexer;
 * - 'auto': any other terminal is asked (`CSI ? u`) and the protocol pushed only if it answers within 200 ms;
 *   a terminal that does not know the query ignores it. Under tmux or screen the outer terminal's name is not
 *   the one reading the keys, so they are asked too.
 */
export function kittyKeyboardMode(env: NodeJS.ProcessEnv): 'enabled' | 'auto' {
  if (env.TMUX || env.STY) return 'auto';
  const term = env.TERM ?? '';
  const program = env.TERM_PROGRAM ?? '';
  const known =
    term === 'xterm-kitty' ||
    Boolean(env.KITTY_WINDOW_ID) ||
    term === 'xterm-ghostty' ||
    /^foot/.test(term) ||
    /^(WezTerm|ghostty)$/i.test(program);
  return known ? 'enabled' : 'auto';
}
