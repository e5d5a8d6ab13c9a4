import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFrame, readFrame, rowsByStratum } from '../../../../src/lib/selection/frame.ts';
import { frameHash } from '../../../../src/lib/selection/hash.ts';
import { checkSizes, selectFrame } from '../../../../src/lib/selection/select.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-frame-'));
let k = 0;
const file = (text: string): string => {
  const p = join(dir, `f${k++}.csv`);
  writeFileSync(p, text);
  return p;
};

describe('readFrame', () => {
  it('parses BOM, CRLF, quoted fields; trims IDs; matches strata by trim and case-fold; keeps the design name', async () => {
    const p = file(
      '\uFEFFhousehold_id,stratum,adopter,address\r\n" A-1 ",North,1,"12, Main ""Rd"""\r\nB-2, south ,0,x\r\n\r\nC-3,NORTH,,y\r\n',
    );
    const f = await readFrame(p, { strata: ['north', 'South'] });
    expect(f.ids).toEqual(['A-1', 'B-2', 'C-3']);
    expect([...f.stratum]).toEqual([0, 1, 0]);
    expect([...f.lines]).toEqual([2, 3, 5]);
    expect(f.strataNames).toEqual(['north', 'South']);
    expect(f.header).toEqual(['household_id', 'stratum', 'adopter', 'address']);
  });

  it('an unstratified design puts every row in stratum "all" and notes an ignored stratum column', async () => {
    const f = await readFrame(file('household_id,stratum\n1,x\n2,y\n'), { strata: [] });
    expect(f.strataNames).toEqual(['all']);
    expect(f.stratumColumnIgnored).toBe(true);
  });

  const cases: [string, string, string[], RegExp, string][] = [
    ['blank ID', 'household_id\nA\n  \nB\n', [], /f\d+\.csv:3: household_id is blank/, 'blank_household_id'],
    [
      'U+001F in an ID',
      'household_id\nA\nB\u001fC\n',
      [],
      /f\d+\.csv:3: household_id "B\\u001fC" contains U\+001F/,
      'invalid_household_id',
    ],
    [
      'unknown stratum',
      'household_id,stratum\nA,north\nB,west\n',
      ['north', 'south'],
      /f\d+\.csv:3: stratum "west" \(household "B"\) is not in the design; valid: north, south/,
      'unknown_stratum',
    ],
    [
      'no household_id column',
      'id,stratum\nA,north\n',
      [],
      /f\d+\.csv:1: the header "id,stratum" has no household_id column/,
      'invalid_frame',
    ],
    [
      'no stratum column for a stratified design',
      'household_id\nA\n',
      ['north'],
      /design is stratified \(north\)/,
      'missing_stratum_column',
    ],
    ['empty file', '', [], /empty file/, 'invalid_frame'],
  ];
  for (const [name, text, strata, msg, code] of cases) {
    it(`error: ${name}`, async () => {
      await expect(readFrame(file(text), { strata })).rejects.toMatchObject({
        code,
        message: expect.stringMatching(msg),
      });
    });
  }

  it('error: duplicate IDs name both lines (IDs are trimmed before comparing)', async () => {
    const f = await readFrame(file('household_id\nA\nB\nC\n B \n'), { strata: [] });
    expect(() => hashFrame(f, rowsByStratum(f))).toThrow(
      expect.objectContaining({
        code: 'duplicate_household',
        message: expect.stringMatching(/:5: household_id "B" duplicates line 3/),
      }),
    );
  });

  it('error: a stratum with fewer households than its sample size', async () => {
    const f = await readFrame(file('household_id,stratum\nA,n\nB,s\nC,s\n'), { strata: ['n', 's'] });
    expect(() => checkSizes(f, rowsByStratum(f), [2, 2])).toThrow(
      expect.objectContaining({
        code: 'insufficient_frame',
        message: expect.stringMatching(/stratum "n" has 1 households in the frame, fewer than its sample size 2/),
      }),
    );
  });

  it('frameHash is over all IDs; per-stratum hashes over each stratum', async () => {
    const f = await readFrame(file('household_id,stratum\nA,n\nB,s\nC,s\nD,n\n'), { strata: ['n', 's'] });
    const h = hashFrame(f, rowsByStratum(f));
    expect(h.frameHash).toBe(frameHash(['A', 'B', 'C', 'D']));
    expect(h.strata).toEqual([
      { name: 'n', households: 2, frameHash: frameHash(['A', 'D']) },
      { name: 's', households: 2, frameHash: frameHash(['B', 'C']) },
    ]);
  });

  it('frameHash of strata sorted apart and merged equals the hash of the whole frame sorted at once (any text, any number of strata; property)', async () => {
    const fc = (await import('fast-check')).default;
    const idChar = fc.constantFrom(
      'a',
      'B',
      '0',
      '-',
      'é',
      '\u00a0',
      '\ue000',
      '\uffee',
      '\u{1f600}',
      '\u{10437}',
      'ﬁ',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.array(idChar, { minLength: 1, maxLength: 6 }).map((cs) => `x${cs.join('')}x`),
          { minLength: 1, maxLength: 60 },
        ),
        fc.integer({ min: 1, max: 7 }),
        async (ids, k) => {
          const strata = Array.from({ length: k }, (_, i) => `s${i}`);
          const f = await readFrame(
            file('household_id,stratum\n' + ids.map((id, i) => `"${id}",s${(i * 7) % k}`).join('\n') + '\n'),
            { strata: k > 1 ? strata : [] },
          );
          const h = hashFrame(f, rowsByStratum(f));
          expect(h.frameHash).toBe(frameHash(ids));
          if (k > 1)
            h.strata.forEach((st, s) => expect(st.frameHash).toBe(frameHash(ids.filter((_, i) => (i * 7) % k === s))));
        },
      ),
      { numRuns: 80 },
    );
  });

  it('the adopter column (and any other column) has no influence on the selection', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => `H${i},${i % 2 ? 'n' : 's'}`);
    const a = await readFrame(
      file('household_id,stratum,adopter\n' + rows.map((r, i) => `${r},${i % 3 ? 1 : 0}`).join('\n')),
      { strata: ['n', 's'] },
    );
    const b = await readFrame(
      file('household_id,stratum,adopter,village\n' + rows.map((r) => `${r},0,somewhere`).join('\n')),
      { strata: ['n', 's'] },
    );
    const seed = 'cd'.repeat(32);
    const sa = await selectFrame(a, rowsByStratum(a), seed, [10, 10]);
    const sb = await selectFrame(b, rowsByStratum(b), seed, [10, 10]);
    expect(sa.strata.map((s) => [...s.order].map((r) => a.ids[r]))).toEqual(
      sb.strata.map((s) => [...s.order].map((r) => b.ids[r])),
    );
    // non-adopters are selected too
    const sampled = sa.strata.flatMap((s) => [...s.order.subarray(0, 10)].map((r) => Number(a.ids[r]!.slice(1))));
    expect(sampled.some((i) => i % 3 === 0)).toBe(true);
  });
});
