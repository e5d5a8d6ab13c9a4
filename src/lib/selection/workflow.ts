/**
 * The three steps of a verifiable selection (docs/selection.md):
 *  commit — frame + design + a future drand round -> commitment (publish it);
 *  draw   — commitment + frame + the round's beacon (or a verifier's
 *           randomness) -> selection.csv and proof.json;
 *  verify — recompute everything from frame, commitment and proof, and report
 *           the first mismatch.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isOracleKitError } from '../errors.ts';
import { firstRoundAfter, parseBeaconRound, parseChainInfo, roundTime, verifyBeaconRound, type ChainInfo } from '../beacon/drand.ts';
import { CsvScanner, field } from '../csv.ts';
import type { SelectionDesign } from './design.ts';
import { frameCsvError, selectionError } from './errors.ts';
import { hashFrame, readFrame, rowsByStratum, UNSTRATIFIED, type Frame } from './frame.ts';
import { ALGORITHM, computeSeed } from './hash.ts';
import { keptColumns, SELECTION_COLUMNS, writeSelectionCsv } from './output.ts';
import { commitmentDigest, type Commitment, type Proof } from './records.ts';
import { checkSizes, selectFrame, ticketHex, type FrameSelection } from './select.ts';

export interface Progress {
  phase: 'read' | 'hash' | 'tickets' | 'write' | 'beacon';
  done?: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export interface CommitOptions {
  design: SelectionDesign;
  framePath: string;
  chain: ChainInfo;
  /** An explicit round; must be produced after `now`. */
  round?: number;
  /** Otherwise: the first round produced after now + delaySeconds. */
  delaySeconds: number;
  now: Date;
  onProgress?: (p: Progress) => void;
}

export interface CommitResult {
  commitment: Commitment;
  notes: string[];
}

export async function commitSelection(o: CommitOptions): Promise<CommitResult> {
  const frame = await readFrame(o.framePath, { strata: o.design.stratified ? o.design.strata.map((s) => s.name) : [], onProgress: (done) => o.onProgress?.({ phase: 'read', done }) });
  o.onProgress?.({ phase: 'hash' });
  const by = rowsByStratum(frame);
  checkSizes(frame, by, o.design.strata.map((s) => s.sampleSize));
  const hashes = hashFrame(frame, by);
  const nowSec = o.now.getTime() / 1000;
  let round: number;
  if (o.round !== undefined) {
    round = o.round;
    if (roundTime(o.chain, round) <= nowSec) {
      throw selectionError('round_not_in_future', 'round', round, `a round produced after the commitment time ${o.now.toISOString()} (round ${firstRoundAfter(o.chain, nowSec)} or later)`, {
        message: `round ${round} was produced at ${iso(roundTime(o.chain, round) * 1000)}, not after the commitment time ${o.now.toISOString()}; valid: round ${firstRoundAfter(o.chain, nowSec)} or later (randomness must not exist when the commitment is made)`,
      });
    }
  } else {
    round = firstRoundAfter(o.chain, nowSec + o.delaySeconds);
  }
  const notes: string[] = [];
  if (frame.stratumColumnIgnored) notes.push(`the frame's stratum column is ignored: the design is unstratified (one stratum "${UNSTRATIFIED}")`);
  o.design.strata.forEach((s, i) => {
    const have = hashes.strata[i]!.households;
    if (have !== s.designPopulation) notes.push(`stratum ${s.name}: the frame has ${have} households, the design assumed ${s.designPopulation}; n_h = ${s.sampleSize} is kept as designed`);
  });
  const commitment: Commitment = {
    kind: 'oraclekit/selection-commitment',
    version: 1,
    algorithm: ALGORITHM,
    committedAt: o.now.toISOString(),
    designId: o.design.designId,
    ...(o.design.projectId !== undefined ? { projectId: o.design.projectId } : {}),
    design: { parameters: o.design.parameters as unknown as Record<string, unknown>, stratification: o.design.stratification as unknown as Record<string, unknown> },
    frame: { file: frame.file, fileSha256: frame.fileSha256, households: frame.rows, columns: frame.header, frameHash: hashes.frameHash },
    strata: o.design.strata.map((s, i) => ({ name: s.name, households: hashes.strata[i]!.households, sampleSize: s.sampleSize, frameHash: hashes.strata[i]!.frameHash })),
    beacon: { chain: o.chain, round, roundTime: iso(roundTime(o.chain, round) * 1000) },
  };
  return { commitment, notes };
}

/** The randomness of a draw: a drand round JSON or a verifier's hex. */
export type RandomnessInput = { beacon: unknown } | { seedHex: string };

export function parseSeedHex(v: string): string {
  const s = v.trim().toLowerCase().replace(/^0x/, '');
  if (!/^([0-9a-f]{2})+$/.test(s) || s.length < 32 || s.length > 256) {
    throw selectionError('invalid_seed_hex', '--seed-hex', v, 'an even-length hex string of 16 to 128 bytes (the verifier\'s randomness)');
  }
  return s;
}

function commitmentStrata(c: Commitment): string[] {
  return c.strata.length === 1 && c.strata[0]!.name === UNSTRATIFIED && (c.design.stratification as { method?: string }).method !== 'proportional' ? [] : c.strata.map((s) => s.name);
}

async function frameFor(c: Commitment, framePath: string, onProgress?: (p: Progress) => void): Promise<{ frame: Frame; by: Uint32Array[]; hashes: ReturnType<typeof hashFrame> }> {
  const frame = await readFrame(framePath, { strata: commitmentStrata(c), onProgress: (done) => onProgress?.({ phase: 'read', done }) });
  onProgress?.({ phase: 'hash' });
  const by = rowsByStratum(frame);
  return { frame, by, hashes: hashFrame(frame, by) };
}

async function resolveRandomness(c: Commitment, input: RandomnessInput, source: string): Promise<Proof['randomness']> {
  if ('seedHex' in input) {
    return { source: 'verifier', randomness: parseSeedHex(input.seedHex), note: 'randomness supplied by the verifier instead of the committed beacon round' };
  }
  const chain = parseChainInfo(c.beacon.chain, 'commitment.beacon.chain');
  const beacon = parseBeaconRound(input.beacon, chain, source);
  await verifyBeaconRound(chain, beacon, c.beacon.round, source);
  return {
    source: 'drand',
    chainHash: chain.hash,
    round: beacon.round,
    randomness: beacon.randomness,
    signature: beacon.signature,
    ...(beacon.previous_signature !== undefined ? { previous_signature: beacon.previous_signature } : {}),
  };
}

export interface DrawOptions {
  commitment: Commitment;
  framePath: string;
  randomness: RandomnessInput;
  /** Where the beacon came from, for messages. */
  beaconSource?: string;
  outDir: string;
  now: Date;
  onProgress?: (p: Progress) => void;
}

export interface DrawResult {
  proof: Proof;
  selectionPath: string;
  proofPath: string;
  selection: FrameSelection;
  frame: Frame;
}

export async function drawSelection(o: DrawOptions): Promise<Omit<DrawResult, 'proofPath'>> {
  const c = o.commitment;
  o.onProgress?.({ phase: 'beacon' });
  const randomness = await resolveRandomness(c, o.randomness, o.beaconSource ?? 'beacon');
  const { frame, by, hashes } = await frameFor(c, o.framePath, o.onProgress);
  if (hashes.frameHash !== c.frame.frameHash) {
    throw selectionError('frame_mismatch', 'frame', hashes.frameHash, `the committed frameHash ${c.frame.frameHash}`, {
      message: `${frame.file}: frameHash ${hashes.frameHash} is not the committed ${c.frame.frameHash} (${frame.rows} households here, ${c.frame.households} committed); valid: the frame the commitment was made on`,
    });
  }
  hashes.strata.forEach((h, i) => {
    const cs = c.strata[i]!;
    if (h.frameHash !== cs.frameHash) {
      throw selectionError('frame_mismatch', `frame (stratum ${cs.name})`, h.frameHash, `the committed stratum frameHash ${cs.frameHash}`, {
        message: `${frame.file}: stratum ${cs.name} has frameHash ${h.frameHash} (${h.households} households), committed ${cs.frameHash} (${cs.households}); valid: the frame the commitment was made on, with the same strata`,
      });
    }
  });
  if (frame.fileSha256 !== c.frame.fileSha256) {
    throw selectionError('frame_mismatch', 'frame', frame.fileSha256, `the committed file sha256 ${c.frame.fileSha256}`, {
      message: `${frame.file}: the household IDs and strata match the commitment but the file differs (sha256 ${frame.fileSha256}, committed ${c.frame.fileSha256}): another column was edited after the commitment, and \`sample verify\` would report it; valid: the committed frame file, unchanged`,
    });
  }
  const seed = computeSeed(hashes.frameHash, randomness.randomness);
  const selection = await selectFrame(frame, by, seed, c.strata.map((s) => s.sampleSize), { onProgress: (done) => o.onProgress?.({ phase: 'tickets', done }) });
  const selectionPath = join(o.outDir, 'selection.csv');
  o.onProgress?.({ phase: 'write' });
  const written = writeSelectionCsv(selectionPath, o.framePath, frame, selection, (done) => o.onProgress?.({ phase: 'write', done }));
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
      sample: [...s.order.subarray(0, s.sampleSize)].map((row, i) => ({ rank: i + 1, household_id: frame.ids[row]!, ticket: ticketHex(selection.tickets, row) })),
      orderDigest: s.orderDigest,
    })),
    selection: { file: basename(selectionPath), sha256: written.sha256, rows: written.rows },
  };
  return { proof, selectionPath, selection, frame };
}

export interface VerifyOptions {
  commitment: Commitment;
  proof: Proof;
  framePath: string;
  selectionPath?: string;
  onProgress?: (p: Progress) => void;
}

export interface VerifyResult {
  ok: boolean;
  /** The checks that passed, in order. */
  passed: string[];
  mismatch?: { check: string; message: string };
  summary: string;
  notes: string[];
}

const short = (h: string): string => h.slice(0, 12);

export async function verifySelection(o: VerifyOptions): Promise<VerifyResult> {
  const c = o.commitment;
  const p = o.proof;
  const passed: string[] = [];
  const notes: string[] = [];
  const fail = (check: string, message: string): VerifyResult => ({ ok: false, passed, mismatch: { check, message }, summary: `MISMATCH ${check}: ${message}`, notes });

  const digest = commitmentDigest(c);
  if (p.commitmentDigest !== digest) return fail('commitment', `proof.commitmentDigest ${p.commitmentDigest} is not the digest of this commitment (${digest}): the proof was made for another commitment, or the commitment was edited`);
  passed.push('commitment');
  if (p.designId !== c.designId) return fail('designId', `proof.designId ${p.designId} differs from commitment.designId ${c.designId}`);
  passed.push('designId');

  let chain: ChainInfo;
  try {
    chain = parseChainInfo(c.beacon.chain, 'commitment.beacon.chain');
  } catch (e) {
    if (isOracleKitError(e)) return fail('chain', e.message);
    throw e;
  }
  const rt = roundTime(chain, c.beacon.round);
  if (iso(rt * 1000) !== c.beacon.roundTime) return fail('commitment.roundTime', `commitment.beacon.roundTime ${c.beacon.roundTime} is not the time of round ${c.beacon.round} on chain ${short(chain.hash)} (${iso(rt * 1000)})`);
  if (rt * 1000 <= Date.parse(c.committedAt)) return fail('future round', `committed round ${c.beacon.round} was produced at ${iso(rt * 1000)}, not after the commitment time ${c.committedAt}: its randomness could have been known when committing`);
  passed.push('future round');

  let loaded: Awaited<ReturnType<typeof frameFor>>;
  try {
    loaded = await frameFor(c, o.framePath, o.onProgress);
  } catch (e) {
    if (isOracleKitError(e) && e.status !== 404) return fail('frame', e.message);
    throw e;
  }
  const { frame, by, hashes } = loaded;
  if (hashes.frameHash !== c.frame.frameHash) {
    return fail('frameHash', `${frame.file}: frameHash ${hashes.frameHash} (${frame.rows} households) is not the committed ${c.frame.frameHash} (${c.frame.households} households): the household IDs differ from the committed frame`);
  }
  for (let i = 0; i < c.strata.length; i++) {
    const h = hashes.strata[i]!;
    const cs = c.strata[i]!;
    if (h.frameHash !== cs.frameHash || h.households !== cs.households) {
      return fail(`stratum ${cs.name}`, `${frame.file}: stratum ${cs.name} has ${h.households} households (frameHash ${short(h.frameHash)}), committed ${cs.households} (${short(cs.frameHash)}): households moved between strata`);
    }
  }
  passed.push('frameHash');
  if (frame.fileSha256 !== c.frame.fileSha256) {
    return fail('frame file', `${frame.file}: sha256 ${frame.fileSha256} is not the committed ${c.frame.fileSha256}; the IDs and strata are unchanged, so another column (adopter, address, ...) was edited after the commitment`);
  }
  passed.push('frame file');
  if (p.frameHash !== c.frame.frameHash) return fail('proof.frameHash', `proof.frameHash ${p.frameHash} differs from the committed ${c.frame.frameHash}`);

  const r = p.randomness;
  if (r.source === 'drand') {
    if (r.chainHash !== chain.hash) return fail('beacon.chain', `proof beacon chain ${r.chainHash} is not the committed chain ${chain.hash}`);
    if (r.round !== c.beacon.round) return fail('beacon.round', `proof uses drand round ${r.round}, the commitment fixed round ${c.beacon.round}`);
    try {
      const beacon = parseBeaconRound({ round: r.round, randomness: r.randomness, signature: r.signature, previous_signature: r.previous_signature }, chain, 'proof.randomness');
      await verifyBeaconRound(chain, beacon, c.beacon.round, 'proof.randomness');
    } catch (e) {
      if (isOracleKitError(e)) return fail('beacon.signature', e.message);
      throw e;
    }
    passed.push('beacon');
  } else {
    notes.push(`randomness supplied by the verifier (${r.randomness.length / 2} bytes), not drand round ${c.beacon.round}`);
    passed.push('verifier randomness');
  }

  const seed = computeSeed(hashes.frameHash, r.randomness);
  if (seed !== p.seed) return fail('seed', `proof.seed ${p.seed} is not sha256("${ALGORITHM}" || frameHash || randomness) = ${seed}`);
  passed.push('seed');

  const sel = await selectFrame(frame, by, seed, c.strata.map((s) => s.sampleSize), { onProgress: (done) => o.onProgress?.({ phase: 'tickets', done }) });
  if (p.strata.length !== sel.strata.length) return fail('strata', `proof has ${p.strata.length} strata, the commitment ${sel.strata.length}`);
  for (let i = 0; i < sel.strata.length; i++) {
    const s = sel.strata[i]!;
    const ps = p.strata[i]!;
    if (ps.name !== s.name || ps.sampleSize !== s.sampleSize || ps.sample.length !== s.sampleSize) {
      return fail(`stratum ${s.name}`, `proof stratum ${i + 1} is ${JSON.stringify(ps.name)} with n = ${ps.sampleSize} (${ps.sample.length} listed); the commitment has ${JSON.stringify(s.name)} with n = ${s.sampleSize}`);
    }
    for (let k = 0; k < s.sampleSize; k++) {
      const row = s.order[k]!;
      const id = frame.ids[row]!;
      const t = ticketHex(sel.tickets, row);
      const got = ps.sample[k]!;
      if (got.household_id !== id || got.ticket !== t || got.rank !== k + 1) {
        return fail(`sample ${s.name}`, `stratum ${s.name} rank ${k + 1}: proof has ${JSON.stringify(got.household_id)} (ticket ${short(got.ticket)}), recomputed ${JSON.stringify(id)} (ticket ${short(t)})`);
      }
    }
    if (ps.orderDigest !== s.orderDigest) return fail(`replacements ${s.name}`, `stratum ${s.name}: proof.orderDigest ${short(ps.orderDigest)} is not the recomputed ${short(s.orderDigest)}: the replacement order differs`);
  }
  passed.push('selection');

  if (o.selectionPath !== undefined) {
    const m = await checkSelectionCsv(o.selectionPath, frame, sel, p);
    if (m) return fail('selection.csv', m);
    passed.push('selection.csv');
  }
  const sampled = sel.strata.reduce((a, s) => a + s.sampleSize, 0);
  const src = r.source === 'drand' ? `drand round ${r.round} (chain ${short(chain.hash)})` : 'verifier-supplied randomness';
  return {
    ok: true,
    passed,
    summary: `verified ${ALGORITHM}: frameHash ${short(hashes.frameHash)}, ${src}, seed ${short(seed)}, ${sampled} sampled of ${frame.rows} households in ${sel.strata.length} ${sel.strata.length === 1 ? 'stratum' : 'strata'}`,
    notes,
  };
}

/** Compares selection.csv row by row with the recomputed order; returns the first mismatch or null. */
async function checkSelectionCsv(path: string, frame: Frame, sel: FrameSelection, p: Proof): Promise<string | null> {
  if (!existsSync(path)) throw selectionError('file_not_found', 'selection', path, 'the selection.csv written by `sample select draw`');
  const name = basename(path);
  const expectedHeader = [...SELECTION_COLUMNS, ...keptColumns(frame).map((k) => k.name)].join(',');
  let idx = 0;
  let header = true;
  let mismatch: string | null = null;
  const total = sel.strata.reduce((a, s) => a + s.order.length, 0);
  let si = 0;
  let rank = 0;
  const scanner = new CsvScanner(name, (rec) => {
    if (mismatch) return;
    if (header) {
      header = false;
      const h = Array.from({ length: rec.count }, (_, i) => field(rec, i)).join(',');
      if (h !== expectedHeader) mismatch = `${name}:${rec.line}: header ${JSON.stringify(h)} is not ${JSON.stringify(expectedHeader)}`;
      return;
    }
    while (si < sel.strata.length && rank >= sel.strata[si]!.order.length) { si++; rank = 0; }
    if (si >= sel.strata.length) { mismatch = `${name}:${rec.line}: an extra row beyond the ${total} households`; return; }
    const s = sel.strata[si]!;
    const row = s.order[rank]!;
    const want = [s.name, String(rank + 1), rank < s.sampleSize ? 'sample' : 'replacement', frame.ids[row]!, ticketHex(sel.tickets, row)];
    for (let i = 0; i < want.length; i++) {
      const got = field(rec, i);
      if (got !== want[i]) {
        mismatch = `${name}:${rec.line}: ${SELECTION_COLUMNS[i]} is ${JSON.stringify(got)}, recomputed ${JSON.stringify(want[i])} (stratum ${s.name}, rank ${rank + 1})`;
        return;
      }
    }
    rank++;
    idx++;
  }, frameCsvError);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    scanner.push(chunk);
    if (mismatch) break;
  }
  if (!mismatch) scanner.end();
  if (mismatch) return mismatch;
  if (idx !== total) return `${name}: ${idx} rows, the frame has ${total} households (the list is cut short)`;
  const sha = hash.digest('hex');
  if (sha !== p.selection.sha256) return `${name}: sha256 ${sha} is not the proof's ${p.selection.sha256}; the ranks and IDs match, so another column was edited`;
  return null;
}
