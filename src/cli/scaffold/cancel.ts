/**
 * Ctrl+C during `new`: the first one aborts the run (which removes what it created and deactivates the domain); a
 * second one quits at once. conf's atomic writer (when-exit) re-raises the first SIGINT to this process, so a second
 * one counts only 300 ms after the first.
 */
export function cancelOnSigint(say: (line: string) => void): { signal: AbortSignal; dispose(): void } {
  const ac = new AbortController();
  let armedAt = 0;
  const onSigint = () => {
    if (ac.signal.aborted) {
      if (Date.now() >= armedAt) process.exit(130);
      return;
    }
    armedAt = Date.now() + 300;
    say('\nCancelling: removing what was created… (Ctrl+C again to quit at once)');
    ac.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: ac.signal, dispose: () => process.off('SIGINT', onSigint) };
}

/** Whether an error is the user's cancel: Ctrl+C in a prompt, or a run aborted by it. */
export function isCancel(e: unknown): boolean {
  const name = (e as Error)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' || (e as { code?: string })?.code === 'cancelled';
}
