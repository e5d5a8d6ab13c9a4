/** Mounts the chat TUI on the terminal and resolves when the user quits. */
import { render } from 'ink';
import { ChatApp } from './ChatApp.tsx';
import type { ChatController } from './chat-controller.ts';

export async function runChatTui(controller: ChatController, banner: string[]): Promise<void> {
  const instance = render(<ChatApp controller={controller} banner={banner} />, {
    exitOnCtrlC: false,
    // CI=true must not turn the TUI into a one-frame renderer when a person (or tmux) is at the terminal
    interactive: true,
    maxFps: 120,
  });
  await instance.waitUntilExit();
  instance.cleanup();
}
