/**
 * The method section of a project in the verifier's package: the sample-size chain with this design's numbers, the
 * selection algorithm in words with this project's values, the definitions it relies on, the commands that re-derive
 * every number, and the independent Python recipe.
 */
import type { Design } from '../sampling/design.ts';
import { explainDesign, type Explanation } from '../sampling/explain.ts';
import { ALGORITHM } from '../selection/hash.ts';
import type { Commitment, Proof } from '../selection/records.ts';
import { shellQuote } from '../shell.ts';
import type { ProjectInput } from './inputs.ts';
import type { ReportObservations } from './observations.ts';
import { pyTrim, pythonRecipe } from './recipe.ts';

export interface Method {
  /** The chain with this design's numbers (as `sample calc --explain`), computed from the design's own parameters. */
  sizes: Explanation[] | null;
  selection: string[];
  commands: string[];
  python: string | null;
  definitions: string[];
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

/**
 * The method of project `p`: `full` is its design recomputed from its own record (null when it cannot be),
 * `observations` the figures of its observations, when it has some.
 */
export function methodOf(
  p: ProjectInput,
  stratified: boolean,
  full: Design | null,
  observations: ReportObservations | null,
): Method {
  const c = p.commitment;
  const pr = p.proof;
  const obs = p.observations;
  return {
    sizes: full ? explainDesign(full) : null,
    selection: selectionSteps(c, pr),
    commands: commands(p, c, pr),
    python: c
      ? pythonRecipe({
          commitment: p.files?.commitment ?? 'commitment.json',
          proof: p.files?.proof ?? 'proof.json',
          frame: p.files?.frame ?? c.frame.file,
          stratified,
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
}
