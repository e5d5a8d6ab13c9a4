/**
 * Randomness the committer controls never passes as
 * verified. Real signed rounds of drand's public chains; a chain whose key we
 * hold (fakeChain) verifies cryptographically but is UNTRUSTED.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeDesign } from '../../../../src/lib/sampling/design.ts';
import { loadDesign } from '../../../../src/lib/selection/design.ts';
import { commitmentDigest, type Commitment, type Proof } from '../../../../src/lib/selection/records.ts';
import type { VerifyResult } from '../../../../src/lib/selection/checks.ts';
import { verifySelection } from '../../../../src/lib/selection/verify.ts';
import { commitSelection, drawSelection } from '../../../../src/lib/selection/workflow.ts';
import { commitForRealRound, DEFAULT_ROUNDS, QUICKNET } from '../../../helpers/real-rounds.ts';
import { fakeChain } from '../beacon/fake-drand.ts';
import { NORTH_SOUTH_HALVES, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-trust-'));
const frame = join(dir, 'frame.csv');
const design = loadDesign(computeDesign(stratifiedInput(600, NORTH_SOUTH_HALVES, { expectedSD: 1.4 })));

let commitment: Commitment;
let proof: Proof;
let publishedAt: Date;

const failed = (r: VerifyResult) => r.checks.filter((c) => c.status === 'fail').map((c) => `${c.kind} ${c.check}`);

beforeAll(async () => {
  writeFileSync(
    frame,
    'household_id,stratum\n' +
      Array.from({ length: 600 }, (_, i) => `H${i},${i % 2 ? 'North' : 'South'}`).join('\n') +
      '\n',
  );
  const c = await commitForRealRound({ design, framePath: frame });
  commitment = c.commitment;
  publishedAt = c.publishedAt;
  proof = (
    await drawSelection({
      commitment,
      framePath: frame,
      randomness: { beacon: QUICKNET },
      outDir: mkdtempSync(join(dir, 'd-')),
      now: new Date(),
    })
  ).proof;
});

describe('trust in the randomness', () => {
  it('a BLS-verified round of pinned quicknet, after committedAt, published before the round: verified', async () => {
    const r = await verifySelection({ commitment, proof, framePath: frame, publishedAt });
    expect(r.verdict).toBe('verified');
    expect(r.checks.filter((c) => c.kind === 'trust').map((c) => [c.check, c.status])).toEqual([
      ['randomness', 'pass'],
      ['chain pinned', 'pass'],
      ['future round', 'pass'],
      ['published before round', 'pass'],
    ]);
  });

  it('also on the default (chained) chain', async () => {
    const round = DEFAULT_ROUNDS.find((r) => r.round === 3311596)!;
    const c = await commitForRealRound({ design, framePath: frame, chain: 'default', round });
    const p = (
      await drawSelection({
        commitment: c.commitment,
        framePath: frame,
        randomness: { beacon: round },
        outDir: mkdtempSync(join(dir, 'd-')),
        now: new Date(),
      })
    ).proof;
    expect(
      (await verifySelection({ commitment: c.commitment, proof: p, framePath: frame, publishedAt: c.publishedAt }))
        .verdict,
    ).toBe('verified');
  });

  it('without a publication time, or one after the round: UNTRUSTED, saying why', async () => {
    const none = await verifySelection({ commitment, proof, framePath: frame });
    expect(none.verdict).toBe('untrusted');
    expect(none.ok).toBe(false);
    expect(none.untrusted).toEqual([
      {
        check: 'published before round',
        message: expect.stringMatching(
          /nothing establishes that the commitment was published before round 32254977 was produced \(2026-09-16T14:18:15\.000Z\); committedAt is the committer's own clock/,
        ),
      },
    ]);
    const late = await verifySelection({
      commitment,
      proof,
      framePath: frame,
      publishedAt: new Date('2026-09-16T14:18:15Z'),
    });
    expect(late.untrusted[0]!.message).toMatch(
      /published at 2026-09-16T14:18:15\.000Z, not before round 32254977 was produced/,
    );
  });

  it('--seed-hex draw: untrusted for anyone but the verifier who supplied exactly that randomness', async () => {
    const own = 'c0ffee'.repeat(8);
    const p = (
      await drawSelection({
        commitment,
        framePath: frame,
        randomness: { seedHex: own },
        outDir: mkdtempSync(join(dir, 'd-')),
        now: new Date(),
      })
    ).proof;
    const anyone = await verifySelection({ commitment, proof: p, framePath: frame, publishedAt });
    expect(anyone.verdict).toBe('untrusted');
    expect(anyone.untrusted[0]).toMatchObject({
      check: 'randomness',
      message: expect.stringMatching(
        /supplied by whoever ran `sample select draw --seed-hex`, not drand round 32254977: they could retry seeds until the sample suited them/,
      ),
    });
    const other = await verifySelection({ commitment, proof: p, framePath: frame, seedHex: 'ab'.repeat(24) });
    expect(other.untrusted[0]!.message).toMatch(/is not the randomness you supplied/);
    const mine = await verifySelection({ commitment, proof: p, framePath: frame, seedHex: own });
    expect(mine.verdict).toBe('verified');
    expect(mine.notes).toEqual(['the randomness is the one you supplied (--seed-hex); no beacon was used']);
  });

  it('a drand proof relabelled as verifier-supplied is untrusted (and recomputes otherwise)', async () => {
    const relabelled = structuredClone(proof);
    relabelled.randomness = { source: 'verifier', randomness: proof.randomness.randomness };
    const r = await verifySelection({ commitment, proof: relabelled, framePath: frame, publishedAt });
    expect(r.verdict).toBe('untrusted');
    expect(failed(r)).toEqual(['trust randomness']);
  });

  it('a chain whose key the committer holds: the BLS signature verifies, the selection recomputes, and it is UNTRUSTED', async () => {
    const own = fakeChain({ genesis: Math.floor(Date.now() / 1000) - 10_000 });
    const now = new Date();
    const c = (await commitSelection({ design, framePath: frame, chain: own.info, delaySeconds: 0, now })).commitment;
    const p = (
      await drawSelection({
        commitment: c,
        framePath: frame,
        randomness: { beacon: own.sign(c.beacon.round) },
        outDir: mkdtempSync(join(dir, 'd-')),
        now,
      })
    ).proof;
    const r = await verifySelection({ commitment: c, proof: p, framePath: frame, publishedAt: now });
    expect(r.verdict).toBe('untrusted');
    expect(r.passed).toContain('beacon.signature');
    expect(r.untrusted.map((u) => u.check)).toEqual(['chain pinned']);
    expect(r.untrusted[0]!.message).toMatch(
      /is not one of the pinned public drand chains .*whoever holds that chain's key can sign any round, so the committer could have chosen the randomness/,
    );
  });

  it("a commitment that claims quicknet's hash with another key is untrusted; with a round before committedAt too", async () => {
    const forged = structuredClone(commitment);
    forged.beacon.chain.public_key = fakeChain().info.public_key;
    const p1 = { ...proof, commitmentDigest: commitmentDigest(forged) };
    const r1 = await verifySelection({ commitment: forged, proof: p1, framePath: frame, publishedAt });
    expect(r1.verdict).toBe('mismatch'); // parseChainInfo refuses the known hash with another key before anything else
    expect(r1.mismatch?.check).toBe('chain');

    const late = structuredClone(commitment);
    late.committedAt = '2026-09-16T14:30:00.000Z';
    const p2 = { ...proof, commitmentDigest: commitmentDigest(late) };
    const r2 = await verifySelection({ commitment: late, proof: p2, framePath: frame, publishedAt });
    expect(r2.untrusted.map((u) => u.check)).toEqual(['future round']);
    expect(r2.untrusted[0]!.message).toMatch(
      /was produced at 2026-09-16T14:18:15\.000Z, not after committedAt 2026-09-16T14:30:00\.000Z/,
    );
  });

  it('verify --seed-hex against a drand proof: a mismatch, not a pass', async () => {
    const r = await verifySelection({ commitment, proof, framePath: frame, publishedAt, seedHex: 'ab'.repeat(32) });
    expect(r.verdict).toBe('mismatch');
    expect(r.mismatch).toMatchObject({
      check: 'randomness',
      message: expect.stringMatching(/the proof uses drand round 32254977/),
    });
  });
});
