/**
 * Paying from the chat: `/pay` asks for a yes before it pays; the message the
 * oracle refused for payment is remembered and sent again once a payment
 * (confirmed, or `/pay <amount>`) went through.
 */
import { useCallback, useRef } from 'react';
import type { CommandResult } from '../chat-controller.ts';

export interface PayConfirm {
  /** A question is waiting for its answer. */
  waiting(): boolean;
  ask(confirm: NonNullable<CommandResult['confirm']>): void;
  /** Runs the payment on a yes; undefined on anything else (not paid). */
  answer(text: string): Promise<CommandResult> | undefined;
  /** The oracle refused this message for payment. */
  refused(text: string): void;
  /** After a payment: the refused message to send again (once). */
  takeRefused(): string | undefined;
}

export function usePayConfirm(): PayConfirm {
  const confirm = useRef<CommandResult['confirm']>(undefined);
  const refusedMessage = useRef<string | undefined>(undefined);
  const waiting = useCallback(() => confirm.current !== undefined, []);
  const ask = useCallback((c: NonNullable<CommandResult['confirm']>) => {
    confirm.current = c;
  }, []);
  const answer = useCallback((text: string) => {
    const c = confirm.current;
    confirm.current = undefined;
    if (!c || !/^y(es)?$/i.test(text.trim())) return undefined;
    return c.run();
  }, []);
  const refused = useCallback((text: string) => {
    refusedMessage.current = text;
  }, []);
  const takeRefused = useCallback(() => {
    const t = refusedMessage.current;
    refusedMessage.current = undefined;
    return t;
  }, []);
  return { waiting, ask, answer, refused, takeRefused };
}
