/**
 * End to end through the built CLI: a commitment for a real round of drand's
 * public quicknet chain (made in process before the round, as `sample select
 * commit` would have made it then), draw → verify with the real signed round,
 * the trust rules (exit 11), the test vector through the files, errors
 * naming lines, and the tampering cases, each detected by `sample verify`
 * with exit 10 naming the first mismatch.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import cases from '../fixtures/sampling-cases.json' with { type: 'json' };
import { runCli } from '../helpers/cli.ts';
import { drawFlags, sample, selectionFiles, verifyFlags } from '../helpers/sample-cli.ts';
import { commitForRealRound, QUICKNET, roundJson } from '../helpers/real-rounds.ts';
import { loadDesign } from '../../src/lib/selection/design.ts';
import { fakeChain } from '../unit/lib/beacon/fake-drand.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-select-e2e-'));
const F = selectionFiles(dir);
const { p } = F;
const chain = fakeChain({ genesis: Math.floor(Date.now() / 1000) - 100_000 });
let publishedAt = '';

function frameCsv(n: number): string {
  const rows = ['household_id,stratum,adopter,address'];
  for (let i = 1; i <= n; i++)
    rows.push(
      `HH-${String(i).padStart(4, '0')},${i % 3 === 0 ? 'Highland' : 'Lowland'},${i % 4 === 0 ? 0 : 1},"${i} Main St, Block ""${i % 9}"""`,
    );
  return rows.join('\r\n') + '\r\n';
}

describe('sample select commit / draw and sample verify', () => {
  let round = 0;

  beforeAll(async () => {
    writeFileSync(p('chain.json'), JSON.stringify(chain.info));
    writeFileSync(p('frame.csv'), frameCsv(1500));
    const calc = await sample('calc', {
      population: '1500',
      mean: '2.4',
      sd: '1.1',
      dropout: '0.1',
      stratum: ['Lowland=0.6667', 'Highland=0.3333'],
      json: true,
    });
    expect(calc.code).toBe(0);
    writeFileSync(p('design.json'), calc.stdout);
    // the commitment, made before quicknet round 32254977 (2026-09-16T14:18:15Z) by the library's commitSelection
    const c = await commitForRealRound({
      design: loadDesign(JSON.parse(calc.stdout)),
      framePath: p('frame.csv'),
      out: p('commitment.json'),
    });
    publishedAt = c.publishedAt.toISOString();
    round = c.commitment.beacon.round;
    writeFileSync(p('round.json'), roundJson(QUICKNET));
    const draw = await sample('select draw', drawFlags(F));
    expect(draw.stderr).toBe('');
    expect(draw.code).toBe(0);
    expect(draw.stdout).toMatch(/drand round 32254977 \(BLS signature verified\)/);
  });

  it('commit records the design, frameHash, n per stratum, algorithm and a future round', () => {
    const c = JSON.parse(readFileSync(p('commitment.json'), 'utf8'));
    expect(c.algorithm).toBe('cookstove-sampling/v1');
    expect(c.designId).toMatch(/^sha256:[0-9a-f]{64}$/);
    const d = JSON.parse(readFileSync(p('design.json'), 'utf8'));
    expect(
      c.strata.map((s: { name: string; households: number; sampleSize: number }) => [
        s.name,
        s.households,
        s.sampleSize,
      ]),
    ).toEqual(
      d.stratification.strata.map((s: { name: string; sampleSize: number }) => [
        s.name,
        s.name === 'Lowland' ? 1000 : 500,
        s.sampleSize,
      ]),
    );
    expect(Date.parse(c.beacon.roundTime)).toBeGreaterThan(Date.parse(c.committedAt));
    expect(c.beacon.chain.hash).toBe('52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971');
  });

  it('draw writes the sample then the replacement list per stratum, with the frame columns kept', () => {
    const lines = readFileSync(p('out/selection.csv'), 'utf8').trim().split('\n');
    expect(lines[0]).toBe('stratum,rank,role,household_id,ticket,adopter,address');
    expect(lines).toHaveLength(1501);
    const low = lines.slice(1).filter((l) => l.startsWith('Lowland,'));
    const n = JSON.parse(readFileSync(p('commitment.json'), 'utf8')).strata[0].sampleSize;
    expect(low).toHaveLength(1000);
    expect(low.filter((l) => l.split(',')[2] === 'sample')).toHaveLength(n);
    expect(low[n]!.split(',')[2]).toBe('replacement');
    expect(lines[1]).toMatch(/^Lowland,1,sample,HH-\d{4},[0-9a-f]{64},[01],"\d+ Main St, Block ""\d"""$/);
  });

  it('verify passes with a one-line verdict when the commitment was published before the round', async () => {
    const r = await sample('verify', verifyFlags(F, { 'published-at': publishedAt }));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(
      /^OK verified cookstove-sampling\/v1: frameHash [0-9a-f]{12}, drand round 32254977 \(chain 52db9ba70e0c\), seed [0-9a-f]{12}, \d+ sampled of 1500 households in 2 strata/,
    );
  });

  it('without --published-at the same selection is UNTRUSTED: exit 11, saying why', async () => {
    const r = await sample('verify', verifyFlags(F, { selection: undefined }));
    expect(r.code).toBe(11);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^UNTRUSTED \[published before round\] nothing establishes that the commitment was published before round 32254977/,
    );
    expect(r.stderr).toMatch(
      /The selection recomputes exactly \(.*seed, selection\), but its randomness cannot be trusted: exit 11\./,
    );
    const late = await sample(
      'verify',
      verifyFlags(F, { 'published-at': '2026-09-16T15:00:00+00:00', json: true, selection: undefined }),
    );
    expect(late.code).toBe(11);
    expect(JSON.parse(late.stdout)).toMatchObject({
      ok: false,
      verdict: 'untrusted',
      untrusted: [{ check: 'published before round' }],
    });
    const bad = await sample('verify', verifyFlags(F, { 'published-at': 'yesterday', selection: undefined }));
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(
      /\[invalid_published_at\] --published-at = "yesterday" is invalid; valid: an ISO 8601 date-time with a time zone/,
    );
  });

  const verify = (frame: string, proof = p('out/proof.json'), extra: string[] = []) =>
    sample('verify', verifyFlags(F, { frame, proof, 'published-at': publishedAt, selection: undefined }), extra);

  it('tamper: a changed frame row (an ID) → frameHash mismatch, exit 10', async () => {
    writeFileSync(p('frame-changed.csv'), readFileSync(p('frame.csv'), 'utf8').replace('HH-0042,', 'HH-9042,'));
    const r = await verify(p('frame-changed.csv'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      /^MISMATCH \[frameHash\] frame-changed\.csv: frameHash [0-9a-f]{64} \(1500 households\) is not the committed/,
    );
    const j = await verify(p('frame-changed.csv'), p('out/proof.json'), ['--json']);
    expect(j.code).toBe(10);
    expect(JSON.parse(j.stdout)).toMatchObject({
      ok: false,
      verdict: 'mismatch',
      passed: [
        'commitment',
        'designId',
        'commitment.design',
        'commitment.roundTime',
        'randomness',
        'chain pinned',
        'future round',
        'published before round',
        'frame',
      ],
      mismatch: { check: 'frameHash' },
    });
  });

  it('tamper: a changed frame row (only the adopter column) → frame file mismatch, exit 10', async () => {
    const text = readFileSync(p('frame.csv'), 'utf8');
    writeFileSync(p('frame-adopter.csv'), text.replace(/^(HH-0004,Lowland,)0/m, '$11'));
    const r = await verify(p('frame-adopter.csv'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/MISMATCH \[frame file\] .*another column/);
  });

  it('tamper: a household moved to another stratum → stratum mismatch, exit 10', async () => {
    writeFileSync(
      p('frame-moved.csv'),
      readFileSync(p('frame.csv'), 'utf8').replace('HH-0001,Lowland', 'HH-0001,Highland'),
    );
    const r = await verify(p('frame-moved.csv'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/^MISMATCH \[stratum Lowland\] .*999 households/);
  });

  it('tamper: a sampled household swapped for an unsampled one in the proof → sample mismatch naming the rank', async () => {
    const proof = JSON.parse(readFileSync(p('out/proof.json'), 'utf8'));
    const sel = readFileSync(p('out/selection.csv'), 'utf8').split('\n');
    const outsider = sel.find((l) => l.startsWith('Lowland,500,'))!.split(',');
    proof.strata[0].sample[4] = { rank: 5, household_id: outsider[3], ticket: outsider[4] };
    writeFileSync(p('proof-swapped.json'), JSON.stringify(proof));
    const r = await verify(p('frame.csv'), p('proof-swapped.json'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      new RegExp(`MISMATCH \\[sample Lowland\\] stratum Lowland rank 5: proof has "${outsider[3]}"`),
    );
  });

  it('tamper: two rows swapped in selection.csv → selection.csv mismatch naming the line', async () => {
    const lines = readFileSync(p('out/selection.csv'), 'utf8').split('\n');
    const a = lines[3]!.split(',');
    const b = lines[200]!.split(',');
    [a[3], b[3]] = [b[3]!, a[3]!];
    lines[3] = a.join(',');
    lines[200] = b.join(',');
    writeFileSync(p('selection-swapped.csv'), lines.join('\n'));
    const r = await verify(p('frame.csv'), p('out/proof.json'), ['--selection', p('selection-swapped.csv')]);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      /MISMATCH \[selection\.csv\] selection-swapped\.csv:4: household_id is "HH-\d{4}", recomputed "HH-\d{4}"/,
    );
  });

  it('tamper: a different (validly signed, real) round → beacon.round mismatch', async () => {
    const proof = JSON.parse(readFileSync(p('out/proof.json'), 'utf8'));
    const other = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/drand-rounds.json'), 'utf8'),
    ).quicknet.find((x: { round: number }) => x.round === 657413);
    Object.assign(proof.randomness, { round: other.round, randomness: other.randomness, signature: other.signature });
    writeFileSync(p('proof-round.json'), JSON.stringify(proof));
    const r = await verify(p('frame.csv'), p('proof-round.json'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      new RegExp(`MISMATCH \\[beacon\\.round\\] proof uses drand round 657413, the commitment fixed round ${round}`),
    );
  });

  it('tamper: a forged beacon signature (another key, consistent randomness) → beacon.signature mismatch', async () => {
    const proof = JSON.parse(readFileSync(p('out/proof.json'), 'utf8'));
    const forged = fakeChain({ scheme: 'bls-unchained-g1-rfc9380', seed: 3 }).sign(round);
    Object.assign(proof.randomness, { randomness: forged.randomness, signature: forged.signature });
    writeFileSync(p('proof-forged.json'), JSON.stringify(proof));
    const r = await verify(p('frame.csv'), p('proof-forged.json'));
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      /MISMATCH \[beacon\.signature\] proof\.randomness\.signature does not verify for round \d+ against the public key of chain/,
    );
  });

  it('draw refuses a forged round and a round other than the committed one (exit 5 and 4)', async () => {
    writeFileSync(p('forged-round.json'), JSON.stringify(fakeChain({ seed: 4 }).sign(round)));
    // (a round of our own key presented as quicknet's)
    const f = await sample('select draw', drawFlags(F, { beacon: p('forged-round.json'), 'out-dir': p('out-forged') }));
    expect(f.code).toBe(5);
    expect(f.stderr).toMatch(/\[invalid_beacon_signature\]/);
    writeFileSync(
      p('other-round.json'),
      roundJson(
        JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/drand-rounds.json'), 'utf8')).quicknet[0],
      ),
    );
    const o = await sample('select draw', drawFlags(F, { beacon: p('other-round.json'), 'out-dir': p('out-other') }));
    expect(o.code).toBe(4);
    expect(o.stderr).toMatch(
      new RegExp(`\\[beacon_round_mismatch\\] .*round = 123 is not the committed round ${round}`),
    );
  });

  it('draw refuses a frame that differs from the committed one (an ID, or only another column), exit 4', async () => {
    const text = readFileSync(p('frame.csv'), 'utf8');
    writeFileSync(p('frame-draw-id.csv'), text.replace('HH-0042,', 'HH-9042,'));
    const a = await sample('select draw', drawFlags(F, { frame: p('frame-draw-id.csv'), 'out-dir': p('out-id') }));
    expect(a.code).toBe(4);
    expect(a.stderr).toMatch(/\[frame_mismatch\] frame-draw-id\.csv: frameHash [0-9a-f]{64} is not the committed/);
    writeFileSync(p('frame-draw-col.csv'), text.replace(/^(HH-0004,Lowland,)0/m, '$11'));
    const b = await sample('select draw', drawFlags(F, { frame: p('frame-draw-col.csv'), 'out-dir': p('out-col') }));
    expect(b.code).toBe(4);
    expect(b.stderr).toMatch(/\[frame_mismatch\] .*another column was edited after the commitment/);
  });

  it("--seed-hex: a draw with randomness of the drawer's choosing is UNTRUSTED (exit 11) unless the verifier passes the same --seed-hex", async () => {
    const d = await sample(
      'select draw',
      drawFlags(F, { 'seed-hex': 'ab'.repeat(32), 'out-dir': p('out-verifier'), json: true, beacon: undefined }),
    );
    expect(d.code).toBe(0);
    const out = JSON.parse(d.stdout);
    expect(out.proofContent.randomness).toMatchObject({ source: 'verifier', randomness: 'ab'.repeat(32) });
    expect(out.warnings[0]).toMatch(/only the verifier who chose it can accept this draw/);
    const anyone = await verify(p('frame.csv'), p('out-verifier/proof.json'), [
      '--selection',
      p('out-verifier/selection.csv'),
    ]);
    expect(anyone.code).toBe(11);
    expect(anyone.stdout).toBe('');
    expect(anyone.stderr).toMatch(
      /^UNTRUSTED \[randomness\] the randomness \(32 bytes, abababababab…\) was supplied by whoever ran `sample select draw --seed-hex`, not drand round 32254977: they could retry seeds until the sample suited them/,
    );
    const other = await verify(p('frame.csv'), p('out-verifier/proof.json'), ['--seed-hex', 'cd'.repeat(32)]);
    expect(other.code).toBe(11);
    expect(other.stderr).toMatch(/is not the randomness you supplied/);
    const mine = await verify(p('frame.csv'), p('out-verifier/proof.json'), [
      '--selection',
      p('out-verifier/selection.csv'),
      '--seed-hex',
      'AB'.repeat(32),
    ]);
    expect(mine.stderr).toBe('');
    expect(mine.code).toBe(0);
    expect(mine.stdout).toMatch(/^OK verified .*verifier-supplied randomness/);
    expect(mine.stdout).toMatch(/note: the randomness is the one you supplied \(--seed-hex\)/);
  });

  it('a drand proof relabelled as verifier-supplied: exit 11', async () => {
    const proof = JSON.parse(readFileSync(p('out/proof.json'), 'utf8'));
    proof.randomness = { source: 'verifier', randomness: proof.randomness.randomness };
    writeFileSync(p('proof-relabelled.json'), JSON.stringify(proof));
    const r = await verify(p('frame.csv'), p('proof-relabelled.json'));
    expect(r.code).toBe(11);
    expect(r.stderr).toMatch(/^UNTRUSTED \[randomness\]/);
  });

  it('a chain whose key the committer holds (--untrusted-chain-info): commit warns, draw works, verify exits 11 naming the chain', async () => {
    writeFileSync(p('own-frame.csv'), frameCsv(1500));
    const c = await sample('select commit', {
      design: p('design.json'),
      frame: p('own-frame.csv'),
      'untrusted-chain-info': p('chain.json'),
      delay: '0',
      out: p('own-commitment.json'),
    });
    expect(c.code).toBe(0);
    // the next steps name the command that fetches the committed round
    expect(c.stdout).toContain(`\`oraclekit sample select beacon --commitment ${p('own-commitment.json')}\``);
    expect(c.stdout).toMatch(
      /warning: UNTRUSTED CHAIN: chain [0-9a-f]{12}… \(bls-unchained-g1-rfc9380, "test"\) is not one of the pinned public drand chains/,
    );
    const com = JSON.parse(readFileSync(p('own-commitment.json'), 'utf8'));
    writeFileSync(p('own-round.json'), JSON.stringify(chain.sign(com.beacon.round)));
    const d = await sample(
      'select draw',
      drawFlags(F, {
        commitment: p('own-commitment.json'),
        frame: p('own-frame.csv'),
        beacon: p('own-round.json'),
        'out-dir': p('own-out'),
      }),
    );
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/warning: UNTRUSTED CHAIN/);
    const v = await sample(
      'verify',
      verifyFlags(F, {
        frame: p('own-frame.csv'),
        commitment: p('own-commitment.json'),
        proof: p('own-out/proof.json'),
        'published-at': com.committedAt,
        selection: undefined,
      }),
    );
    expect(v.code).toBe(11);
    expect(v.stderr).toMatch(
      /^UNTRUSTED \[chain pinned\] chain [0-9a-f]{12}… .*whoever holds that chain's key can sign any round, so the committer could have chosen the randomness/,
    );
    expect(v.stderr).toMatch(/beacon\.signature, seed, selection\), but its randomness cannot be trusted/);
  });

  it('commit uses a pinned public chain by default (quicknet), a future round, and refuses an edited design', async () => {
    writeFileSync(p('pub-frame.csv'), frameCsv(1500));
    const c = await sample('select commit', {
      design: p('design.json'),
      frame: p('pub-frame.csv'),
      out: p('pub-commitment.json'),
      json: true,
    });
    expect(c.code).toBe(0);
    const out = JSON.parse(c.stdout);
    expect(out.commitment.beacon.chain).toEqual(
      JSON.parse(JSON.stringify((await import('../../src/lib/beacon/drand.ts')).PINNED_CHAINS.quicknet)),
    );
    expect(Date.parse(out.commitment.beacon.roundTime) - Date.parse(out.commitment.committedAt)).toBeGreaterThanOrEqual(
      3600_000,
    );
    const d = JSON.parse(readFileSync(p('design.json'), 'utf8'));
    d.stratification.strata[0].sampleSize = Math.round(d.stratification.strata[0].sampleSize / 3);
    writeFileSync(p('design-edited.json'), JSON.stringify(d));
    const e = await sample('select commit', {
      design: p('design-edited.json'),
      frame: p('pub-frame.csv'),
      out: p('edited-commitment.json'),
    });
    expect(e.code).toBe(4);
    expect(e.stderr).toMatch(
      /\[design_inconsistent\] .*stratification\.strata\[0\]\.sampleSize = \d+ does not follow from the design's own parameters: the sampling chain gives \d+/,
    );
  });

  it('an existing output gets its own code (output_exists, exit 4), for draw and commit', async () => {
    const d = await sample('select draw', drawFlags(F));
    expect(d.code).toBe(4);
    expect(d.stderr).toMatch(/\[output_exists\] --out-dir: .*proof\.json exists; a draw is written once/);
    const c = await sample('select commit', {
      design: p('design.json'),
      frame: p('frame.csv'),
      out: p('commitment.json'),
    });
    expect(c.code).toBe(4);
    expect(c.stderr).toMatch(/\[output_exists\] --out: .*commitment\.json exists; a commitment is published once/);
  });

  it("the spec test vector through the CLI (seed-hex = the vector's beacon randomness)", async () => {
    const v = cases.selection_vectors[0]!;
    writeFileSync(p('vector.csv'), 'household_id\n' + v.ids.join('\n') + '\n');
    // a design of n = 6 of N = 30 (mean 1, SD 0.065, no dropout)
    writeFileSync(
      p('vector-design.json'),
      JSON.stringify({ population: v.ids.length, expectedMean: 1, expectedSD: 0.065, dropoutRate: 0 }),
    );
    const c = await sample('select commit', {
      design: p('vector-design.json'),
      frame: p('vector.csv'),
      out: p('vector-commitment.json'),
      json: true,
    });
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).commitment.frame.frameHash).toBe(v.frameHash);
    const d = await sample(
      'select draw',
      drawFlags(F, {
        commitment: p('vector-commitment.json'),
        frame: p('vector.csv'),
        'seed-hex': v.beaconRandomness,
        'out-dir': p('out-vector'),
        json: true,
        beacon: undefined,
      }),
    );
    const proof = JSON.parse(d.stdout).proofContent;
    expect(proof.seed).toBe(v.seed);
    expect(proof.strata[0].sample.map((s: { household_id: string }) => s.household_id)).toEqual(v.selected);
    const rows = readFileSync(p('out-vector/selection.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(7, 12)
      .map((l) => l.split(',')[3]);
    expect(rows).toEqual(v.replacement_order_first5);
  });

  it('errors name the lines: duplicate IDs (both lines), unknown stratum, a stratum too small', async () => {
    const base = frameCsv(1500).split('\r\n');
    writeFileSync(p('dup.csv'), [...base.slice(0, 10), base[5], ...base.slice(10)].join('\n'));
    const dup = await sample('select commit', { design: p('design.json'), frame: p('dup.csv'), out: p('c-dup.json') });
    expect(dup.code).toBe(4);
    expect(dup.stderr).toMatch(/\[duplicate_household\] dup\.csv:11: household_id "HH-0005" duplicates line 6/);
    writeFileSync(p('unknown.csv'), base.join('\n').replace('HH-0007,Lowland', 'HH-0007,Coast'));
    const unk = await sample('select commit', {
      design: p('design.json'),
      frame: p('unknown.csv'),
      out: p('c-unk.json'),
    });
    expect(unk.code).toBe(5);
    expect(unk.stderr).toMatch(
      /\[unknown_stratum\] unknown\.csv:8: stratum "Coast" \(household "HH-0007"\) is not in the design; valid: Lowland, Highland/,
    );
    writeFileSync(p('small.csv'), frameCsv(150));
    const small = await sample('select commit', {
      design: p('design.json'),
      frame: p('small.csv'),
      out: p('c-small.json'),
    });
    expect(small.code).toBe(5);
    expect(small.stderr).toMatch(
      /\[insufficient_frame\] small\.csv: stratum "Lowland" has 100 households in the frame, fewer than its sample size \d+/,
    );
    // several problems: duplicates come before stratum sizes, and the first repeated line is named
    writeFileSync(
      p('dup-small.csv'),
      [...frameCsv(150).split('\r\n').slice(0, 20), 'HH-0009,Lowland,1,x', 'HH-0003,Highland,1,y', ''].join('\n'),
    );
    const both = await sample('select commit', {
      design: p('design.json'),
      frame: p('dup-small.csv'),
      out: p('c-both.json'),
    });
    expect(both.code).toBe(4);
    expect(both.stderr).toMatch(
      /\[duplicate_household\] dup-small\.csv:21: household_id "HH-0009" duplicates line 10 \(2 IDs are duplicated; this is the first repeated in the file\)/,
    );
  });

  it('commit with the design from flags equals commit with `sample calc --json` output (same designId and n)', async () => {
    writeFileSync(p('flat.csv'), 'household_id\n' + Array.from({ length: 1500 }, (_, i) => `F${i}`).join('\n'));
    const a = await sample('select commit', {
      population: '1500',
      mean: '2.4',
      sd: '1.1',
      dropout: '0.1',
      frame: p('flat.csv'),
      out: p('c-flags.json'),
      json: true,
    });
    const calc = await sample('calc', { population: '1500', mean: '2.4', sd: '1.1', dropout: '0.1', json: true });
    writeFileSync(p('calc.json'), calc.stdout);
    const b = await sample('select commit', {
      design: p('calc.json'),
      frame: p('flat.csv'),
      out: p('c-calc.json'),
      json: true,
    });
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const ca = JSON.parse(a.stdout).commitment;
    const cb = JSON.parse(b.stdout).commitment;
    expect(ca.strata).toEqual(cb.strata);
    expect(ca.designId).toBe(cb.designId);
  });

  it('commit refuses an explicit past round (exit 4)', async () => {
    copyFileSync(p('design.json'), p('design2.json'));
    const r = await sample('select commit', {
      design: p('design2.json'),
      frame: p('frame.csv'),
      round: '2',
      out: p('c-past.json'),
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/\[round_not_in_future\] round 2 was produced at .*, not after the commitment time/);
  });

  it('commit refuses a frame larger than the design population (exit 4, with the command), unless accepted; verify then shows a FINDING', async () => {
    const base = ['sample', 'select', 'commit', '-N', '500', '--mean', '2.4', '--sd', '1.1', '--dropout', '0.1'];
    const r = await runCli([...base, '--frame', p('frame.csv'), '--out', p('c-small.json')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('[population_mismatch]');
    expect(r.stderr).toContain('the frame has 1500 households, the design assumed 500');
    expect(r.stderr).toContain('oraclekit sample calc -N 1500 --mean 2.4 --sd 1.1 --dropout 0.1');
    const ok = await runCli([
      ...base,
      '--frame',
      p('frame.csv'),
      '--out',
      p('c-small.json'),
      '--accept-population-mismatch',
      '--delay',
      '0',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('warning: ACCEPTED POPULATION MISMATCH');
    const c = JSON.parse(readFileSync(p('c-small.json'), 'utf8'));
    expect(c.populationMismatch).toMatchObject({ accepted: true, strata: [{ name: 'all', frameHouseholds: 1500 }] });
    const draw = await sample(
      'select draw',
      drawFlags(F, {
        commitment: p('c-small.json'),
        'seed-hex': 'cd'.repeat(32),
        'out-dir': p('out-small'),
        beacon: undefined,
      }),
    );
    expect(draw.code).toBe(0);
    const v = await sample(
      'verify',
      verifyFlags(F, {
        commitment: p('c-small.json'),
        proof: p('out-small/proof.json'),
        'seed-hex': 'cd'.repeat(32),
        selection: undefined,
      }),
    );
    expect(v.code).toBe(0);
    expect(v.stdout.split('\n')[0]).toMatch(/^FINDING ACCEPTED AT COMMIT: the design is for a smaller population/);
    // exit 0 beside a FINDING, and the output says why
    expect(v.stdout).toContain(
      'The FINDING above is about the precision of the committed design, not the selection: the selection verifies, so the exit is 0.',
    );
  });
});
