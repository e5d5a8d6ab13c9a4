/** The daemon's limits (src/daemon/http/limits.ts): the body's depth, and the rate limit's windows. */
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, RateLimiter, tooDeep } from '../../../../src/daemon/http/limits.ts';

const nest = (n: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < n; i++) v = i % 2 ? { k: v } : [v];
  return v;
};

describe('tooDeep', () => {
  it('names the top-level field the excess is under; the body itself is level 1', () => {
    expect(tooDeep({ a: 1, b: [1, [2]] })).toBeUndefined();
    expect(tooDeep({ a: nest(MAX_BODY_DEPTH - 1) })).toBeUndefined();
    expect(tooDeep({ a: nest(MAX_BODY_DEPTH) })).toEqual({ field: 'a' });
    expect(tooDeep({ ok: 1, metadata: { x: nest(30_000) } })).toEqual({ field: 'metadata' });
    expect(tooDeep(nest(MAX_BODY_DEPTH))).toBeUndefined();
    expect(tooDeep(nest(MAX_BODY_DEPTH + 1))).toEqual({ field: '' });
    expect(tooDeep({ a: nest(3) }, 3)).toEqual({ field: 'a' });
    for (const v of [null, 1, 'x', undefined]) expect(tooDeep(v)).toBeUndefined();
  });

  it('200,000 levels: no stack overflow', () => {
    expect(tooDeep({ x: nest(200_000) })).toEqual({ field: 'x' });
  });
});

describe('RateLimiter', () => {
  it('a key has its own window only once it has authenticated; anything else counts against the address', () => {
    const l = new RateLimiter(2, 60_000);
    expect(l.idOf('h1', '10.0.0.1')).toBe('ip:10.0.0.1');
    expect(l.idOf(undefined, '10.0.0.1')).toBe('ip:10.0.0.1');
    l.verified('h1');
    expect(l.idOf('h1', '10.0.0.1')).toBe('k:h1');
    // the request that authenticated counted in the key's window
    expect(l.hit('k:h1')).toBeUndefined();
    expect(l.hit('k:h1')).toBeGreaterThan(0);
    // a second verification of the same key counts nothing more
    l.verified('h1');
    expect(l.size).toBe(1);
  });

  it('windows: fixed, reset after the window, swept; 10,000 made-up ids at one address open one window', () => {
    const l = new RateLimiter(3, 10_000);
    for (let i = 0; i < 10_000; i++) l.hit(l.idOf(`bogus${i}`, '10.0.0.2'), 1000);
    expect(l.size).toBe(1);
    expect(l.hit('ip:10.0.0.2', 1000)).toBe(10);
    expect(l.hit('ip:10.0.0.2', 11_000)).toBeUndefined();
    l.hit('ip:other', 11_000);
    expect(l.size).toBe(2);
    l.hit('ip:third', 30_000);
    expect(l.size).toBe(1);
  });
});
