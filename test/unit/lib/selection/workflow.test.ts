import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReport } from '../../../../src/lib/report/model.ts';
import { renderHtml } from '../../../../src/lib/report/html.ts';
import { describe, expect, it } from 'vitest';
import cases from '../../../fixtures/sampling-cases.json' with { type: 'json' };
import { computeDesign } from '../../../../src/lib/sampling/design.ts';
import { designIdOf, loadDesign } from '../../../../src/lib/selection/design.ts';
import { commitmentDigest, parseCommitment, parseProof } from '../../../../src/lib/selection/records.ts';
import { commitSelection, drawSelection } from '../../../../src/lib/selection/workflow.ts';
import { verifySelection } from '../../../../src/lib/selection/verify.ts';
import { commitForRealRound, QUICKNET } from '../../../helpers/real-rounds.ts';
import { fakeChain } from '../beacon/fake-drand.ts';
import { COOKSTOVE_STRATA, NORTH_SOUTH_HALVES, stratifiedInput } from '../../../helpers/sampling-designs.ts';

const dir = mkdtempSync(join(tmpdir(), 'okit-wf-'));
const v = cases.selection_vectors[0]!;

describe('commit → draw → verify (in process)', () => {
  it('reproduces the test vector through the files: frameHash, seed, sample and replacement order', async () => {
    const frame = join(dir, 'vector.csv');
    writeFileSync(frame, 'household_id,adopter\n' + v.ids.map((id, i) => `${id},${i % 2}`).join('\n') + '\n');
    // an unstratified design of n = 6 over N = 30 (mean 1, SD 0.065, no dropout)
    const design = loadDesign({ population: 30, expectedMean: 1, expectedSD: 0.065, dropoutRate: 0 });
    expect(design.strata).toEqual([{ name: 'all', designPopulation: 30, sampleSize: 6 }]);
    const { commitment } = await commitForRealRound({ design, framePath: frame });
    expect(commitment.frame.frameHash).toBe(v.frameHash);
    expect(commitment.strata).toEqual([{ name: 'all', households: 30, sampleSize: 6, frameHash: v.frameHash }]);
    const out = mkdtempSync(join(dir, 'draw-'));
    const r = await drawSelection({
      commitment,
      framePath: frame,
      randomness: { seedHex: v.beaconRandomness },
      outDir: out,
      now: new Date(),
    });
    expect(r.proof.seed).toBe(v.seed);
    expect(r.proof.randomness.source).toBe('verifier');
    expect(r.proof.strata[0]!.sample.map((s) => s.household_id)).toEqual(v.selected);
    const csv = readFileSync(r.selectionPath, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('stratum,rank,role,household_id,ticket,adopter');
    expect(csv.slice(1, 7).map((l) => l.split(',')[3])).toEqual(v.selected);
    expect(csv.slice(7, 12).map((l) => l.split(',')[3])).toEqual(v.replacement_order_first5);
    expect(csv.slice(7).every((l) => l.split(',')[2] === 'replacement')).toBe(true);
    const ok = await verifySelection({
      commitment,
      proof: r.proof,
      framePath: frame,
      selectionPath: r.selectionPath,
      seedHex: v.beaconRandomness,
    });
    expect(ok.verdict).toBe('verified');
    expect(ok.passed).toEqual([
      'commitment',
      'designId',
      'commitment.design',
      'commitment.roundTime',
      'randomness',
      'frame',
      'frameHash',
      'frame file',
      'seed',
      'selection',
      'selection.csv',
    ]);
  });

  it('stratified design with a real quicknet round: verifies, and detects proof-level tampering', async () => {
    const designJson = computeDesign(stratifiedInput(900, NORTH_SOUTH_HALVES, { expectedSD: 1.2 }));
    const design = loadDesign(designJson);
    expect(design.designId).toBe(designIdOf(designJson.parameters, designJson.stratification));
    const frame = join(dir, 'strat.csv');
    writeFileSync(
      frame,
      'household_id,stratum,adopter\n' +
        Array.from({ length: 900 }, (_, i) => `HH${i},${i % 2 ? 'north' : 'SOUTH'},${i % 5 ? 1 : 0}`).join('\n') +
        '\n',
    );
    const { commitment, publishedAt } = await commitForRealRound({ design, framePath: frame });
    expect(commitment.strata.map((s) => [s.name, s.households])).toEqual([
      ['North', 450],
      ['South', 450],
    ]);
    expect(() => parseCommitment(JSON.parse(JSON.stringify(commitment)))).not.toThrow();
    const out = mkdtempSync(join(dir, 'draw-'));
    const r = await drawSelection({
      commitment,
      framePath: frame,
      randomness: { beacon: QUICKNET },
      outDir: out,
      now: new Date(),
    });
    const proof = parseProof(JSON.parse(JSON.stringify(r.proof)));
    expect(proof.commitmentDigest).toBe(commitmentDigest(commitment));
    expect((await verifySelection({ commitment, proof, framePath: frame, publishedAt })).ok).toBe(true);

    const swapped = structuredClone(proof);
    const s0 = swapped.strata[0]!.sample;
    [s0[0], s0[1]] = [s0[1]!, s0[0]!];
    const sw = await verifySelection({ commitment, proof: swapped, framePath: frame, publishedAt });
    expect(sw.mismatch?.check).toBe('sample North');

    const otherRound = structuredClone(proof);
    Object.assign(otherRound.randomness, { round: 657413 });
    expect(
      (await verifySelection({ commitment, proof: otherRound, framePath: frame, publishedAt })).mismatch?.check,
    ).toBe('beacon.round');

    const edited = structuredClone(commitment);
    edited.strata[0]!.sampleSize += 1;
    expect((await verifySelection({ commitment: edited, proof, framePath: frame, publishedAt })).mismatch?.check).toBe(
      'commitment',
    );
  });

  it('commit refuses a round that is not after the commitment time, and a frame too small for n', async () => {
    const frame = join(dir, 'small.csv');
    writeFileSync(frame, 'household_id\nA\nB\nC\n');
    const chain = fakeChain();
    const design = loadDesign({ population: 3, expectedMean: 1, expectedSD: 0.03, dropoutRate: 0 });
    expect(design.strata[0]!.sampleSize).toBe(2);
    await expect(
      commitSelection({ design, framePath: frame, chain: chain.info, round: 1, delaySeconds: 0, now: new Date() }),
    ).rejects.toMatchObject({ code: 'round_not_in_future' });
    const big = loadDesign({ population: 5, expectedMean: 1, expectedSD: 0.5, dropoutRate: 0 });
    await expect(
      commitSelection({ design: big, framePath: frame, chain: chain.info, delaySeconds: 0, now: new Date() }),
    ).rejects.toMatchObject({ code: 'insufficient_frame' });
  });

  it('loadDesign: a registry record keeps its designId; a calc input is computed', () => {
    const rec = {
      designId: 'dsg_123',
      projectId: 'p1',
      version: 2,
      ...computeDesign({ population: 500, expectedMean: 2, expectedSD: 1, dropoutRate: 0 }),
    };
    const d = loadDesign(rec);
    expect(d.designId).toBe('dsg_123');
    expect(d.designIdSource).toBe('record');
    expect(d.projectId).toBe('p1');
    const c = loadDesign({ population: 500, expectedMean: 2, expectedSD: 1, dropoutRate: 0 });
    expect(c.strata[0]!.sampleSize).toBe(d.strata[0]!.sampleSize);
    expect(() => loadDesign([1])).toThrow(expect.objectContaining({ code: 'invalid_design' }));
  });
});

describe('a design for a smaller population than the frame', () => {
  const design1000 = () => loadDesign(computeDesign(stratifiedInput(1000, COOKSTOVE_STRATA, { dropoutRate: 0.08 })));
  const frame15000 = (): string => {
    const path = join(dir, 'frame-15000.csv');
    const rows = ['household_id,stratum'];
    for (let i = 0; i < 15000; i++) rows.push(`H${i},${i < 7500 ? 'lpg' : i < 12000 ? 'biomass' : 'electric'}`);
    writeFileSync(path, rows.join('\n') + '\n');
    return path;
  };

  it('is refused at commit, with the sizes this frame needs, the precision the design gives and the command', async () => {
    const d = design1000();
    const e = await commitForRealRound({ design: d, framePath: frame15000() }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'population_mismatch', status: 409 });
    const msg = (e as Error).message;
    expect(msg).toContain('electric: the frame has 3000 households, the design assumed 200');
    expect(msg).toContain('±11.6 %, not ±5 %');
    expect(msg).toContain('n_h = lpg 196, biomass 646, electric 784');
    expect(msg).toContain("oraclekit sample calc -N 15000 --mean 2 --sd 1 --dropout 0.08 --stratum 'lpg=0.5:2.6:0.9'");
  });

  it('accepted explicitly, the commitment records it and verify shows it as a finding', async () => {
    const framePath = frame15000();
    const { commitment } = await commitForRealRound({
      design: design1000(),
      framePath,
      acceptPopulationMismatch: true,
    });
    expect(commitment.populationMismatch?.accepted).toBe(true);
    expect(commitment.populationMismatch?.needed).toEqual([
      { name: 'lpg', sampleSize: 196 },
      { name: 'biomass', sampleSize: 646 },
      { name: 'electric', sampleSize: 784 },
    ]);
    const electric = commitment.populationMismatch!.strata.find((s) => s.name === 'electric')!;
    expect(electric.precision).toBeCloseTo(0.1162, 3);
    const out = mkdtempSync(join(dir, 'mismatch-'));
    const r = await drawSelection({
      commitment,
      framePath,
      randomness: { seedHex: 'ab'.repeat(32) },
      outDir: out,
      now: new Date(),
    });
    const ok = await verifySelection({ commitment, proof: r.proof, framePath, seedHex: 'ab'.repeat(32) });
    expect(ok.verdict).toBe('verified');
    expect(ok.findings).toHaveLength(1);
    expect(ok.findings[0]).toMatch(/^ACCEPTED AT COMMIT: the design is for a smaller population than the frame/);
    expect(ok.findings[0]).toContain('more samples');
    // the package: the same finding first, and in the box at the top of the page, with the real precision
    const pkg = await buildReport({
      generatedAt: new Date(),
      projects: [
        {
          projectId: 'KE-9',
          design: computeDesign(stratifiedInput(1000, COOKSTOVE_STRATA, { dropoutRate: 0.08 })),
          commitment,
          proof: r.proof,
          framePath,
          seedHex: 'ab'.repeat(32),
        },
      ],
    });
    const first = pkg.projects[0]!.findings[0]!;
    expect(first).toMatchObject({ severity: 'warning' });
    expect(first.message).toMatch(/^ACCEPTED AT COMMIT: the design is for a smaller population than the frame/);
    expect(first.message).toContain('±11.6 %');
    const html = renderHtml(pkg);
    const top = html.slice(html.indexOf('<section class="findings-top">'), html.indexOf('<section class="project"'));
    expect(top).toContain('ACCEPTED AT COMMIT: the design is for a smaller population than the frame');
  });
});
