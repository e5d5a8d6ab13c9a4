/** Mounts the chat TUI on the terminal and resolves when the user quits. */
import { render } from 'ink';
import { ChatApp, type InputHistory } from './ChatApp.tsx';
import type { ChatController } from './chat-controller.ts';
import type { Message } from '../lib/protocol/index.ts';

interface ChatTuiOptions {
  banner: string[];
  oracleName?: string;
  /** Colours on: a TTY and no NO_COLOR (the CLI's rule). */
  color: boolean;
  history?: InputHistory;
  /** A resumed session's history, drawn as it looked live. */
  resumed?: Message[];
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
      exitOnCtrlC: false,
      // CI=true must not turn the TUI into a one-frame renderer when a person (or tmux) is at the terminal
      interactive: true,
      maxFps: 120,
    },
  );
  await instance.waitUntilExit();
  instance.cleanup();
}
