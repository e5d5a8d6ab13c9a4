/**
 * taskTurns, which lets in work that holds the event loop (agents' joins, detectors being made) a few at a time.
 */
import { describe, expect, it } from 'vitest';
import { taskTurns } from '../../../../../src/calls/turns.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('taskTurns', () => {
  it('lets in at most `atOnce`, the next one as a place is released, and a place is released once', async () => {
    const turn = taskTurns(2);
    const a = await turn();
    const b = await turn();
    let third = false;
    const c = turn().then((release) => ((third = true), release));
    await tick();
    expect(third, 'both places held').toBe(false);
    a();
    a(); // the same place released again frees nothing more
    const releaseC = await c;
    expect(third).toBe(true);
    let fourth = false;
    const d = turn().then((release) => ((fourth = true), release));
    await tick();
    expect(fourth, 'b and c hold the two places').toBe(false);
    b();
    (await d)();
    releaseC();
    expect(fourth).toBe(true);
  });
});
