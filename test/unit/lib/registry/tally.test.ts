import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  computeStatus,
  decidedOutcome,
  DEFAULT_RULE,
  finalOutcome,
  parseFraction,
  ruleFromJson,
  ruleToJson,
  type SnapshotVoter,
  type TallyRule,
  type VoteOption,
} from '../../../../src/lib/registry/tally.ts';

const voters = (...w: number[]): SnapshotVoter[] => w.map((weight, i) => ({ did: `did:example:v${i}`, weight }));
const votes = (...o: (VoteOption | undefined)[]) =>
  new Map(o.flatMap((x, i) => (x ? [[`did:example:v${i}`, x] as [string, VoteOption]] : [])));
const status = (rule: TallyRule, snap: SnapshotVoter[], v: Map<string, VoteOption>, atDeadline = false) =>
  computeStatus(rule, snap, v, 1000, atDeadline ? 1000 : 0, false).status;

describe('fractions are exact', () => {
  it('parses decimals and percentages into n/d', () => {
    expect(parseFraction('0.334', 'q')).toEqual({ n: 334n, d: 1000n });
    expect(parseFraction('33.4%', 'q')).toEqual({ n: 334n, d: 1000n });
    expect(parseFraction(0.5, 'q')).toEqual({ n: 5n, d: 10n });
    expect(() => parseFraction('1.5', 'q')).toThrow();
    expect(() => parseFraction('abc', 'q')).toThrow();
    expect(() => parseFraction(-0.1, 'q')).toThrow();
  });
  it('rules round-trip through JSON', () => {
    for (const r of [
      DEFAULT_RULE,
      ruleFromJson({ rule: 'absolute_count', k: 3 }),
      ruleFromJson({ rule: 'absolute_percentage', p: '0.667' }),
    ]) {
      expect(ruleFromJson(ruleToJson(r))).toEqual(r);
    }
  });
  it('no float error at the boundary: 334 of 1000 is exactly the quorum', () => {
    const snap = voters(334, 666);
    expect(status(DEFAULT_RULE, snap, votes('yes'), true)).toBe('passed');
    expect(status(DEFAULT_RULE, voters(333, 667), votes('yes'), true)).toBe('expired');
  });
});

describe('threshold_quorum (default)', () => {
  const R = DEFAULT_RULE;
  it('all abstain fails; a tie fails', () => {
    expect(status(R, voters(1, 1), votes('abstain', 'abstain'))).toBe('rejected');
    expect(status(R, voters(1, 1), votes('yes', 'no'))).toBe('rejected');
    expect(status(R, voters(2, 1, 1), votes('yes', 'no', 'veto'), true)).toBe('rejected'); // yes 2 of 4 decisive: not > 50 %
  });
  it('veto above 33.4 % of all votes vetoes', () => {
    expect(status(R, voters(1, 1, 1), votes('yes', 'yes', 'veto'))).toBe('passed'); // veto 1/3 = 33.3 % < 33.4 %
    expect(status(R, voters(1, 1, 2), votes('yes', 'no', 'veto'), true)).toBe('vetoed'); // veto 2/4
  });
  it('no quorum at the deadline → expired', () => {
    expect(status(R, voters(1, 1, 1, 1), votes('yes'), true)).toBe('expired');
  });
  it('closes early only when nothing can change the outcome', () => {
    expect(status(R, voters(2, 1, 1), votes('yes'))).toBe('open');
    expect(status(R, voters(2, 1, 1), votes('yes', 'yes'))).toBe('passed');
    expect(status(R, voters(1, 1, 1, 1, 1, 1), votes('veto', 'veto', 'veto'))).toBe('vetoed');
    expect(status(R, voters(1, 1, 1), votes('no', 'no'))).toBe('rejected');
  });
});

describe('absolute_count and absolute_percentage', () => {
  it('k yes votes', () => {
    const R = ruleFromJson({ rule: 'absolute_count', k: 2 });
    expect(status(R, voters(5, 1, 1), votes('yes'))).toBe('open');
    expect(status(R, voters(5, 1, 1), votes('yes', 'yes'))).toBe('passed');
    expect(status(R, voters(5, 1, 1), votes('no', 'no'))).toBe('rejected');
    expect(status(ruleFromJson({ rule: 'absolute_count', k: 4 }), voters(1, 1, 1), votes())).toBe('rejected');
  });
  it('yes >= p of total weight minus abstain', () => {
    const R = ruleFromJson({ rule: 'absolute_percentage', p: '0.5' });
    expect(status(R, voters(1, 1, 1, 1), votes('yes', 'abstain', 'abstain'))).toBe('passed'); // 1 >= 0.5 * 2
    expect(status(R, voters(1, 1, 1, 1), votes('yes', 'no', 'no'), true)).toBe('rejected');
    expect(status(R, voters(1, 1), votes('abstain', 'abstain'))).toBe('rejected');
  });
});

describe('early close is never wrong (property)', () => {
  const rules: TallyRule[] = [
    DEFAULT_RULE,
    ruleFromJson({ rule: 'threshold_quorum', quorum: '0.5', threshold: '0.667', vetoThreshold: '0.25' }),
    ruleFromJson({ rule: 'absolute_count', k: 2 }),
    ruleFromJson({ rule: 'absolute_percentage', p: '0.6' }),
  ];
  const opt = fc.constantFrom<VoteOption | undefined>('yes', 'no', 'abstain', 'veto', undefined);
  it('a decided outcome equals the final outcome of every completion', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...rules),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
        fc.array(opt, { minLength: 6, maxLength: 6 }),
        fc.array(opt, { minLength: 6, maxLength: 6 }),
        (rule, weights, cast, rest) => {
          const snap = voters(...weights);
          const now = votes(...cast.slice(0, weights.length));
          const s = computeStatus(rule, snap, now, 1000, 0, false);
          if (s.status === 'open') return;
          // complete the votes of those who have not voted, in any way
          const all = new Map(now);
          snap.forEach((v, i) => {
            if (!all.has(v.did) && rest[i]) all.set(v.did, rest[i]!);
          });
          expect(computeStatus(rule, snap, all, 1000, 1000, false).status).toBe(s.status);
        },
      ),
      { numRuns: 3000 },
    );
  });
  it('decidedOutcome with nobody left equals finalOutcome', () => {
    expect(
      decidedOutcome(DEFAULT_RULE, {
        y: 3n,
        n: 1n,
        a: 0n,
        v: 0n,
        total: 4n,
        remaining: 0n,
        yesCount: 2,
        remainingVoters: 0,
      }),
    ).toBe(finalOutcome(DEFAULT_RULE, { y: 3n, n: 1n, a: 0n, v: 0n, total: 4n, yesCount: 2 }));
  });
});
