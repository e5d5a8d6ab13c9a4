import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareUtf8 } from '../../../../src/lib/selection/hash.ts';
import { orderRows } from '../../../../src/lib/selection/select.ts';

/** The spec's order, written plainly: by ticket bytes, then ID bytes. */
function reference(rows: number[], tickets: Uint8Array, ids: string[]): number[] {
  return [...rows].sort((a, b) => Buffer.compare(Buffer.from(tickets.subarray(a * 32, a * 32 + 32)), Buffer.from(tickets.subarray(b * 32, b * 32 + 32))) || compareUtf8(ids[a]!, ids[b]!));
}

describe('orderRows', () => {
  it('equals the plain (ticket, id bytes) sort, including tickets sharing their first 32 bits and fully equal tickets', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ prefix: fc.integer({ min: 0, max: 3 }), rest: fc.uint8Array({ minLength: 28, maxLength: 28 }), same: fc.boolean(), id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 5 }) }), { minLength: 1, maxLength: 60 }),
        (spec) => {
          const ids = spec.map((s, i) => `${s.id}#${i}`);
          const tickets = new Uint8Array(spec.length * 32);
          spec.forEach((s, i) => {
            tickets.set([0xff, 0x00, s.prefix, 0x80], i * 32);
            if (!s.same) tickets.set(s.rest, i * 32 + 4);
          });
          const rows = Array.from(spec.keys()).reverse();
          expect([...orderRows(Uint32Array.from(rows), tickets, ids)]).toEqual(reference(rows, tickets, ids));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('orders a subset of rows (one stratum) without touching the others', () => {
    const tickets = new Uint8Array(5 * 32);
    [9, 3, 7, 1, 5].forEach((b, i) => (tickets[i * 32] = b));
    expect([...orderRows(Uint32Array.from([0, 2, 4]), tickets, ['a', 'b', 'c', 'd', 'e'])]).toEqual([4, 2, 0]);
  });
});
