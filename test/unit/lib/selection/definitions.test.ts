/**
 * The definitions a third party needs, exactly —
 * "trimmed" as an explicit character list, stratum-name matching, canonical
 * JSON, and frame errors in a stable order.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashFrame, readFrame, rowsByStratum } from '../../../../src/lib/selection/frame.ts';
import { canonicalJson, stratumKey, TRIM_CHARS, trimId } from '../../../../src/lib/selection/hash.ts';
import { loadDesign } from '../../../../src/lib/selection/design.ts';
import { commitSelection } from '../../../../src/lib/selection/workflow.ts';
import { PINNED_CHAINS } from '../../../../src/lib/beacon/drand.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-defs-'));
let k = 0;
const file = (text: string): string => {
  const p = join(dir, `f${k++}.csv`);
  writeFileSync(p, text);
  return p;
};

describe('"trimmed" is an explicit list of 25 characters', () => {
  it('the list is ECMAScript white space and line terminators, written out', () => {
    expect([...TRIM_CHARS].map((c) => c.codePointAt(0)!.toString(16).padStart(4, '0'))).toEqual([
      '0009',
      '000a',
      '000b',
      '000c',
      '000d',
      '0020',
      '00a0',
      '1680',
      '2000',
      '2001',
      '2002',
      '2003',
      '2004',
      '2005',
      '2006',
      '2007',
      '2008',
      '2009',
      '200a',
      '2028',
      '2029',
      '202f',
      '205f',
      '3000',
      'feff',
    ]);
  });

  it("where Python's str.strip() and JS trim() differ, the list decides: U+FEFF is trimmed, U+0085 and U+001C–U+001E are kept", () => {
    expect(trimId('\ufeffHH-1\u3000')).toBe('HH-1');
    expect(trimId('\u0085HH-1')).toBe('\u0085HH-1');
    expect(trimId('HH-1\u001c')).toBe('HH-1\u001c');
    expect(trimId('\u001e\u001dHH-1')).toBe('\u001e\u001dHH-1');
    expect(trimId(' \t\r\n')).toBe('');
    // the list equals what this engine's trim() removes, character by character
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      expect(TRIM_CHARS.includes(ch), `U+${c.toString(16)}`).toBe(ch.trim() === '');
    }
  });

  it('frame IDs are trimmed with it: U+FEFF at the end goes, U+0085 stays part of the ID', async () => {
    const f = await readFrame(file('household_id\nA\ufeff\n\u0085B\n'), { strata: [] });
    expect(f.ids).toEqual(['A', '\u0085B']);
  });
});

describe('stratum matching: trimmed, ASCII letters case-insensitive, everything else exact', () => {
  it('stratumKey', () => {
    expect(stratumKey(' LowLand ')).toBe('lowland');
    expect(stratumKey('STRASSE')).not.toBe(stratumKey('straße'));
    expect(stratumKey('É')).not.toBe(stratumKey('é'));
    expect(stratumKey('Ωmega')).toBe('Ωmega');
  });

  it('a frame says "STRASSE" for the design\'s "straße": unknown_stratum, naming the rule', async () => {
    await expect(
      readFrame(file('household_id,stratum\nA,straße\nB,STRASSE\n'), { strata: ['straße'] }),
    ).rejects.toMatchObject({
      code: 'unknown_stratum',
      message: expect.stringMatching(
        /:3: stratum "STRASSE" \(household "B"\) is not in the design; valid: straße \(trimmed; only ASCII letters match case-insensitively\)/,
      ),
    });
    const ok = await readFrame(file('household_id,stratum\nA, NORTH \nB,north\n'), { strata: ['North'] });
    expect([...ok.stratum]).toEqual([0, 0]);
  });
});

describe('canonical JSON', () => {
  it('keys by code point (as Python sort_keys), no whitespace, numbers as ECMAScript prints them', () => {
    expect(canonicalJson({ b: 1, a: [1.5, 0.00001, 1e-7, 1e21, 100], '\uffff': 0, '\u{1F600}': 0 })).toBe(
      '{"a":[1.5,0.00001,1e-7,1e+21,100],"b":1,"\uffff":0,"\u{1F600}":0}',
    );
    expect(canonicalJson({ x: undefined, y: null, s: 'é"\n' })).toBe('{"s":"é\\"\\n","y":null}');
  });
});

describe('frame errors come in a stable order', () => {
  it('duplicates before stratum sizes; the first repeated line of the file is named; a duplicate is never counted', async () => {
    const design = loadDesign({ population: 40, expectedMean: 1, expectedSD: 0.3, dropoutRate: 0 });
    const n = design.strata[0]!.sampleSize;
    // n - 1 distinct households plus duplicates: too small AND duplicated
    const ids = Array.from({ length: n - 1 }, (_, i) => `H${i}`);
    const p = file('household_id\n' + [...ids, 'H7', 'H3', 'H7'].join('\n') + '\n');
    await expect(
      commitSelection({
        design,
        framePath: p,
        chain: structuredClone(PINNED_CHAINS.quicknet) as never,
        delaySeconds: 0,
        now: new Date(),
      }),
    ).rejects.toMatchObject({
      code: 'duplicate_household',
      message: expect.stringMatching(
        new RegExp(
          `:${n + 1}: household_id "H7" duplicates line 9 \\(2 IDs are duplicated; this is the first repeated in the file\\)`,
        ),
      ),
    });
    const f = await readFrame(p, { strata: [] });
    expect(() => hashFrame(f, rowsByStratum(f))).toThrow(
      expect.objectContaining({ details: { lines: [9, n + 1], duplicatedIds: 2 } }),
    );
  });
});
