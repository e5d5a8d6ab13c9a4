import { describe, expect, it } from 'vitest';
import { uuidv7 } from '../../../../src/lib/registry/uuidv7.ts';

const FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv7', () => {
  it('is an RFC 9562 version 7 UUID whose first 48 bits are the millisecond', () => {
    const at = Date.UTC(2026, 10, 21, 12, 0, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(FORMAT);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });
  it('sorts in creation order within a process, also many per millisecond and when the clock steps back', () => {
    const now = Date.now();
    const ids = [];
    for (let i = 0; i < 10_000; i++) ids.push(uuidv7(now));
    ids.push(uuidv7(now - 5000));
    ids.push(uuidv7());
    for (const id of ids) expect(id).toMatch(FORMAT);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
