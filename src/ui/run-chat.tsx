/** Mounts the chat TUI on the terminal and resolves when the user quits. */
import { render } from 'ink';
import { ChatApp, type InputHistory } from './ChatApp.tsx';
import type { ChatController } from './chat-controller.ts';
import type { Message } from '../lib/protocol/index.ts';
import { kittyKeyboardMode, modifyOtherKeysAsCsiU } from './key-bindings.ts';

interface ChatTuiOptions {
  banner: string[];
  oracleName?: string;
  /** Colours on: a TTY and no NO_COLOR (the CLI's rule). */
  color: boolean;
  history?: InputHistory;
  /** A resumed session's history, drawn as it looked live. */
  resumed?: Message[];
}

/** The terminal's input with xterm's modifyOtherKeys keys rewritten in the form Ink reads (key-bindings.ts). */
function keysAsInkReadsThem(stdin: NodeJS.ReadStream): NodeJS.ReadStream {
  const read = stdin.read.bind(stdin);
  stdin.read = (size?: number) => {
    const chunk: unknown = read(size);
    return typeof chunk === 'string' ? modifyOtherKeysAsCsiU(chunk) : (chunk as string | Buffer | null);
  };
  return stdin;
}

export async function runChatTui(controller: ChatController, o: ChatTuiOptions): Promise<void> {
  const instance = render(
    <ChatApp
      controller={controller}
      banner={o.banner}
      oracleName={o.oracleName}
      color={o.color}
      {...(o.history ? { history: o.history } : {})}
      {...(o.resumed ? { resumed: o.resumed } : {})}
    />,
    {
      stdin: keysAsInkReadsThem(process.stdin),
      exitOnCtrlC: false,
      // CI=true must not turn the TUI into a one-frame renderer when a person (or tmux) is at the terminal
      interactive: true,
      maxFps: 120,
      // Shift+Enter told apart from Enter where the terminal can (key-bindings.ts)
      kittyKeyboard: { mode: kittyKeyboardMode(process.env), flags: ['disambiguateEscapeCodes'] },
    },
  );
  await instance.waitUntilExit();
  instance.cleanup();
}
