/**
 * The verifier's package (`sample report`): per project the checks it ran
 * (the design recomputed from its own parameters, the commitment, the
 * beacon, the trust in the randomness, the seed, every listed ticket,
 * selection.csv and the frame when given), the method, the design, the
 * supporting data compared with the design, the chart, and the commitment,
 * proof, sample and replacement order. The model is data, assembled here
 * from its parts: what a project is built from (inputs.ts), the design's
 * checks (design-checks.ts), the method section (method.ts), the
 * observations' figures (observations.ts) and the chart (chart.ts);
 * html.ts renders it.
 */
import { computeDesign, designInputOf, SAMPLING_METHOD, type Design } from '../sampling/design.ts';
import { packageVersion } from '../version.ts';
import { loadDesign, type SelectionDesign } from '../selection/design.ts';
import { commitmentDigest, type Commitment } from '../selection/records.ts';
import { verdictOf, type Check, type Verdict } from '../selection/checks.ts';
import { checkPackage } from '../selection/verify.ts';
import {
  observationsReport,
  type Finding,
  type ReportObservations,
  type StratumOrder,
  type PackageDropout,
  type StratumRow,
} from './observations.ts';
import { chartData, type ChartData } from './chart.ts';
import { commitmentDesignChecks, designChecks } from './design-checks.ts';
import type { PackageInputs, ProjectInput, Source } from './inputs.ts';
import { methodOf, type Method } from './method.ts';

/** A drawn household as the package lists it, in the sample and in the replacements alike. */
export interface DrawnHousehold {
  stratum: string;
  /** Its rank in its stratum's order (1 = the lowest ticket). */
  rank: number;
  household_id: string;
  ticket: string;
}

interface ReportInput {
  title?: string;
  generatedAt: Date;
  projects: ProjectInput[];
}

export interface ProjectReport {
  projectId: string;
  name: string;
  designId: string;
  designIdSource: string;
  verdict: Verdict | 'design only' | 'committed, not drawn';
  checks: Check[];
  findings: Finding[];
  parameters: Design['parameters'];
  erCoverage: ErCoverage;
  stratification: Design['stratification'];
  /** Each stratum (its dropoutRate: its own, when the design gives it one, else the design's). */
  strata: (StratumRow & { census?: boolean })[];
  method: Method;
  supporting: {
    meanJustification: string | null;
    sdCalculation: string | null;
    observations: ReportObservations | null;
    sources: Source[];
  };
  selection: null | {
    algorithm: string;
    committedAt: string;
    commitmentDigest: string;
    frame: { file: string; households: number; frameHash: string; fileSha256: string };
    beacon: { chainHash: string; scheme: string; round: number; roundTime: string; pinned: boolean };
    strata: { name: string; households: number; sampleSize: number }[];
    proof: null | {
      drawnAt: string;
      randomness: string;
      seed: string;
      /** The drawn sample: per stratum (in the commitment's order) its households in rank order 1..n_h. */
      sample: DrawnHousehold[];
      /**
       * The replacements, the same shape as the sample: per stratum the first n_h after the sample, in rank order
       * (ranks n_h + 1 …); null without selection.csv.
       */
      replacements: DrawnHousehold[] | null;
      matchesCommitment: boolean;
      selectionFile: { file: string; sha256: string; rows: number };
    };
  };
  chart: ChartData;
  /** What re-deriving every number needs (`sample check`). */
  inputs: PackageInputs;
}

export interface Report {
  kind: 'oraclekit/verifier-package';
  version: 2;
  title: string;
  generatedAt: string;
  /** What made the package: oraclekit and its version. */
  generator: { name: 'oraclekit'; version: string };
  /** The method versions: the sample-size chain (docs/sampling.md) and the selection algorithm (docs/selection.md). */
  spec: { sampling: 'sampling.md'; samplingMethod: typeof SAMPLING_METHOD; selection: 'cookstove-sampling/v1' };
  /** Every failed check of every project (shown first). */
  failures: { projectId: string; check: string; kind: 'integrity' | 'trust'; message: string }[];
  projects: ProjectReport[];
}

interface ErCoverage {
  fraction: number;
  percent: string;
  source: string;
  /** "realised": completed / sampled of the field data, once that is counted; "design": the design's assumption. */
  basis: 'design' | 'realised';
  /** The design's assumption, kept beside a realised coverage. */
  designed?: { fraction: number; percent: string; source: string };
}

const percentOf = (x: number): string => `${Number((x * 100).toPrecision(12))} %`;

/**
 * ER coverage as a percentage with where it came from: the realised one (completed / sampled, every stratum
 * counted) once monitoring data give it, the design's assumed one otherwise.
 */
function erCoverageOf(P: Design['parameters'], dropout: PackageDropout | null): ErCoverage {
  const designed = {
    fraction: P.erCoverage,
    percent: percentOf(P.erCoverage),
    source:
      P.erCoverageSource === 'input'
        ? 'given as an input of the design (erCoverage)'
        : `1 − dropout rate (${P.dropoutRate}); no erCoverage was given`,
  };
  if (!dropout || dropout.basis === 'design' || dropout.notCounted.length > 0 || dropout.overall.sampled === 0)
    return { ...designed, basis: 'design' };
  const o = dropout.overall;
  const fraction = o.completed / o.sampled;
  return {
    fraction,
    percent: percentOf(fraction),
    source: `realised: ${o.completed} completed of ${o.sampled} ${dropout.basis === 'selection' ? 'drawn households (the sample and the replacements visited)' : 'sampled households (rows)'}; the design assumed ${designed.percent}`,
    basis: 'realised',
    designed,
  };
}

/** The design recomputed from its own record (null when it cannot be), as `sample calc --input` does. */
function designOf(d: ReturnType<typeof loadDesign>): Design | null {
  try {
    return computeDesign(designInputOf(d.parameters, d.stratification));
  } catch {
    return null;
  }
}

async function projectReport(p: ProjectInput, index: number): Promise<ProjectReport> {
  const d = loadDesign(p.design, `projects[${index}].design`);
  const P = d.parameters;
  const strata = reportStrata(d);
  const checks = designChecks(d);
  const findings: Finding[] = [];
  const c = p.commitment;
  const pr = p.proof;
  const drawn = c ? await selectionReport(p, c, d, checks, findings) : null;
  const selection = drawn?.section ?? null;
  const obs = p.observations;
  const full = designOf(d);
  const figures = figureStrata(strata, c);
  const observations =
    obs && obs.values.length > 0
      ? observationsReport({
          obs,
          design: full ?? ({ parameters: P } as Design),
          stratified: d.stratified,
          strata: figures.strata,
          populations: figures.populations,
          order: drawn?.order ?? null,
          findings,
        })
      : null;
  const method = methodOf(p, d.stratified, full, observations);
  const v = verdictOf(checks);
  return {
    projectId: p.projectId,
    name: p.name ?? p.projectId,
    designId: d.designId,
    designIdSource: d.designIdSource,
    verdict: v !== 'verified' ? v : !c ? 'design only' : !pr ? 'committed, not drawn' : v,
    checks,
    findings,
    parameters: P,
    erCoverage: erCoverageOf(P, observations?.dropout ?? null),
    stratification: d.stratification,
    strata,
    method,
    supporting: {
      meanJustification: p.meanJustification ?? null,
      sdCalculation: p.sdCalculation ?? null,
      observations,
      sources: p.sources ?? [],
    },
    selection,
    inputs: {
      design: p.design,
      commitment: c ?? null,
      proof: pr ?? null,
      publishedAt: p.publishedAt ? p.publishedAt.toISOString() : null,
      seedHex: p.seedHex ?? null,
      observations: obs ?? null,
      files: p.inputFiles ?? [],
      shown: p.files ?? null,
      meanJustification: p.meanJustification ?? null,
      sdCalculation: p.sdCalculation ?? null,
      sources: p.sources ?? [],
      name: p.name ?? null,
    },
    chart: chartData(
      P,
      strata,
      d.stratified,
      (observations?.comparison ?? []).map((k) => ({ stratum: k.stratum, cv: k.cvObserved, kind: observations!.kind })),
    ),
  };
}

/**
 * The strata as every figure of the observations uses them: with a commitment, each stratum's population is the
 * frame's count the commitment records (the households the sample was drawn from, whatever N_h the design
 * assumed); without one, the design's N_h.
 */
function figureStrata(
  strata: ProjectReport['strata'],
  c: Commitment | undefined,
): { strata: StratumRow[]; populations: 'design' | 'frame' } {
  const frame = new Map((c?.strata ?? []).map((s) => [s.name, s.households] as const));
  if (!c || strata.some((s) => !frame.has(s.name))) return { strata, populations: 'design' };
  return { strata: strata.map((s) => ({ ...s, population: frame.get(s.name)! })), populations: 'frame' };
}

/** The design's strata as the package shows them: one "all" stratum for an unstratified design. */
function reportStrata(d: SelectionDesign): ProjectReport['strata'] {
  const P = d.parameters;
  return d.stratified
    ? d.stratification.strata.map((s) => ({
        name: s.name,
        population: s.population,
        sampleSize: s.sampleSize,
        calculatedSize: s.calculatedSize,
        mean: s.mean,
        sd: s.sd,
        cv: s.cv ?? s.sd / s.mean,
        census: s.census,
        ...(typeof s.dropoutRate === 'number' ? { dropoutRate: s.dropoutRate } : {}),
      }))
    : [
        {
          name: 'all',
          population: P.population,
          sampleSize: P.adjustedSize,
          calculatedSize: P.calculatedSize,
          mean: P.expectedMean,
          sd: P.expectedSD,
          cv: P.expectedSD / P.expectedMean,
          census: P.calculatedSize === P.population,
        },
      ];
}

/**
 * The commitment against this design (its designId, strata and n_h), then every check of `checkPackage` on it, the
 * proof, selection.csv and the frame as given; the selection section of the package.
 */
async function selectionReport(
  p: ProjectInput,
  c: Commitment,
  d: SelectionDesign,
  checks: Check[],
  findings: Finding[],
): Promise<{ section: ProjectReport['selection']; order: StratumOrder[] | null }> {
  const pr = p.proof;
  const digest = commitmentDigest(c);
  checks.push(...commitmentDesignChecks(c, d));
  const pc = await checkPackage({
    commitment: c,
    ...(pr ? { proof: pr } : {}),
    ...(p.selectionPath ? { selectionPath: p.selectionPath } : {}),
    ...(p.framePath ? { framePath: p.framePath } : {}),
    ...(p.publishedAt ? { publishedAt: p.publishedAt } : {}),
    ...(p.seedHex !== undefined ? { seedHex: p.seedHex } : {}),
  });
  checks.push(...pc.checks);
  for (const f of pc.findings) findings.unshift({ severity: 'warning', message: f });
  const rp = c.beacon.chain;
  const section: ProjectReport['selection'] = {
    algorithm: c.algorithm,
    committedAt: c.committedAt,
    commitmentDigest: digest,
    frame: {
      file: c.frame.file,
      households: c.frame.households,
      frameHash: c.frame.frameHash,
      fileSha256: c.frame.fileSha256,
    },
    beacon: {
      chainHash: rp.hash,
      scheme: rp.schemeID,
      round: c.beacon.round,
      roundTime: c.beacon.roundTime,
      pinned: !pc.checks.some((x) => x.check === 'chain pinned' && x.status === 'fail'),
    },
    strata: c.strata.map((s) => ({ name: s.name, households: s.households, sampleSize: s.sampleSize })),
    proof: pr
      ? {
          drawnAt: pr.drawnAt,
          randomness:
            pr.randomness.source === 'drand'
              ? `drand round ${pr.randomness.round}: ${pr.randomness.randomness}`
              : `supplied with --seed-hex (not a beacon): ${pr.randomness.randomness}`,
          seed: pr.seed,
          sample: pr.strata.flatMap((s) => s.sample.map((x) => ({ stratum: s.name, ...x }))),
          replacements: pc.replacements ? pc.replacements.flat() : null,
          matchesCommitment: pr.commitmentDigest === digest,
          selectionFile: pr.selection,
        }
      : null,
  };
  return { section, order: pc.order };
}

export async function buildReport(input: ReportInput): Promise<Report> {
  const projects: ProjectReport[] = [];
  for (let i = 0; i < input.projects.length; i++) projects.push(await projectReport(input.projects[i]!, i));
  return {
    kind: 'oraclekit/verifier-package',
    version: 2,
    title: input.title ?? "Sampling design and household selection — verifier's package",
    generatedAt: input.generatedAt.toISOString(),
    generator: { name: 'oraclekit', version: packageVersion() },
    spec: { sampling: 'sampling.md', samplingMethod: SAMPLING_METHOD, selection: 'cookstove-sampling/v1' },
    failures: projects.flatMap((p) =>
      p.checks
        .filter((c) => c.status === 'fail')
        .map((c) => ({ projectId: p.projectId, check: c.check, kind: c.kind, message: c.message })),
    ),
    projects,
  };
}
