import { describe, expect, it } from 'vitest';
import { parseCommitment, parseProof } from '../../../../src/lib/selection/records.ts';
import { parseSeedHex } from '../../../../src/lib/selection/workflow.ts';

describe('records', () => {
  it('a commitment or proof of another kind is refused naming the field', () => {
    expect(() => parseCommitment({ kind: 'something else' }, 'c.json')).toThrow(
      expect.objectContaining({ code: 'invalid_commitment', message: expect.stringMatching(/^c\.json\.kind: /) }),
    );
    expect(() =>
      parseProof({ kind: 'oraclekit/selection-proof', version: 1, algorithm: 'cookstove-sampling/v2' }, 'p.json'),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_proof', message: expect.stringMatching(/^p\.json\.algorithm: /) }),
    );
  });

  it('--seed-hex: 16 to 128 bytes of hex, 0x and case tolerated', () => {
    expect(parseSeedHex('0xAB' + 'cd'.repeat(15))).toBe('ab' + 'cd'.repeat(15));
    for (const bad of ['abc', 'zz'.repeat(16), 'ab'.repeat(15), 'ab'.repeat(129)]) {
      expect(() => parseSeedHex(bad)).toThrow(
        expect.objectContaining({ code: 'invalid_seed_hex', field: '--seed-hex' }),
      );
    }
  });
});
