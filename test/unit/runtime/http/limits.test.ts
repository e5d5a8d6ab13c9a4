/** The daemon's limits (src/runtime/http/limits.ts): the body's depth. */
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH, tooDeep } from '../../../../src/runtime/http/limits.ts';

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
