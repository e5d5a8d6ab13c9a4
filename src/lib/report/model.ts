/**
 * The verifier's package (`sample report`): per project the checks it ran
 * (the design recomputed from its own parameters, the commitment, the
 * beacon, the trust in the randomness, the seed, every listed ticket,
 * selection.csv and the frame when given), the method (the formulas with
 * this design's numbers, the selection algorithm in full, the commands and
 * an independent Python recipe), the design, the supporting data compared
 * with the design, the chart, and the commitment, proof, sample and
 * replacement order. The model is data; html.ts renders it.
 */
import { computeDesign, designInputOf, SAMPLING_METHOD, type Design } from '../sampling/design.ts';
import { packageVersion } from '../version.ts';
import { canonicalJson } from '../hash.ts';
import { explainDesign, type Explanation } from '../sampling/explain.ts';
import { designDiscrepancies, loadDesign } from '../selection/design.ts';
import { ALGORITHM } from '../selection/hash.ts';
import type { Commitment, Proof } from '../selection/records.ts';
import { commitmentDigest } from '../selection/records.ts';
import { verdictOf, type Check, type Verdict } from '../selection/checks.ts';
import { checkPackage } from '../selection/verify.ts';
import {
  observationsReport,
  type Finding,
  type Observation,
  type ReportObservations,
  type StratumOrder,
  type PackageDropout,
  type StratumRow,
} from './observations.ts';
import { pyTrim, pythonRecipe } from './recipe.ts';
import { chartData, type ChartData } from './chart.ts';
import { shellQuote } from '../shell.ts';

/** A drawn household as the package lists it, in the sample and in the replacements alike. */
export interface DrawnHousehold {
  stratum: string;
  /** Its rank in its stratum's order (1 = the lowest ticket). */
  rank: number;
  household_id: string;
  ticket: string;
}

export interface Source {
  label: string;
  citation?: string;
  url?: string;
}

/** "label|citation|url" → a Source. */
export function parseSource(text: string): Source {
  const [label, citation, url] = text.split('|').map((x) => x.trim());
  const s: Source = { label: label || text };
  if (citation) s.citation = citation;
  if (url) s.url = url;
  return s;
}

export interface ProjectInput {
  projectId: string;
  name?: string;
  design: unknown;
  commitment?: Commitment;
  proof?: Proof;
  /** selection.csv: the order and replacements are checked (and shown) without the frame. */
  selectionPath?: string;
  /** The frame: the full verification of `sample verify` too. */
  framePath?: string;
  /**
   * The paths as they were given (on the command line, or as the manifest writes them), for the commands and the
   * recipe: the verifier runs exactly what was run.
   */
  files?: {
    design?: string;
    commitment?: string;
    proof?: string;
    selection?: string;
    frame?: string;
    observations?: string;
    /** The manifest the project came from: its paths are relative to its folder. */
    manifest?: string;
  };
  /** The sha256 of every input file as it was read (carried into the package for `sample check`). */
  inputFiles?: InputFile[];
  /** When the commitment was published (the verifier's trust check). */
  publishedAt?: Date;
  /** A verifier that performed the selection itself: its randomness. */
  seedHex?: string;
  /**
   * includeUndrawn: monitoring observations of frame households that were not drawn count in the figures too (by
   * default only the drawn households do); recorded in the package.
   */
  observations?: { kind: 'baseline' | 'monitoring'; file?: string; values: Observation[]; includeUndrawn?: boolean };
  meanJustification?: string;
  sdCalculation?: string;
  sources?: Source[];
}

/** An input file of a project, as read: its role, its path (relative to the package once written) and sha256. */
export interface InputFile {
  role: 'design' | 'commitment' | 'proof' | 'selection' | 'frame' | 'observations';
  path: string;
  sha256: string;
}

/**
 * What re-deriving the project needs, carried in the package: the design, the commitment (with the chain's public
 * key), the proof (the beacon round with its signature), the observations' rows, the verifier's inputs, and the
 * sha256 of every input file. `sample check` rebuilds the project from these and compares.
 */
export interface PackageInputs {
  design: unknown;
  commitment: Commitment | null;
  proof: Proof | null;
  publishedAt: string | null;
  seedHex: string | null;
  observations: ProjectInput['observations'] | null;
  files: InputFile[];
  shown: ProjectInput['files'] | null;
  meanJustification: string | null;
  sdCalculation: string | null;
  sources: Source[];
  name: string | null;
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
  method: {
    /** The chain with this design's numbers (as `sample calc --explain`), computed from the design's own parameters. */
    sizes: Explanation[] | null;
    selection: string[];
    commands: string[];
    python: string | null;
    definitions: string[];
  };
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

const SELECTION_DEFINITIONS = [
  `Trimmed: exactly these characters are removed from both ends of an ID, a stratum value and a header name — U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF (ECMAScript's white space and line terminators, listed). Python: s.strip(TRIM) with that list; str.strip() without it differs (it strips U+001C–U+001F and U+0085, keeps U+FEFF). No Unicode normalisation.`,
  'Stratum matching: a frame\'s stratum value, trimmed, equals a design stratum name when they are identical after lower-casing ASCII A–Z only ("LOWLAND" = "Lowland"; "straße" ≠ "STRASSE"; "É" ≠ "é"). Python: s.strip(TRIM).encode("utf-8").lower(). Tickets use the design\'s spelling.',
  'IDs: unique after trimming, non-empty, without U+001F; compared and sorted by their UTF-8 bytes.',
  'Frame CSV: RFC 4180 (comma, " quoting with "" escapes, line breaks inside quotes), LF or CRLF (a lone CR is not a line end), an optional UTF-8 BOM, blank lines skipped; header names trimmed and matched case-insensitively (household_id, stratum).',
  'Canonical JSON (designId, commitmentDigest): no whitespace; keys sorted by code point; strings as JSON.stringify (UTF-8, only ", \\ and U+0000–U+001F escaped); numbers as ECMAScript Number::toString (shortest round-trip; 1, not 1.0; 0.00001; 1e-7; 1e+21).',
  'selection.csv: UTF-8 without BOM, LF line ends, header stratum,rank,role,household_id,ticket then the frame\'s other columns; a generated cell is quoted only if it holds , " CR or LF ("" inside); the frame\'s cells are copied byte for byte as they were in the frame.',
];

function selectionSteps(c: Commitment | undefined, p: Proof | undefined): string[] {
  const fh = c?.frame.frameHash ?? '<frameHash>';
  const rnd = p?.randomness.randomness ?? '<beacon randomness>';
  const strata = c
    ? c.strata.map((s) => `${s.name}: n_h = ${s.sampleSize} of ${s.households}`).join('; ')
    : '<n_h per stratum>';
  return [
    `Frame: every household of ${c ? `${c.frame.file} (${c.frame.households} households)` : 'the frame'}, non-adopters included; IDs trimmed, unique, without U+001F. Nothing reads the adopter column.`,
    `frameHash = SHA-256 of all IDs sorted by their UTF-8 bytes, each followed by "\\n" = ${fh}.`,
    `Commitment (published before the round exists): designId, frameHash, n_h per stratum (${strata}), the algorithm id and a future drand round${c ? ` — round ${c.beacon.round} of chain ${c.beacon.chain.hash.slice(0, 16)}… at ${c.beacon.roundTime}, committedAt ${c.committedAt}` : ''}.`,
    `randomness = the round's randomness = SHA-256(BLS signature)${p?.randomness.source === 'drand' ? ` = ${rnd}` : p ? ` (supplied by the verifier: ${rnd})` : ''}; the signature verifies against the chain's public key.`,
    `seed = SHA-256("${ALGORITHM}" as UTF-8 ‖ frameHash (32 bytes) ‖ randomness (bytes))${p ? ` = ${p.seed}` : ''}.`,
    'ticket(id) = HMAC-SHA256(key = seed (32 bytes), message = UTF-8(stratum name + U+001F + id)), as lowercase hex; the stratum name is the design\'s ("all" for an unstratified design).',
    'In each stratum sort the households by (ticket, ID bytes): ranks 1..n_h are the sample; the rest, in order, the replacement list (used strictly in order, only for dropouts, a reason logged for each).',
    'orderDigest (per stratum) = SHA-256 of the IDs in rank order, each followed by "\\n"; proof.selection.sha256 = SHA-256 of selection.csv.',
  ];
}

function commands(p: ProjectInput, c: Commitment | undefined, proof: Proof | undefined): string[] {
  const f = {
    design: 'design.json',
    commitment: 'commitment.json',
    proof: 'proof.json',
    selection: 'selection.csv',
    frame: c?.frame.file ?? 'households.csv',
    ...p.files,
  };
  const q = shellQuote;
  const out: string[] = [];
  if (f.manifest)
    out.push(`# in the folder of ${q(f.manifest)}: the paths are the ones it gives, relative to that folder`);
  out.push(
    `oraclekit sample calc --input ${q(f.design)} --explain   # recomputes the design from its own record: the sizes above`,
  );
  const obs = p.observations;
  if (obs && f.observations && obs.kind === 'monitoring')
    out.push(`oraclekit sample recalc --previous ${q(f.design)} --observations ${q(f.observations)}`);
  const published = p.publishedAt ? p.publishedAt.toISOString() : `<when you first had ${f.commitment}>`;
  if (c && proof) {
    out.push(
      `oraclekit sample verify --frame ${q(f.frame)} --commitment ${q(f.commitment)} --proof ${q(f.proof)} --selection ${q(f.selection)} --published-at ${published}`,
    );
    if (proof.randomness.source === 'verifier')
      out.push(
        `# the randomness was supplied by a verifier: only that verifier can accept it, with --seed-hex ${proof.randomness.randomness}`,
      );
  } else if (c) {
    out.push(
      `# after round ${c.beacon.round}: oraclekit sample select draw --commitment ${q(f.commitment)} --frame ${q(f.frame)} --beacon round-${c.beacon.round}.json --out-dir selection`,
    );
  }
  if (f.manifest) out.push(`oraclekit sample report --manifest ${q(basenameOf(f.manifest))} --out package.html`);
  else {
    const args = [`--design ${q(f.design)}`];
    if (c) args.push(`--commitment ${q(f.commitment)}`);
    if (c && proof) args.push(`--proof ${q(f.proof)}`, `--selection ${q(f.selection)}`);
    if (c && p.framePath) args.push(`--frame ${q(f.frame)}`);
    if (c) args.push(`--published-at ${published}`);
    if (obs && f.observations)
      args.push(
        `--observations ${q(f.observations)} --observations-kind ${obs.kind}${obs.includeUndrawn ? ' --include-undrawn' : ''}`,
      );
    out.push(`oraclekit sample report ${args.join(' ')} --out package.html`);
  }
  return out;
}

const basenameOf = (path: string): string => path.split(/[\\/]/).pop() ?? path;

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
  const method: ProjectReport['method'] = {
    sizes: full ? explainDesign(full) : null,
    selection: selectionSteps(c, pr),
    commands: commands(p, c, pr),
    python: c
      ? pythonRecipe({
          commitment: p.files?.commitment ?? 'commitment.json',
          proof: p.files?.proof ?? 'proof.json',
          frame: p.files?.frame ?? c.frame.file,
          stratified: d.stratified,
          ...(observations && obs
            ? {
                observations: {
                  file: p.files?.observations ?? obs.file ?? 'observations.csv',
                  projectId: p.projectId,
                  matched: observations.draw !== null,
                  includeUndrawn: obs.includeUndrawn === true,
                },
              }
            : {}),
        })
      : null,
    definitions: [...SELECTION_DEFINITIONS, `The trim list as a Python literal: TRIM = ${pyTrim()}`],
  };
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

type LoadedDesign = ReturnType<typeof loadDesign>;

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
function reportStrata(d: LoadedDesign): ProjectReport['strata'] {
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

/** The design's integrity check: every size follows from its own parameters, or one failure per size that does not. */
function designChecks(d: LoadedDesign): Check[] {
  const bad = designDiscrepancies(d.parameters, d.stratification);
  if (bad.length > 0)
    return bad.map((b) => ({ check: 'design', kind: 'integrity', status: 'fail', message: `design: ${b.message}` }));
  return [
    {
      check: 'design',
      kind: 'integrity',
      status: 'pass',
      message: "every size follows from the design's own parameters (the chain of `sample calc`, recomputed)",
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
  d: LoadedDesign,
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

/** A provenance block in words: the generator and its version, the method, when. */
function provenanceText(p: Record<string, unknown>): string {
  const g = p.generator as { name?: unknown; version?: unknown } | undefined;
  const parts = [
    g && typeof g === 'object' ? `${String(g.name ?? '')} ${String(g.version ?? '')}`.trim() : '',
    typeof p.method === 'string' ? p.method : '',
    typeof p.generatedAt === 'string' ? `generated ${p.generatedAt}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : canonicalJson(p);
}

/** The commitment is for this design: its designId, and its strata and n_h as the design's. */
function commitmentDesignChecks(c: Commitment, d: LoadedDesign): Check[] {
  const same = c.designId === d.designId;
  const out: Check[] = [
    {
      check: 'commitment.designId',
      kind: 'integrity',
      status: same ? 'pass' : 'fail',
      message: same
        ? `the commitment is for this design (${d.designId})`
        : `the commitment is for design ${c.designId}; this project's design is ${d.designId}`,
    },
  ];
  const committedProvenance = c.design.provenance;
  if (committedProvenance !== undefined) {
    const given = d.provenance === undefined ? null : canonicalJson(d.provenance);
    const ok = given === canonicalJson(committedProvenance);
    out.push({
      check: 'commitment.design.provenance',
      kind: 'integrity',
      status: ok ? 'pass' : 'fail',
      message: ok
        ? `the design's provenance is the committed one (${provenanceText(committedProvenance)})`
        : `the commitment records the design's provenance ${canonicalJson(committedProvenance)}; this project's design has ${given ?? 'none'}`,
    });
  }
  const sizes = d.strata.map((s) => s.sampleSize);
  const committed = c.strata.map((s) => s.sampleSize);
  if (
    JSON.stringify(sizes) !== JSON.stringify(committed) ||
    JSON.stringify(d.strata.map((s) => s.name)) !== JSON.stringify(c.strata.map((s) => s.name))
  ) {
    out.push({
      check: 'commitment.strata',
      kind: 'integrity',
      status: 'fail',
      message: `the commitment's strata and n_h (${c.strata.map((s) => `${s.name} ${s.sampleSize}`).join(', ')}) are not the design's (${d.strata.map((s) => `${s.name} ${s.sampleSize}`).join(', ')})`,
    });
  }
  return out;
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
