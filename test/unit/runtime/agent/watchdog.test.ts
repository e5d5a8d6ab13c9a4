import { describe, expect, it } from 'vitest';
import { startWatchdog } from '../../../../src/runtime/agent/watchdog.ts';

describe('startWatchdog', () => {
  it('aborts its signal, with the reason, once no part came for the time-out', async () => {
    const w = startWatchdog(20);
    expect(w.signal.aborted).toBe(false);
    await new Promise((r) => w.signal.addEventListener('abort', r, { once: true }));
    w.stop();
    expect((w.signal.reason as Error).message).toBe('no data from the model for 20 ms');
  });
});
