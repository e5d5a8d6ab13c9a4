/**
 * The flags of every `sample` command, declared once as specs (src/cli/flag-spec.ts): oclif's
 * flags are built from them (`toOclifFlags`), and the fast path of `sample calc`, `sample recalc`
 * and `sample select draw` (src/cli/fast-path.ts) parses and checks the same specs. This module
 * imports nothing but the spec types, so the fast path loads it cheaply; the commands' run
 * functions import their flag types from here, which keeps the modules of src/cli/sample free of
 * import cycles.
 */
import { PAGE_FLAGS, REGISTRY_FLAGS, type FlagSpecs, type CommandFlagSpecs, type ParsedFlags } from '../flag-spec.ts';

/** Every sample command prints data and has --json (BaseCommand.baseFlags). */
type WithJson = { json: boolean };

/** The pinned public drand chains (PINNED_CHAINS in src/lib/beacon/drand.ts; a unit test keeps the two equal). */
export const CHAIN_NAMES = ['quicknet', 'default'] as const;

/** --format of the commands that print a design (calc, recalc). */
const FORMAT_FLAG = {
  type: 'string',
  char: 'f',
  description: 'Output format.',
  options: ['table', 'csv', 'markdown'],
  default: 'table',
} as const;

export const CALC_FLAGS = {
  population: { type: 'string', char: 'N', description: 'Households in the frame (N), an integer >= 1.' },
  mean: { type: 'string', description: 'Expected mean of the indicator (e.g. hours of stove use per day), > 0.' },
  sd: { type: 'string', description: 'Expected standard deviation, > 0.' },
  proportion: {
    type: 'string',
    description: 'Expected proportion p (0 < p < 1) instead of --mean/--sd: mean = p, SD = sqrt(p(1−p)).',
  },
  dropout: { type: 'string', description: 'Expected dropout rate, a fraction 0 <= d < 1 (0.15, not 15).' },
  stratum: {
    type: 'string',
    multiple: true,
    description: 'A stratum as name=weight[:mean:sd]; repeat for each. Weights sum to 1.',
  },
  'er-coverage': { type: 'string', description: 'ER coverage to record (0..1); default 1 − dropout.' },
  confidence: { type: 'string', description: 'Accepted only as 0.95.' },
  precision: { type: 'string', description: 'Accepted only as 0.05 (relative).' },
  input: { type: 'string', char: 'i', description: 'A JSON design body (the POST /v1/sampling body); - for stdin.' },
  format: FORMAT_FLAG,
  explain: {
    type: 'boolean',
    description: 'Show each step of the chain with the numbers substituted, its source and rounding.',
  },
  compare: {
    type: 'boolean',
    description: 'Stratified designs: compare with one overall size allocated proportionally and by Neyman.',
  },
  sensitivity: { type: 'boolean', description: 'A grid of adjustedSize over CVs and dropout rates around the inputs.' },
  save: {
    type: 'boolean',
    description: 'Store the design in the registry (POST /v1/sampling) for --project; prints the stored record.',
    helpGroup: 'REGISTRY',
  },
  project: { type: 'string', description: "The project's DID, with --save.", helpGroup: 'REGISTRY' },
  ...REGISTRY_FLAGS,
} as const satisfies FlagSpecs;

export const RECALC_FLAGS = {
  previous: {
    type: 'string',
    char: 'p',
    description: 'The previous design (JSON of `sample calc --json`, or a registry design record).',
  },
  population: { type: 'string', char: 'N', description: 'Households in the frame, when there is no previous design.' },
  mean: { type: 'string', description: 'Observed mean (overall).' },
  sd: { type: 'string', description: 'Observed standard deviation (overall).' },
  dropout: { type: 'string', description: 'Observed dropout rate, 0 <= d < 1 (default: the previous design’s).' },
  'er-coverage': { type: 'string', description: 'ER coverage to record (0..1).' },
  observed: {
    type: 'string',
    multiple: true,
    description: 'Observed values of a stratum as name=mean:sd; repeat per stratum.',
  },
  observations: {
    type: 'string',
    char: 'o',
    description:
      'Raw observations CSV with a header household,value[,stratum] (comma- or semicolon-separated; an empty or NA value marks a household sampled but not completed); - for stdin.',
  },
  signed: {
    type: 'boolean',
    description: 'The observed quantity may be negative (by default a negative usage value is refused).',
    default: false,
  },
  input: {
    type: 'string',
    char: 'i',
    description:
      'Observed values as JSON {mean?, sd?, dropoutRate?, erCoverage?, strata?: [{name, mean?, sd?}]}; - for stdin.',
  },
  format: FORMAT_FLAG,
} as const satisfies FlagSpecs;

/** One spec for oclif and the fast path (src/cli/fast-path.ts): a 10^6-household draw should not wait for oclif. */
export const DRAW_FLAGS = {
  commitment: {
    type: 'string',
    char: 'c',
    description: 'The commitment JSON written by `sample select commit`.',
    required: true,
  },
  frame: {
    type: 'string',
    char: 'f',
    description: 'The household frame CSV the commitment was made on.',
    required: true,
  },
  beacon: {
    type: 'string',
    char: 'b',
    description: 'The committed drand round as JSON ({round, randomness, signature[, previous_signature]}).',
    exactlyOne: ['beacon', 'seed-hex'],
  },
  'seed-hex': {
    type: 'string',
    description:
      'A verification authority performing the selection itself: its own randomness (hex, 16 to 128 bytes) instead of the beacon. Only that verifier can accept the result (`sample verify --seed-hex` with the same value).',
    exactlyOne: ['beacon', 'seed-hex'],
  },
  'out-dir': {
    type: 'string',
    char: 'o',
    description: 'Directory for selection.csv and proof.json (created if missing).',
    default: '.',
  },
  force: { type: 'boolean', description: 'Overwrite existing selection.csv / proof.json.', default: false },
} as const satisfies FlagSpecs;

export const VERIFY_FLAGS = {
  frame: { type: 'string', char: 'f', description: 'The household frame CSV.', required: true },
  commitment: { type: 'string', char: 'c', description: 'The published commitment JSON.', required: true },
  proof: { type: 'string', char: 'p', description: 'The proof JSON written by `sample select draw`.', required: true },
  selection: { type: 'string', char: 's', description: 'Also check every row of this selection.csv.' },
  'published-at': {
    type: 'string',
    description:
      'When the commitment was published: the time you (or a public record you trust — registry, e-mail, repository) first had it, ISO 8601 with a time zone. Must be before the committed round; without it the selection is untrusted (exit 11).',
  },
  'seed-hex': {
    type: 'string',
    description:
      'If you performed the selection yourself (`draw --seed-hex`): your randomness. The proof must use exactly it.',
  },
} as const satisfies FlagSpecs;

export const REPORT_FLAGS = {
  manifest: {
    type: 'string',
    char: 'm',
    description: 'A manifest JSON listing several projects (exclusive with --design).',
    exclusive: ['design'],
  },
  design: {
    type: 'string',
    char: 'd',
    description: 'Design JSON of one project (`sample calc --json` output or a registry record).',
  },
  'project-id': {
    type: 'string',
    description: 'Project ID (default: the design record\'s projectId, else "project-1").',
  },
  name: { type: 'string', description: 'Project name shown in the report.' },
  commitment: { type: 'string', char: 'c', description: 'The selection commitment JSON.' },
  proof: { type: 'string', char: 'p', description: 'The selection proof JSON.' },
  selection: {
    type: 'string',
    char: 's',
    description:
      'selection.csv: its order, tickets and frameHash are re-checked, and the replacement order is included.',
  },
  frame: {
    type: 'string',
    char: 'f',
    description: 'The household frame CSV: the full verification of `sample verify` is run too.',
  },
  'published-at': {
    type: 'string',
    description:
      'When the commitment was published (ISO 8601 with a time zone): the randomness is trusted only if the round came after it.',
  },
  'seed-hex': {
    type: 'string',
    description: 'If the verifier performed the selection itself: its randomness (the proof must use exactly it).',
  },
  observations: {
    type: 'string',
    description: 'Baseline or monitoring observations CSV: household,value[,stratum] (as for `sample recalc`).',
  },
  signed: {
    type: 'boolean',
    description: 'The observed quantity may be negative (by default a negative usage value is refused).',
    default: false,
  },
  'observations-kind': {
    type: 'string',
    description: 'What the observations are.',
    options: ['baseline', 'monitoring'],
    default: 'baseline',
  },
  'include-undrawn': {
    type: 'boolean',
    description:
      'Monitoring observations of frame households that were not drawn (or replacements out of rank order) count in the figures too; by default only drawn households count. Recorded in the package.',
    default: false,
  },
  'mean-justification': { type: 'string', description: 'Why the expected mean is what it is (text).' },
  'sd-calculation': { type: 'string', description: 'How the expected SD was obtained (text).' },
  source: { type: 'string', description: 'A source, "label|citation|url" (repeatable).', multiple: true },
  title: { type: 'string', description: 'Report title.' },
  out: {
    type: 'string',
    char: 'o',
    description: 'HTML file to write; the JSON goes beside it with .json.',
    default: 'verifier-package.html',
  },
  'allow-failed': {
    type: 'boolean',
    description: 'Exit 0 even when checks failed (they are still shown, in red, at the top of the package).',
    default: false,
  },
} as const satisfies FlagSpecs;

export const COMMIT_FLAGS = {
  design: {
    type: 'string',
    char: 'd',
    description:
      'Design JSON: `sample calc --json` output, a registry record, or a calc input. Its sizes must follow from its parameters.',
    exactlyOne: ['design', 'population'],
  },
  population: {
    type: 'integer',
    char: 'N',
    description: 'Instead of --design: an unstratified design computed here (with --mean, --sd, --dropout).',
    exactlyOne: ['design', 'population'],
    dependsOn: ['mean', 'sd', 'dropout'],
  },
  mean: { type: 'string', description: 'Expected mean (with -N).', dependsOn: ['population'] },
  sd: { type: 'string', description: 'Expected SD (with -N).', dependsOn: ['population'] },
  dropout: {
    type: 'string',
    description: 'Expected dropout rate, a fraction 0 <= d < 1 (with -N).',
    dependsOn: ['population'],
  },
  'er-coverage': {
    type: 'string',
    description: 'ER coverage, a fraction (with -N; default 1 - dropout).',
    dependsOn: ['population'],
  },
  frame: {
    type: 'string',
    char: 'f',
    description: 'Household frame CSV with a household_id column (stratum and adopter optional; other columns kept).',
    required: true,
  },
  'accept-population-mismatch': {
    type: 'boolean',
    description:
      "Commit although the frame has more households than the design's population (in a stratum): the commitment records the mismatch and the precision the committed sizes really give, and `sample verify` and the package show it as a finding. Without it such a frame is refused.",
    default: false,
  },
  chain: {
    type: 'string',
    description: 'The public drand chain whose round fixes the randomness (pinned in oraclekit; default quicknet).',
    options: CHAIN_NAMES,
    exclusive: ['untrusted-chain-info'],
  },
  'untrusted-chain-info': {
    type: 'string',
    description:
      "TESTS ONLY: a drand chain info JSON file of another chain. `sample verify` will refuse the selection as untrusted (exit 11): whoever holds that chain's key can choose the randomness.",
    exclusive: ['chain'],
  },
  round: {
    type: 'integer',
    description: 'The beacon round to use; must be produced after now. Default: the first round after now + --delay.',
  },
  delay: {
    type: 'integer',
    description: 'Seconds between the commitment and the beacon round (time to publish the commitment).',
    default: 3600,
    min: 0,
  },
  out: { type: 'string', char: 'o', description: 'Where to write the commitment JSON.', default: 'commitment.json' },
  force: { type: 'boolean', description: 'Overwrite an existing --out file.', default: false },
} as const satisfies CommandFlagSpecs;

export const BEACON_FLAGS = {
  commitment: {
    type: 'string',
    char: 'c',
    description: 'The commitment JSON: its chain and round are fetched (no --round or --chain needed).',
  },
  round: { type: 'integer', description: 'The round to fetch (with --chain, or checked against --commitment).' },
  chain: {
    type: 'string',
    description: 'The pinned drand chain of --round (default quicknet).',
    options: CHAIN_NAMES,
    exclusive: ['commitment'],
  },
  relay: {
    type: 'string',
    multiple: true,
    description:
      'A drand HTTP relay to ask, tried in order (repeatable). Default: https://api.drand.sh, https://api2.drand.sh, https://api3.drand.sh, https://drand.cloudflare.com.',
  },
  out: { type: 'string', char: 'o', description: 'Where to write the round JSON (default round-<round>.json).' },
  force: { type: 'boolean', description: 'Overwrite an existing --out file.', default: false },
} as const satisfies CommandFlagSpecs;

export type CalcFlags = ParsedFlags<typeof CALC_FLAGS> & WithJson;
export type RecalcFlags = ParsedFlags<typeof RECALC_FLAGS> & WithJson;
export type DrawFlags = ParsedFlags<typeof DRAW_FLAGS> & WithJson;
export type CommitFlags = ParsedFlags<typeof COMMIT_FLAGS> & WithJson;
export type VerifyFlags = ParsedFlags<typeof VERIFY_FLAGS> & WithJson;
export type ReportFlags = ParsedFlags<typeof REPORT_FLAGS> & WithJson;
export type BeaconFlags = ParsedFlags<typeof BEACON_FLAGS> & WithJson;

/** `sample list` (the registry's stored designs). */
export const LIST_FLAGS = {
  project: { type: 'string', description: 'Only designs of this project DID.' },
  ...PAGE_FLAGS,
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;

/** `sample approve`. */
export const APPROVE_FLAGS = {
  reject: { type: 'boolean', description: 'Reject instead of approve.', default: false, exclusive: ['submit'] },
  submit: {
    type: 'boolean',
    description: 'Submit the draft for verification (creator or project controller).',
    default: false,
  },
  reason: { type: 'string', description: 'A note stored with the verification.' },
  ...REGISTRY_FLAGS,
} as const satisfies CommandFlagSpecs;
