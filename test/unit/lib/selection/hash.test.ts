import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import cases from '../../../fixtures/sampling-cases.json' with { type: 'json' };
import {
  canonicalJson,
  compareUtf8,
  computeSeed,
  frameHash,
  sortUtf8,
  ticket,
  Ticketer,
} from '../../../../src/lib/selection/hash.ts';
import { selectIds } from '../../../../src/lib/selection/select.ts';

describe('cookstove-sampling/v1 test vector (sampling-cases.json selection_vectors)', () => {
  for (const [i, v] of cases.selection_vectors.entries()) {
    it(`vector ${i}: frameHash, seed, selected and replacement order`, () => {
      const fh = frameHash(v.ids);
      expect(fh).toBe(v.frameHash);
      const seed = computeSeed(fh, v.beaconRandomness);
      expect(seed).toBe(v.seed);
      const r = selectIds(v.ids, v.stratum, v.n, seed);
      expect(r.selected).toEqual(v.selected);
      expect(r.replacements.slice(0, v.replacement_order_first5.length)).toEqual(v.replacement_order_first5);
      expect(r.selected.length + r.replacements.length).toBe(v.ids.length);
    });
  }

  it('frameHash does not depend on the input order of the IDs', () => {
    const v = cases.selection_vectors[0]!;
    expect(frameHash([...v.ids].reverse())).toBe(v.frameHash);
  });
});

describe('ticket', () => {
  it('equals node:crypto HMAC-SHA256(seed, stratum + U+001F + id) for any text', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
        (seed, stratum, id) => {
          const seedHex = Buffer.from(seed).toString('hex');
          const want = createHmac('sha256', Buffer.from(seed)).update(`${stratum}\u001f${id}`, 'utf8').digest('hex');
          expect(ticket(seedHex, stratum, id)).toBe(want);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('is reusable across many IDs with one Ticketer', () => {
    const seed = 'ab'.repeat(32);
    const t = new Ticketer(seed);
    for (const id of ['a', 'é', '🙂', 'x'.repeat(500), 'b']) {
      expect(t.hex('s', id)).toBe(createHmac('sha256', Buffer.from(seed, 'hex')).update(`s\u001f${id}`).digest('hex'));
    }
  });
});

describe('UTF-8 byte order', () => {
  it('sortUtf8 orders like Buffer.compare of the UTF-8 bytes, including astral and U+E000..U+FFFF characters', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 6 }), { maxLength: 30 }), (xs) => {
        const want = [...xs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        expect(sortUtf8([...xs])).toEqual(want);
      }),
      { numRuns: 300 },
    );
    // the classic disagreement: U+FF5E (UTF-16 0xFF5E) vs U+1F642 (UTF-16 0xD83D...) — UTF-8 puts U+FF5E first
    expect(sortUtf8(['\u{1F642}', '\uFF5E'])).toEqual(['\uFF5E', '\u{1F642}']);
    expect(compareUtf8('a', 'ab')).toBeLessThan(0);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
});
