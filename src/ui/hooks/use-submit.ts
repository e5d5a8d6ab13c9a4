/**
 * What Enter does with a message: the answer to /pay's question, a slash
 * command (through the controller's one dispatcher, then its follow-ups:
 * quit, a cleared or switched screen, a question, a payment that sends the
 * refused message again, a message to send), or a turn. While a turn runs,
 * messages wait in the queue.
 */
import { useCallback, useRef } from 'react';
import type { ChatController, ChatScreen, CommandResult } from '../chat-controller.ts';
import { historyItems, type NewItem } from '../transcript.tsx';
import type { HistoryNavigation } from './use-input-history.ts';
import { useMessageQueue, type MessageQueue } from './use-message-queue.ts';
import type { PayConfirm } from './use-pay-confirm.ts';
import type { TurnRunner } from './use-turn.ts';

export interface Submit {
  /** Sends `text` (or queues it while busy); `shown` is what the transcript and the history keep. */
  enter(text: string, shown?: string): void;
  queue: MessageQueue;
}

export function useSubmit(o: {
  controller: ChatController;
  add: (...xs: NewItem[]) => void;
  reset: (xs?: NewItem[]) => void;
  recall: HistoryNavigation;
  pay: PayConfirm;
  turn: TurnRunner;
  screen: ChatScreen;
  quit: () => void;
}): Submit {
  const { controller, add, reset, recall, pay, turn, screen, quit } = o;
  const submitRef = useRef<(text: string) => void>(() => {});
  const queue = useMessageQueue(
    turn.busy,
    useCallback((text: string) => submitRef.current(text), []),
  );

  const follow = (r: CommandResult) => {
    if (r.quit) return quit();
    if (r.reset) reset(r.history ? historyItems(r.history) : []);
    const lines = r.history ? r.lines.slice(0, 1) : r.lines;
    if (r.confirm) pay.ask(r.confirm);
    const text = [...lines, ...(r.confirm ? [r.confirm.question] : [])].join('\n');
    if (text) add({ kind: 'note', text, hanging: r.hanging });
    const again = r.paid ? pay.takeRefused() : undefined;
    if (again) {
      add({ kind: 'note', text: 'Sending your message again.' });
      queue.unshift(again);
    }
    if (r.send) queue.unshift(r.send);
  };

  const busyWith = async (work: Promise<CommandResult>) => {
    turn.setBusy(true);
    try {
      follow(await work);
    } catch (e) {
      add({ kind: 'error', text: controller.explain(e) });
    } finally {
      turn.setBusy(false);
    }
  };

  const submit = async (text: string, shown = text) => {
    // /pay's question: y pays; anything else, an empty Enter included (the N of y/N), does not
    if (pay.waiting()) {
      if (text.trim()) add({ kind: 'user', text });
      const paying = pay.answer(text);
      if (!paying) return add({ kind: 'note', text: 'Not paid.' });
      return busyWith(paying);
    }
    if (!text.trim()) return;
    recall.record(shown);
    if (controller.isCommand(text)) return busyWith(controller.command(text, screen));
    add({ kind: 'user', text: shown });
    await turn.run(text);
  };
  submitRef.current = (text) => void submit(text);

  const enter = (text: string, shown = text) => {
    if (!turn.busy || pay.waiting()) return void submit(text, shown);
    if (text.trim()) queue.push(text);
  };
  return { enter, queue };
}
