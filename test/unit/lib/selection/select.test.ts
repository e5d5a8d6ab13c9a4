import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareUtf8 } from '../../../../src/lib/selection/hash.ts';
import { orderRows } from '../../../../src/lib/selection/select.ts';

/** The spec's order, written plainly: by ticket bytes, then ID bytes. */
function reference(rows: number[], tickets: Uint8Array, ids: string[]): number[] {
  return [...rows].sort(
    (a, b) =>
      Buffer.compare(
        Buffer.from(tickets.subarray(a * 32, a * 32 + 32)),
        Buffer.from(tickets.subarray(b * 32, b * 32 + 32)),
      ) || compareUtf8(ids[a]!, ids[b]!),
  );
}

describe('orderRows', () => {
  it('equals the plain (ticket, id bytes) sort, including tickets sharing their first 32 bits and fully equal tickets', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            prefix: fc.integer({ min: 0, max: 3 }),
            rest: fc.uint8Array({ minLength: 28, maxLength: 28 }),
            same: fc.boolean(),
            id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 5 }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
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

describe('computeTickets', () => {
  it('every ticket is HMAC-SHA256(seed, stratum + U+001F + id) as node:crypto computes it (multi-byte IDs, several strata)', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readFrame } = await import('../../../../src/lib/selection/frame.ts');
    const { computeTickets } = await import('../../../../src/lib/selection/select.ts');
    const { ticket } = await import('../../../../src/lib/selection/hash.ts');
    const path = join(mkdtempSync(join(tmpdir(), 'okit-tickets-')), 'f.csv');
    writeFileSync(
      path,
      'household_id,stratum\n' +
        Array.from(
          { length: 5000 },
          (_, i) => `${i % 7 ? 'HH' : 'Ménage-🙂'}-${i},${['Nord', 'Süd', 'East'][i % 3]}`,
        ).join('\n'),
    );
    const frame = await readFrame(path, { strata: ['Nord', 'Süd', 'East'] });
    const seed = '7e'.repeat(32);
    const { createHmac } = await import('node:crypto');
    const tickets = computeTickets(frame, seed);
    for (let r = 0; r < frame.rows; r++) {
      const text = frame.strataNames[frame.stratum[r]!]! + '\u001f' + frame.ids[r]!;
      const want = createHmac('sha256', Buffer.from(seed, 'hex')).update(text, 'utf8').digest('hex');
      expect(Buffer.from(tickets.subarray(r * 32, r * 32 + 32)).toString('hex'), text).toBe(want);
    }
    expect(ticket(seed, frame.strataNames[frame.stratum[7]!]!, frame.ids[7]!)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('writeSelectionCsv', () => {
  it('writes the same file whatever the window of re-read rows (quoted fields, CRLF, multi-byte text)', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readFrame, rowsByStratum } = await import('../../../../src/lib/selection/frame.ts');
    const { selectFrame } = await import('../../../../src/lib/selection/select.ts');
    const { writeSelectionCsv } = await import('../../../../src/lib/selection/output.ts');
    const dir = mkdtempSync(join(tmpdir(), 'okit-write-'));
    const path = join(dir, 'f.csv');
    writeFileSync(
      path,
      '\uFEFFhousehold_id,stratum,note,rank\r\n' +
        Array.from({ length: 300 }, (_, i) => `H${i},${i % 2 ? 'a' : 'b'},"é, ""${i}""\nline",${i}`).join('\r\n') +
        '\r\n',
    );
    const frame = await readFrame(path, { strata: ['a', 'b'] });
    const sel = await selectFrame(frame, rowsByStratum(frame), '01'.repeat(32), [10, 12]);
    const big = await writeSelectionCsv(join(dir, 'big.csv'), path, frame, sel);
    const small = await writeSelectionCsv(join(dir, 'small.csv'), path, frame, sel, { window: 7 });
    expect(small).toEqual(big);
    const text = readFileSync(join(dir, 'small.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe('stratum,rank,role,household_id,ticket,note,frame_rank');
    expect(text).toMatch(/^a,1,sample,H\d+,[0-9a-f]{64},"é, ""\d+""\nline",\d+$/m);
  });
});

describe('writeSelectionCsv writes exactly the reference bytes', () => {
  it('in one window or many; any column layout, quoting, line ends, ragged rows; the order digests on the way (property)', async () => {
    const fc = (await import('fast-check')).default;
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readFrame, rowsByStratum } = await import('../../../../src/lib/selection/frame.ts');
    const { selectFrame, ticketHex, orderDigest } = await import('../../../../src/lib/selection/select.ts');
    const { writeSelectionCsv } = await import('../../../../src/lib/selection/output.ts');
    const { csvCell } = await import('../../../../src/lib/csv.ts');
    const dir = mkdtempSync(join(tmpdir(), 'okit-write-prop-'));
    // a cell as written in the frame (raw CSV) and its value
    const idCell = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9-]{1,8}$/).map((v) => ({ raw: v, id: v })),
      fc.stringMatching(/^[A-Za-z0-9]{1,5}$/).map((v) => ({ raw: ` ${v}\u00a0`, id: v })),
      fc.stringMatching(/^[A-Za-z0-9]{1,5}$/).map((v) => ({ raw: `"${v}, ""q"""`, id: `${v}, "q"` })),
      fc.stringMatching(/^[A-Za-z0-9]{1,5}$/).map((v) => ({ raw: `é${v}ü`, id: `é${v}ü` })),
      fc.stringMatching(/^[A-Za-z0-9]{1,5}$/).map((v) => ({ raw: `${v}"x`, id: `${v}"x` })),
    );
    const other = fc.oneof(
      fc.constant(''),
      fc.stringMatching(/^[a-z0-9 ]{0,6}$/),
      fc.constant('"a,b\nc"'),
      fc.constant('"é ""x"""'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(idCell, fc.boolean(), other, other), { minLength: 4, maxLength: 40 }),
        fc.constantFrom('id-first', 'stratum-first', 'id-middle', 'no-stratum'),
        fc.boolean(),
        fc.boolean(),
        async (rows, layout, crlf, ragged) => {
          const seen = new Set<string>();
          const uniq = rows.filter(([c]) => (seen.has(c.id) ? false : (seen.add(c.id), true)));
          if (uniq.length < 2) return;
          const stratified = layout !== 'no-stratum';
          const cols =
            layout === 'id-first'
              ? ['household_id', 'stratum', 'a', 'b']
              : layout === 'stratum-first'
                ? ['stratum', 'household_id', 'a', 'b']
                : layout === 'id-middle'
                  ? ['a', 'household_id', 'stratum', 'b']
                  : ['household_id', 'a', 'b'];
          const cellsOf = ([c, s, a, b]: (typeof uniq)[number], i: number): string[] => {
            const m: Record<string, string> = { household_id: c.raw, stratum: s ? 'North' : 'south', a, b };
            const all = cols.map((k) => m[k]!);
            return ragged && i % 3 === 0
              ? all.slice(0, all.length - 1)
              : ragged && i % 3 === 1
                ? [...all, 'extra']
                : all;
          };
          const eol = crlf ? '\r\n' : '\n';
          const path = join(dir, `f-${Math.random().toString(36).slice(2)}.csv`);
          writeFileSync(path, cols.join(',') + eol + uniq.map((r, i) => cellsOf(r, i).join(',')).join(eol) + eol);
          const frame = await readFrame(path, { strata: stratified ? ['North', 'South'] : [] });
          const by = rowsByStratum(frame);
          const sel = await selectFrame(
            frame,
            by,
            'ab'.repeat(32),
            by.map((r) => Math.min(1, r.length)),
          );
          const keptCols = cols
            .map((k, i) => ({ k, i }))
            .filter(({ k }) => k !== 'household_id' && (k !== 'stratum' || !stratified));
          const want = [['stratum', 'rank', 'role', 'household_id', 'ticket', ...keptCols.map(({ k }) => k)].join(',')];
          for (const st of sel.strata) {
            st.order.forEach((row, r) => {
              const cells = cellsOf(uniq[row]!, row);
              want.push(
                [
                  csvCell(st.name),
                  r + 1,
                  r < st.sampleSize ? 'sample' : 'replacement',
                  csvCell(frame.ids[row]!),
                  ticketHex(sel.tickets, row),
                  ...keptCols.map(({ i }) => cells[i] ?? ''),
                ].join(','),
              );
            });
          }
          const expected = want.join('\n') + '\n';
          for (const [name, opts] of [
            ['one window', {}],
            ['windows of 3 rows', { window: 3 }],
          ] as const) {
            const out = join(dir, `out-${name}.csv`);
            const w = await writeSelectionCsv(out, path, frame, sel, opts);
            expect(readFileSync(out, 'utf8'), `${name} ${layout} crlf=${crlf} ragged=${ragged}`).toBe(expected);
            expect(w.orderDigests).toEqual(sel.strata.map((s) => orderDigest(s.order, frame.ids)));
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('progress', () => {
  it('tickets and writing: counts never go back, the total is the frame, the last count is every ticket', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readFrame, rowsByStratum } = await import('../../../../src/lib/selection/frame.ts');
    const { computeTickets, selectFrame } = await import('../../../../src/lib/selection/select.ts');
    const { writeSelectionCsv } = await import('../../../../src/lib/selection/output.ts');
    const { progressText } = await import('../../../../src/cli/progress.ts');
    const dir = mkdtempSync(join(tmpdir(), 'okit-progress-'));
    const path = join(dir, 'f.csv');
    writeFileSync(
      path,
      'household_id,stratum\n' +
        Array.from({ length: 150_000 }, (_, i) => `H${i},${i % 2 ? 'a' : 'b'}`).join('\n') +
        '\n',
    );
    const frame = await readFrame(path, { strata: ['a', 'b'] });
    const calls: [number, number][] = [];
    computeTickets(frame, '07'.repeat(32), {
      onProgress: (d, t) => calls.push([d, t]),
    });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1)).toEqual([150_000, 150_000]);
    expect(calls.every(([, t]) => t === 150_000)).toBe(true);
    for (let i = 1; i < calls.length; i++) expect(calls[i]![0]).toBeGreaterThanOrEqual(calls[i - 1]![0]);
    const sel = await selectFrame(frame, rowsByStratum(frame), '07'.repeat(32), [10, 10]);
    const writes: [number, number][] = [];
    await writeSelectionCsv(join(dir, 's.csv'), path, frame, sel, {
      window: 40_000,
      onProgress: (d, t) => writes.push([d, t]),
    });
    expect(writes.at(-1)).toEqual([150_000, 150_000]);
    for (let i = 1; i < writes.length; i++) expect(writes[i]![0]).toBeGreaterThanOrEqual(writes[i - 1]![0]);
    expect(progressText({ phase: 'tickets', done: 458_752, total: 1_000_000 })).toBe('tickets 458,752 / 1,000,000');
  }, 60_000);
});
