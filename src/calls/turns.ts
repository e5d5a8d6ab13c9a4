/**
 * Work that holds the event loop in bursts (making a voice-activity detector, an agent's join), let in a few at a
 * time, each starting in a task of its own: between two starts the loop serves what waits for it (other users'
 * requests, the calls' signalling), so work that comes at once is never run back to back in one task.
 */
export function taskTurns(atOnce: number): () => Promise<() => void> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async () => {
    if (running >= atOnce) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    await new Promise<void>((resolve) => setImmediate(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = waiting.shift();
      if (next) next();
      else running--;
    };
  };
}
