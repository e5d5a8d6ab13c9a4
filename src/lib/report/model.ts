/**
 * The verifier's package (issue 3, `sample report`): per project the design
 * with its parameters and ER coverage, the supporting data (mean
 * justification and SD calculation from baseline or monitoring observations,
 * with the user's sources), the selection commitment and proof, and the data
 * of a chart of sample size against CV and dropout. Pure: inputs are parsed
 * objects; the command reads the files.
 */
import { chain, type Design } from '../sampling/design.ts';
import { achievedPrecision, meanSd } from '../sampling/recalc.ts';
import type { Commitment, Proof } from '../selection/records.ts';
import { commitmentDigest } from '../selection/records.ts';
import { loadDesign } from '../selection/design.ts';
import { selectionError } from '../selection/errors.ts';

export interface Source {
  label: string;
  citation?: string;
  url?: string;
}

export interface Observation {
  value: number;
  stratum?: string;
}

export interface ProjectInput {
  projectId: string;
  name?: string;
  design: unknown;
  commitment?: Commitment;
  proof?: Proof;
  observations?: { kind: 'baseline' | 'monitoring'; file?: string; values: Observation[] };
  meanJustification?: string;
  sdCalculation?: string;
  sources?: Source[];
}

export interface ReportInput {
  title?: string;
  generatedAt: Date;
  projects: ProjectInput[];
}

export interface ObservationStats {
  group: string;
  n: number;
  mean: number;
  sd: number;
  cv: number;
  /** N for the precision (the design's population of the group), if known. */
  population?: number;
  /** r = z * s / (xbar * sqrt(n)) * sqrt(1 - n/N), when N is known. */
  achievedPrecision?: number;
  meets95_5?: boolean;
}

export interface ChartSeries {
  dropoutRate: number;
  points: { cv: number; n: number }[];
}

export interface ChartData {
  population: number;
  cvRange: [number, number];
  series: ChartSeries[];
  /** The design's own points: overall (unstratified) or one per stratum (with its N_h). */
  marks: { label: string; cv: number; n: number }[];
  caption: string;
}

export interface ProjectReport {
  projectId: string;
  name: string;
  designId: string;
  designIdSource: string;
  parameters: Design['parameters'];
  stratification: Design['stratification'];
  strata: { name: string; population: number; sampleSize: number; mean?: number; sd?: number; cv?: number; census?: boolean }[];
  supporting: {
    meanJustification: string | null;
    sdCalculation: string | null;
    observations: { kind: string; file: string | null; stats: ObservationStats[] } | null;
    sources: Source[];
  };
  selection: null | {
    algorithm: string;
    committedAt: string;
    commitmentDigest: string;
    frame: { file: string; households: number; frameHash: string; fileSha256: string };
    beacon: { chainHash: string; scheme: string; round: number; roundTime: string };
    strata: { name: string; households: number; sampleSize: number }[];
    proof: null | {
      drawnAt: string;
      randomness: string;
      seed: string;
      sample: { stratum: string; rank: number; household_id: string; ticket: string }[];
      matchesCommitment: boolean;
    };
  };
  chart: ChartData;
}

export interface Report {
  kind: 'oraclekit/verifier-package';
  version: 1;
  title: string;
  generatedAt: string;
  spec: { sampling: 'sampling.md'; selection: 'cookstove-sampling/v1' };
  projects: ProjectReport[];
}

/** Mean, SD (n - 1 divisor), CV and the achieved relative precision per group and overall. */
export function observationStats(values: Observation[], populations: Map<string, number>, totalPopulation?: number): ObservationStats[] {
  const groups = new Map<string, number[]>();
  for (const o of values) {
    if (o.stratum !== undefined && o.stratum !== '') {
      const k = o.stratum;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k)!.push(o.value);
    }
  }
  const one = (group: string, xs: number[], N?: number): ObservationStats => {
    const { mean, sd } = meanSd(xs);
    const s: ObservationStats = { group, n: xs.length, mean, sd, cv: mean !== 0 ? sd / mean : Number.NaN };
    if (N !== undefined && N >= xs.length && xs.length > 1 && mean > 0) {
      s.population = N;
      s.achievedPrecision = achievedPrecision(xs.length, N, mean, sd);
      s.meets95_5 = s.achievedPrecision <= 0.05;
    }
    return s;
  };
  const out: ObservationStats[] = [];
  if (groups.size > 1) for (const [g, xs] of groups) out.push(one(g, xs, populations.get(g.trim().toLowerCase())));
  out.push(one('overall', values.map((o) => o.value), totalPopulation));
  return out;
}

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export function chartData(parameters: Design['parameters'], strata: ProjectReport['strata'], stratified: boolean): ChartData {
  const N = parameters.population;
  const designCv = parameters.expectedSD / parameters.expectedMean;
  const cvs = [...strata.map((s) => s.cv ?? designCv), designCv];
  const hi = Math.max(1.2, Math.ceil(Math.max(...cvs) * 1.25 * 10) / 10);
  const lo = 0.1;
  const rates = [...new Set([0, 0.1, 0.2, 0.3, parameters.dropoutRate])].sort((a, b) => a - b);
  const series = rates.map((d) => {
    const points: { cv: number; n: number }[] = [];
    const steps = 56;
    for (let i = 0; i <= steps; i++) {
      const cv = round4(lo + ((hi - lo) * i) / steps);
      points.push({ cv, n: chain(N, 1, cv, d).adjustedSize });
    }
    return { dropoutRate: d, points };
  });
  const marks = stratified
    ? strata.map((s) => ({ label: `${s.name} (N_h ${s.population})`, cv: round4(s.cv ?? designCv), n: s.sampleSize }))
    : [{ label: 'this design', cv: round4(designCv), n: parameters.adjustedSize }];
  return {
    population: N,
    cvRange: [lo, hi],
    series,
    marks,
    caption: stratified
      ? `Lines: the 95/5 sample size for N = ${N} (one population) against CV, per dropout rate. Points: each stratum's own n_h at its CV and its own N_h.`
      : `Lines: the 95/5 sample size for N = ${N} against CV = SD/mean, per dropout rate. Point: this design (CV ${round4(designCv)}, dropout ${parameters.dropoutRate}).`,
  };
}

export function projectReport(p: ProjectInput, index: number): ProjectReport {
  const d = loadDesign(p.design, `projects[${index}].design`);
  const strataSrc = d.stratification.strata;
  const strata: ProjectReport['strata'] = d.stratified
    ? strataSrc.map((s) => ({ name: s.name, population: s.population, sampleSize: s.sampleSize, mean: s.mean, sd: s.sd, cv: s.cv, census: s.census }))
    : [{ name: 'all', population: d.parameters.population, sampleSize: d.parameters.adjustedSize, mean: d.parameters.expectedMean, sd: d.parameters.expectedSD, cv: d.parameters.expectedSD / d.parameters.expectedMean, census: d.parameters.calculatedSize === d.parameters.population }];
  const pops = new Map(strata.map((s) => [s.name.trim().toLowerCase(), s.population]));
  let selection: ProjectReport['selection'] = null;
  const c = p.commitment;
  if (c) {
    const digest = commitmentDigest(c);
    if (c.designId !== d.designId) {
      throw selectionError('invalid_commitment', `projects[${index}].commitment.designId`, c.designId, `the project's designId ${d.designId}`, {
        message: `project ${p.projectId}: the commitment is for design ${c.designId}, the project's design is ${d.designId}; valid: the commitment made from this design`,
      });
    }
    const pr = p.proof;
    selection = {
      algorithm: c.algorithm,
      committedAt: c.committedAt,
      commitmentDigest: digest,
      frame: { file: c.frame.file, households: c.frame.households, frameHash: c.frame.frameHash, fileSha256: c.frame.fileSha256 },
      beacon: { chainHash: c.beacon.chain.hash, scheme: c.beacon.chain.schemeID, round: c.beacon.round, roundTime: c.beacon.roundTime },
      strata: c.strata.map((s) => ({ name: s.name, households: s.households, sampleSize: s.sampleSize })),
      proof: pr
        ? {
            drawnAt: pr.drawnAt,
            randomness: pr.randomness.source === 'drand' ? `drand round ${pr.randomness.round}: ${pr.randomness.randomness}` : `supplied by the verifier: ${pr.randomness.randomness}`,
            seed: pr.seed,
            sample: pr.strata.flatMap((s) => s.sample.map((x) => ({ stratum: s.name, ...x }))),
            matchesCommitment: pr.commitmentDigest === digest,
          }
        : null,
    };
  }
  const obs = p.observations;
  return {
    projectId: p.projectId,
    name: p.name ?? p.projectId,
    designId: d.designId,
    designIdSource: d.designIdSource,
    parameters: d.parameters,
    stratification: d.stratification,
    strata,
    supporting: {
      meanJustification: p.meanJustification ?? null,
      sdCalculation: p.sdCalculation ?? null,
      observations: obs && obs.values.length > 0 ? { kind: obs.kind, file: obs.file ?? null, stats: observationStats(obs.values, pops, d.parameters.population) } : null,
      sources: p.sources ?? [],
    },
    selection,
    chart: chartData(d.parameters, strata, d.stratified),
  };
}

export function buildReport(input: ReportInput): Report {
  return {
    kind: 'oraclekit/verifier-package',
    version: 1,
    title: input.title ?? 'Sampling design and household selection — verifier\'s package',
    generatedAt: input.generatedAt.toISOString(),
    spec: { sampling: 'sampling.md', selection: 'cookstove-sampling/v1' },
    projects: input.projects.map(projectReport),
  };
}
