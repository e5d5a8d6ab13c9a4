/**
 * The three steps of a verifiable selection (docs/selection.md):
 *  commit — frame + design + a future drand round -> commitment (publish it);
 *  draw   — commitment + frame + the round's beacon (or a verifier's
 *           randomness) -> selection.csv and proof.json;
 *  verify — in verify.ts.
 */
import { basename, join } from 'node:path';
import {
  firstRoundAfter,
  parseBeaconRound,
  parseChainInfo,
  roundTime,
  verifyBeaconRound,
  verifyBeaconRoundInWorker,
  type ChainInfo,
} from '../beacon/drand.ts';
import { assertDesignConsistent, populationMismatch, populationMismatchText, type SelectionDesign } from './design.ts';
import { selectionError } from './errors.ts';
import { hashFrame, readFrame, rowsByStratum, UNSTRATIFIED, type Frame } from './frame.ts';
import { ALGORITHM, computeSeed } from './hash.ts';
import { writeSelectionCsv } from './output.ts';
import { commitmentDigest, type Commitment, type Proof } from './records.ts';
import { checkSizes, selectFrame, ticketHex, type FrameSelection } from './select.ts';

export interface Progress {
  phase: 'read' | 'hash' | 'tickets' | 'write' | 'beacon';
  /** Units done (bytes read, tickets computed, rows written) and the total when known. */
  done?: number;
  total?: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

interface CommitOptions {
  design: SelectionDesign;
  framePath: string;
  chain: ChainInfo;
  /** An explicit round; must be produced after `now`. */
  round?: number;
  /** Otherwise: the first round produced after now + delaySeconds. */
  delaySeconds: number;
  now: Date;
  /** Commit although the frame is larger than the design's population; the mismatch is then recorded. */
  acceptPopulationMismatch?: boolean;
  onProgress?: (p: Progress) => void;
}

interface CommitResult {
  commitment: Commitment;
  notes: string[];
}

/** Reads a frame with the given strata, then groups its rows by stratum and hashes them (the read and hash phases). */
export async function loadFrame(
  strata: string[],
  framePath: string,
  onProgress?: (p: Progress) => void,
): Promise<{ frame: Frame; by: Uint32Array[]; hashes: ReturnType<typeof hashFrame> }> {
  const frame = await readFrame(framePath, {
    strata,
    onProgress: (done, total) => onProgress?.({ phase: 'read', done, total }),
  });
  onProgress?.({ phase: 'hash' });
  const by = rowsByStratum(frame);
  return { frame, by, hashes: hashFrame(frame, by) };
}

/**
 * The beacon round a commitment names: the explicit one, which must be produced after `now` (randomness must
 * not exist when the commitment is made), or the first round after now + delaySeconds.
 */
function commitRound(o: CommitOptions): number {
  const nowSec = o.now.getTime() / 1000;
  if (o.round === undefined) return firstRoundAfter(o.chain, nowSec + o.delaySeconds);
  const round = o.round;
  if (roundTime(o.chain, round) <= nowSec) {
    throw selectionError(
      'round_not_in_future',
      'round',
      round,
      `a round produced after the commitment time ${o.now.toISOString()} (round ${firstRoundAfter(o.chain, nowSec)} or later)`,
      {
        message: `round ${round} was produced at ${iso(roundTime(o.chain, round) * 1000)}, not after the commitment time ${o.now.toISOString()}; valid: round ${firstRoundAfter(o.chain, nowSec)} or later (randomness must not exist when the commitment is made)`,
      },
    );
  }
  return round;
}

export async function commitSelection(o: CommitOptions): Promise<CommitResult> {
  assertDesignConsistent(o.design);
  const strata = o.design.stratified ? o.design.strata.map((s) => s.name) : [];
  // frame errors in a stable order: row errors (in readFrame, by line), then duplicates, then stratum sizes
  const { frame, by, hashes } = await loadFrame(strata, o.framePath, o.onProgress);
  checkSizes(
    frame,
    by,
    o.design.strata.map((s) => s.sampleSize),
  );
  const mismatch = populationMismatch(
    o.design,
    hashes.strata.map((h) => h.households),
  );
  if (mismatch && !o.acceptPopulationMismatch) {
    throw selectionError(
      'population_mismatch',
      'frame',
      mismatch.strata.map((s) => `${s.name}: ${s.frameHouseholds} > ${s.designPopulation}`),
      `a design recomputed for the frame (\`${mismatch.command}\`), or --accept-population-mismatch to commit it anyway with the mismatch recorded`,
      {
        message: `${frame.file}: ${populationMismatchText(mismatch)}; valid: a design recomputed for the frame — \`${mismatch.command}\` — or --accept-population-mismatch (the commitment then records the mismatch, and \`sample verify\` and the package show it)`,
        details: { strata: mismatch.strata, needed: mismatch.needed },
      },
    );
  }
  const round = commitRound(o);
  const notes: string[] = [];
  if (frame.stratumColumnIgnored)
    notes.push(`the frame's stratum column is ignored: the design is unstratified (one stratum "${UNSTRATIFIED}")`);
  if (mismatch) notes.push(`ACCEPTED POPULATION MISMATCH: ${populationMismatchText(mismatch)}`);
  o.design.strata.forEach((s, i) => {
    const have = hashes.strata[i]!.households;
    if (have < s.designPopulation)
      notes.push(
        `stratum ${s.name}: the frame has ${have} households, the design assumed ${s.designPopulation}; n_h = ${s.sampleSize} is kept as designed`,
      );
  });
  const commitment: Commitment = {
    kind: 'oraclekit/selection-commitment',
    version: 1,
    algorithm: ALGORITHM,
    committedAt: o.now.toISOString(),
    designId: o.design.designId,
    ...(o.design.projectId !== undefined ? { projectId: o.design.projectId } : {}),
    design: {
      parameters: o.design.parameters as unknown as Record<string, unknown>,
      stratification: o.design.stratification as unknown as Record<string, unknown>,
      ...(o.design.provenance ? { provenance: o.design.provenance } : {}),
    },
    frame: {
      file: frame.file,
      fileSha256: frame.fileSha256,
      households: frame.rows,
      columns: frame.header,
      frameHash: hashes.frameHash,
    },
    strata: o.design.strata.map((s, i) => ({
      name: s.name,
      households: hashes.strata[i]!.households,
      sampleSize: s.sampleSize,
      frameHash: hashes.strata[i]!.frameHash,
    })),
    beacon: { chain: o.chain, round, roundTime: iso(roundTime(o.chain, round) * 1000) },
    ...(mismatch ? { populationMismatch: { accepted: true as const, ...mismatch } } : {}),
  };
  return { commitment, notes };
}

/** The randomness of a draw: a drand round JSON or a verifier's hex. */
export type RandomnessInput = { beacon: unknown } | { seedHex: string };

export function parseSeedHex(v: string): string {
  const s = v.trim().toLowerCase().replace(/^0x/, '');
  if (!/^([0-9a-f]{2})+$/.test(s) || s.length < 32 || s.length > 256) {
    throw selectionError(
      'invalid_seed_hex',
      '--seed-hex',
      v,
      "an even-length hex string of 16 to 128 bytes (the verifier's randomness)",
    );
  }
  return s;
}

/** The stratum names a frame is read with for a commitment ([] for an unstratified design). */
export function commitmentStrata(c: Commitment): string[] {
  return c.strata.length === 1 &&
    c.strata[0]!.name === UNSTRATIFIED &&
    (c.design.stratification as { method?: string }).method !== 'proportional'
    ? []
    : c.strata.map((s) => s.name);
}

/**
 * The randomness of a draw. A beacon's round number and randomness =
 * sha256(signature) are checked at once; its BLS signature on a worker
 * thread (`verified`), so the frame can be read meanwhile. Nothing may be
 * written before `verified` resolves.
 */
function resolveRandomness(
  c: Commitment,
  input: RandomnessInput,
  source: string,
  inWorker: boolean,
): { randomness: Proof['randomness']; verified: Promise<void> } {
  if ('seedHex' in input) {
    return {
      randomness: {
        source: 'verifier',
        randomness: parseSeedHex(input.seedHex),
        note: 'randomness supplied with --seed-hex instead of the committed beacon round: only the verifier who chose it can accept this draw',
      },
      verified: Promise.resolve(),
    };
  }
  const chain = parseChainInfo(c.beacon.chain, 'commitment.beacon.chain');
  const beacon = parseBeaconRound(input.beacon, chain, source);
  const verified = inWorker
    ? verifyBeaconRoundInWorker(chain, beacon, c.beacon.round, source)
    : verifyBeaconRound(chain, beacon, c.beacon.round, source);
  verified.catch(() => {}); // observed below; never an unhandled rejection meanwhile
  return {
    randomness: {
      source: 'drand',
      chainHash: chain.hash,
      round: beacon.round,
      randomness: beacon.randomness,
      signature: beacon.signature,
      ...(beacon.previous_signature !== undefined ? { previous_signature: beacon.previous_signature } : {}),
    },
    verified,
  };
}

interface DrawOptions {
  commitment: Commitment;
  framePath: string;
  randomness: RandomnessInput;
  /** Where the beacon came from, for messages. */
  beaconSource?: string;
  outDir: string;
  now: Date;
  onProgress?: (p: Progress) => void;
}

interface DrawResult {
  proof: Proof;
  selectionPath: string;
  proofPath: string;
  selection: FrameSelection;
  frame: Frame;
}

/**
 * Refuses a frame that is not the committed one: its frameHash, each stratum's frameHash, then the file's
 * sha256 (another column edited after the commitment).
 */
function assertFrameCommitted(c: Commitment, frame: Frame, hashes: ReturnType<typeof hashFrame>): void {
  if (hashes.frameHash !== c.frame.frameHash) {
    throw selectionError('frame_mismatch', 'frame', hashes.frameHash, `the committed frameHash ${c.frame.frameHash}`, {
      message: `${frame.file}: frameHash ${hashes.frameHash} is not the committed ${c.frame.frameHash} (${frame.rows} households here, ${c.frame.households} committed); valid: the frame the commitment was made on`,
    });
  }
  hashes.strata.forEach((h, i) => {
    const cs = c.strata[i]!;
    if (h.frameHash !== cs.frameHash) {
      throw selectionError(
        'frame_mismatch',
        `frame (stratum ${cs.name})`,
        h.frameHash,
        `the committed stratum frameHash ${cs.frameHash}`,
        {
          message: `${frame.file}: stratum ${cs.name} has frameHash ${h.frameHash} (${h.households} households), committed ${cs.frameHash} (${cs.households}); valid: the frame the commitment was made on, with the same strata`,
        },
      );
    }
  });
  if (frame.fileSha256 !== c.frame.fileSha256) {
    throw selectionError(
      'frame_mismatch',
      'frame',
      frame.fileSha256,
      `the committed file sha256 ${c.frame.fileSha256}`,
      {
        message: `${frame.file}: the household IDs and strata match the commitment but the file differs (sha256 ${frame.fileSha256}, committed ${c.frame.fileSha256}): another column was edited after the commitment, and \`sample verify\` would report it; valid: the committed frame file, unchanged`,
      },
    );
  }
}

export async function drawSelection(o: DrawOptions): Promise<Omit<DrawResult, 'proofPath'>> {
  const c = o.commitment;
  o.onProgress?.({ phase: 'beacon' });
  const source = o.beaconSource ?? 'beacon';
  // the round number and randomness = sha256(signature) now; the BLS signature on a worker while the frame is read
  if ('beacon' in o.randomness) {
    const chain = parseChainInfo(c.beacon.chain, 'commitment.beacon.chain');
    const b = parseBeaconRound(o.randomness.beacon, chain, source);
    await verifyBeaconRound(chain, b, c.beacon.round, source, { signature: false });
  }
  const { randomness, verified } = resolveRandomness(c, o.randomness, source, true);
  let loaded: Awaited<ReturnType<typeof loadFrame>>;
  try {
    loaded = await loadFrame(commitmentStrata(c), o.framePath, o.onProgress);
  } catch (e) {
    await verified; // a beacon that does not verify is reported before a frame problem
    throw e;
  }
  const { frame, by, hashes } = loaded;
  assertFrameCommitted(c, frame, hashes);
  const seed = computeSeed(hashes.frameHash, randomness.randomness);
  // the order digests come from writeSelectionCsv, which has every ID at hand in rank order
  const selection = await selectFrame(
    frame,
    by,
    seed,
    c.strata.map((s) => s.sampleSize),
    { digests: false, onProgress: (done, total) => o.onProgress?.({ phase: 'tickets', done, total }) },
  );
  await verified; // nothing is written unless the beacon's signature verifies
  const selectionPath = join(o.outDir, 'selection.csv');
  o.onProgress?.({ phase: 'write' });
  const written = await writeSelectionCsv(selectionPath, o.framePath, frame, selection, {
    onProgress: (done, total) => o.onProgress?.({ phase: 'write', done, total }),
  });
  selection.strata.forEach((s, i) => {
    s.orderDigest = written.orderDigests[i]!;
  });
  const proof: Proof = {
    kind: 'oraclekit/selection-proof',
    version: 1,
    algorithm: ALGORITHM,
    drawnAt: o.now.toISOString(),
    commitmentDigest: commitmentDigest(c),
    designId: c.designId,
    frameHash: hashes.frameHash,
    randomness,
    seed,
    strata: selection.strata.map((s) => ({
      name: s.name,
      households: s.population,
      sampleSize: s.sampleSize,
      sample: [...s.order.subarray(0, s.sampleSize)].map((row, i) => ({
        rank: i + 1,
        household_id: frame.ids[row]!,
        ticket: ticketHex(selection.tickets, row),
      })),
      orderDigest: s.orderDigest,
    })),
    selection: { file: basename(selectionPath), sha256: written.sha256, rows: written.rows },
  };
  return { proof, selectionPath, selection, frame };
}
