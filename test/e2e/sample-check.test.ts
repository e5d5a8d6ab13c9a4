/**
 * `oraclekit sample check <package.json>` on a package made here from a generated 15,000-household frame, a
 * commitment for a real drand round, its draw and monitoring data of the drawn households: exit 0 as written;
 * each kind of edit — a precision, a size, a finding, an input file, the beacon — is exit 10 naming it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { computeDesign } from '../../src/lib/sampling/design.ts';
import { loadDesign } from '../../src/lib/selection/design.ts';
import { drawSelection } from '../../src/lib/selection/workflow.ts';
import { commitForRealRound, QUICKNET } from '../helpers/real-rounds.ts';
import { sample } from '../helpers/sample-cli.ts';
import { COOKSTOVE_STRATA, stratifiedInput } from '../helpers/sampling-designs.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'sample-check-'));
const p = (name: string) => join(dir, name);
type Pkg = {
  failures: unknown[];
  projects: {
    parameters: { adjustedSize: number };
    findings: unknown[];
    supporting: { observations: { stats: { group: string; achievedPrecision: number }[] } };
    inputs: { proof: { randomness: { signature: string } } };
  }[];
};
const pkg = (): Pkg => JSON.parse(readFileSync(p('pkg/package.json'), 'utf8')) as Pkg;
const check = async (edit: (x: Pkg) => void) => {
  const x = pkg();
  edit(x);
  writeFileSync(p('pkg/edited.json'), JSON.stringify(x, null, 2));
  return sample('check', {}, [p('pkg/edited.json')]);
};

beforeAll(async () => {
  const households = [7500, 4500, 3000];
  const rows = ['household_id,stratum'];
  let k = 0;
  for (const [i, s] of COOKSTOVE_STRATA.entries())
    for (let j = 0; j < households[i]!; j++) rows.push(`HH-${String(++k).padStart(5, '0')},${s.name}`);
  writeFileSync(p('households.csv'), rows.join('\n') + '\n');
  const design = computeDesign(stratifiedInput(15000, COOKSTOVE_STRATA, { dropoutRate: 0.08 }));
  writeFileSync(p('design.json'), JSON.stringify(design, null, 2));
  const c = await commitForRealRound({
    design: loadDesign(design),
    framePath: p('households.csv'),
    out: p('commitment.json'),
  });
  mkdirSync(p('out'));
  const drawn = await drawSelection({
    commitment: c.commitment,
    framePath: p('households.csv'),
    randomness: { beacon: QUICKNET },
    outDir: p('out'),
    now: new Date(),
  });
  writeFileSync(p('out/proof.json'), JSON.stringify(drawn.proof, null, 2) + '\n');
  // monitoring data: every sampled household, one in 12 not completed and replaced by the next replacements in
  // rank order, two households far down the order (not drawn), and two that are not in the frame; hours a formula
  // of the household number
  const obs = ['household,value,stratum'];
  const hours = (id: string) => (0.5 + ((Number(id.slice(3)) * 37) % 101) / 40).toFixed(2);
  const notCompleted = new Map<string, number>();
  const sampleSize = new Map<string, number>();
  for (const line of readFileSync(p('out/selection.csv'), 'utf8').trim().split('\n').slice(1)) {
    const [stratum, rank, role, id] = line.split(',');
    if (role === 'sample') {
      sampleSize.set(stratum!, Number(rank));
      const na = Number(rank) % 12 === 0;
      if (na) notCompleted.set(stratum!, (notCompleted.get(stratum!) ?? 0) + 1);
      obs.push(`${id},${na ? 'NA' : hours(id!)},${stratum}`);
    } else {
      const k = Number(rank) - sampleSize.get(stratum!)!;
      if (k <= (notCompleted.get(stratum!) ?? 0) || k === 200 || k === 201) obs.push(`${id},${hours(id!)},${stratum}`);
    }
  }
  obs.push('XX-1,2.5,lpg', 'XX-2,3.5,electric');
  writeFileSync(p('observations.csv'), obs.join('\n') + '\n');
  mkdirSync(p('pkg'));
  const r = await sample('report', {
    design: p('design.json'),
    commitment: p('commitment.json'),
    proof: p('out/proof.json'),
    selection: p('out/selection.csv'),
    'published-at': c.publishedAt.toISOString(),
    observations: p('observations.csv'),
    'observations-kind': 'monitoring',
    out: p('pkg/package.html'),
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}, 120_000);

describe('sample check', () => {
  it('exit 0 for the package as written; it carries the commitment, the beacon round with its signature and key, the design and every input file hash', async () => {
    const r = await sample('check', {}, [p('pkg/package.json')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK every statement of .*package\.json re-derives/);
    const i = JSON.parse(readFileSync(p('pkg/package.json'), 'utf8')).projects[0].inputs;
    expect(i.commitment.beacon.chain.public_key).toMatch(/^[0-9a-f]{96,}$/);
    expect(i.proof.randomness).toMatchObject({ round: QUICKNET.round, signature: QUICKNET.signature });
    expect(i.files.map((f: { role: string; path: string }) => [f.role, f.path])).toEqual([
      ['design', '../design.json'],
      ['commitment', '../commitment.json'],
      ['proof', '../out/proof.json'],
      ['selection', '../out/selection.csv'],
      ['observations', '../observations.csv'],
    ]);
    expect(i.observations.values.length).toBeGreaterThan(1500);
  }, 60_000);

  it("without oraclekit: the package's Python recipe recomputes the selection and its observation table and compares the table with the package's", async () => {
    const x = pkg() as Pkg & { projects: { method: { python: string } }[] };
    writeFileSync(p('recipe.py'), x.projects[0]!.method.python);
    const ok = await run('python3', ['recipe.py', 'pkg/package.json'], { cwd: dir, timeout: 60_000 });
    expect(ok.stdout).toContain(
      'OK: frame file, frameHash, seed, sample and replacement order of every stratum recomputed\n',
    );
    expect(ok.stdout).toMatch(/^biomass n = \d+ of N = 4500 mean = [\d.]+ r = [\d.]+ %$/m);
    expect(ok.stdout).toMatch(/^overall n = \d+ of N = 15000 /m);
    expect(ok.stdout).toMatch(/OK: the package's observation table recomputed from .*observations\.csv\n$/);
    // the drawn households only: the undrawn and foreign rows are not in the table
    const stated = x.projects[0]!.supporting.observations.stats;
    const lines = ok.stdout.split('\n').filter((l) => / n = \d+ of N = /.test(l));
    expect(lines.map((l) => l.split(' ')[0])).toEqual(stated.map((g) => g.group));
    // an edited precision is refused by the recipe too, naming the stratum and both values
    const g = x.projects[0]!.supporting.observations.stats.find((s) => s.group === 'biomass')!;
    const was = g.achievedPrecision;
    g.achievedPrecision = 0.0494;
    writeFileSync(p('pkg/edited.json'), JSON.stringify(x, null, 2));
    const bad = await run('python3', ['recipe.py', 'pkg/edited.json'], { cwd: dir, timeout: 60_000 }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad?.code).toBe(1);
    expect(bad?.stderr).toMatch(
      /AssertionError: biomass achievedPrecision: the package states 0\.0494, recomputed 0\.0\d+/,
    );
    expect(Number(/AssertionError: .* recomputed (\S+)/.exec(bad!.stderr)![1])).toBeCloseTo(was, 12);
  }, 60_000);

  it('a precision, a size, a finding, an input file and the beacon: each edit is exit 10 naming it', async () => {
    const precision = await check((x) => {
      x.projects[0]!.supporting.observations.stats.find((g) => g.group === 'biomass')!.achievedPrecision = 0.0494;
    });
    expect(precision.code).toBe(10);
    expect(precision.stderr).toMatch(
      /DIFFERS \S+ \[supporting\.observations\.stats\[biomass\]\.achievedPrecision\] .*states 0\.0494, recomputed from its inputs 0\.0\d+/,
    );

    const size = await check((x) => {
      x.projects[0]!.parameters.adjustedSize += 1;
    });
    expect(size.code).toBe(10);
    expect(size.stderr).toContain('[parameters.adjustedSize]');

    const finding = await check((x) => {
      x.projects[0]!.findings.splice(0, 1);
    });
    expect(finding.code).toBe(10);
    expect(finding.stderr).toMatch(/\[findings\[\d+\]/);

    const beacon = await check((x) => {
      const s = x.projects[0]!.inputs.proof.randomness;
      s.signature = (s.signature[0] === 'a' ? 'b' : 'a') + s.signature.slice(1);
    });
    expect(beacon.code).toBe(10);
    expect(beacon.stderr).toContain('[inputs.proof.randomness.signature] the package carries');
    // without the proof file beside it, the rebuilt package's BLS check names the beacon
    renameSync(p('out/proof.json'), p('out/proof.moved'));
    try {
      const alone = await sample('check', {}, [p('pkg/edited.json')]);
      expect(alone.code).toBe(10);
      expect(alone.stderr).toMatch(/\[failures\[beacon\.signature\]\]/);
    } finally {
      renameSync(p('out/proof.moved'), p('out/proof.json'));
    }

    const original = readFileSync(p('observations.csv'), 'utf8');
    writeFileSync(
      p('observations.csv'),
      original.replace(/,(\d)\.(\d\d),/, ',$1.$2,').replace(/\n([^,\n]+),(\d)/, '\n$1,9'),
    );
    try {
      const file = await sample('check', {}, [p('pkg/package.json')]);
      expect(file.code).toBe(10);
      expect(file.stderr).toContain('[input file observations] ../observations.csv has sha256');
    } finally {
      writeFileSync(p('observations.csv'), original);
    }
  }, 120_000);
});
