/**
 * Verification of a selection (docs/selection.md, "Checks"): a list of named
 * checks of two kinds.
 *
 *  - integrity: does everything recompute? (commitment digest, the design's
 *    sizes, the beacon's BLS signature, the seed, every ticket, the order,
 *    selection.csv). A failure is a MISMATCH (exit 10).
 *  - trust: could the randomness have been chosen by whoever drew? It is
 *    trusted only when it is a BLS-verified round of a pinned public drand
 *    chain, produced after committedAt, and the commitment was published
 *    before that round (the verifier states when, --published-at) — or when
 *    the verifier supplied it itself (--seed-hex, equal to the proof's).
 *    A failure is UNTRUSTED (exit 11).
 *
 * `sample verify` (verifySelection) runs them in order with the frame and
 * stops at the first integrity failure; `sample report` (checkPackage) runs
 * every check that needs no frame — and the frame's when it is given — and
 * keeps going, so the package can show every failure.
 */
import { basename } from 'node:path';
import { isOracleKitError } from '../errors.ts';
import {
  parseBeaconRound,
  parseChainInfo,
  pinnedChainName,
  roundTime,
  untrustedChainReason,
  verifyBeaconRound,
  verifyBeaconRoundInWorker,
  type ChainInfo,
} from '../beacon/drand.ts';
import { designDiscrepancies, loadDesign, populationMismatch, populationMismatchText } from './design.ts';
import { Checks, short, verifyResult, type VerifyResult } from './checks.ts';
import { ALGORITHM, Ticketer, compareUtf8, computeSeed, trimId } from './hash.ts';
import type { Frame } from './frame.ts';
import { checkSelectionCsv, selectionFileChecks, type SelectionFileReading } from './selection-file.ts';
import { commitmentDigest, type Commitment, type Proof } from './records.ts';
import { selectFrame, ticketHex, type FrameSelection } from './select.ts';
import { commitmentStrata, loadFrame, type Progress } from './workflow.ts';

interface TrustOptions {
  /** The verifier's own randomness (hex), when it performed the selection itself. */
  seedHex?: string;
  /** When the commitment was published (the verifier's own record); must be before the round. */
  publishedAt?: Date;
}

/** Findings that follow from the commitment alone (its design and its strata's frame counts). */
function commitmentFindings(c: Commitment): string[] {
  let m;
  try {
    m = populationMismatch(
      loadDesign(c.design, 'commitment.design'),
      c.strata.map((s) => s.households),
    );
  } catch {
    return []; // a design that cannot be read is a failed check elsewhere
  }
  if (!m) return [];
  return [
    `${c.populationMismatch ? 'ACCEPTED AT COMMIT: ' : ''}${populationMismatchText(m)}. The methodology then requires more samples (${m.needed ? `n_h = ${m.needed.map((x) => `${x.name} ${x.sampleSize}`).join(', ')}` : 'a design recomputed for the frame'}: \`${m.command}\`) or reporting the precision actually achieved`,
  ];
}

const iso = (ms: number): string => new Date(ms).toISOString();
function chainOf(c: Commitment): ChainInfo | string {
  try {
    return parseChainInfo(c.beacon.chain, 'commitment.beacon.chain');
  } catch (e) {
    if (isOracleKitError(e)) return e.message;
    throw e;
  }
}

/** commitment digest, designId, the design's sizes, the commitment's round time. */
function commitmentChecks(c: Commitment, p: Proof, k: Checks): ChainInfo | null {
  const digest = commitmentDigest(c);
  if (p.commitmentDigest !== digest)
    k.fail(
      'commitment',
      'integrity',
      `proof.commitmentDigest ${p.commitmentDigest} is not the digest of this commitment (${digest}): the proof was made for another commitment, or the commitment was edited`,
    );
  else
    k.pass(
      'commitment',
      'integrity',
      `proof.commitmentDigest = sha256(canonical JSON of the commitment) = ${short(digest)}…`,
    );
  if (p.designId !== c.designId)
    k.fail('designId', 'integrity', `proof.designId ${p.designId} differs from commitment.designId ${c.designId}`);
  else k.pass('designId', 'integrity', `designId ${c.designId}`);
  const bad = designDiscrepancies(c.design.parameters, c.design.stratification);
  const stratumSizes = designStrataSizes(c);
  const nMismatch = c.strata.find((s, i) => stratumSizes[i] !== undefined && stratumSizes[i] !== s.sampleSize);
  if (bad.length > 0)
    k.fail(
      'commitment.design',
      'integrity',
      `commitment.design.${bad[0]!.message}${bad.length > 1 ? ` (and ${bad.length - 1} more)` : ''}`,
    );
  else if (nMismatch)
    k.fail(
      'commitment.design',
      'integrity',
      `commitment.strata: stratum ${nMismatch.name} has n = ${nMismatch.sampleSize}, the committed design gives ${stratumSizes[c.strata.indexOf(nMismatch)]}`,
    );
  else
    k.pass(
      'commitment.design',
      'integrity',
      "every size of the committed design follows from its own parameters (the chain of `sample calc`), and the committed n_h are the design's",
    );
  const chain = chainOf(c);
  if (typeof chain === 'string') {
    k.fail('chain', 'integrity', chain);
    return null;
  }
  const rt = roundTime(chain, c.beacon.round);
  if (iso(rt * 1000) !== c.beacon.roundTime)
    k.fail(
      'commitment.roundTime',
      'integrity',
      `commitment.beacon.roundTime ${c.beacon.roundTime} is not the time of round ${c.beacon.round} on chain ${short(chain.hash)} (${iso(rt * 1000)})`,
    );
  else
    k.pass(
      'commitment.roundTime',
      'integrity',
      `round ${c.beacon.round} of chain ${short(chain.hash)}… is produced at ${c.beacon.roundTime}`,
    );
  return chain;
}

/** n_h of the committed design per committed stratum (undefined where the design does not say). */
function designStrataSizes(c: Commitment): (number | undefined)[] {
  const st = c.design.stratification as { method?: string; strata?: { name?: string; sampleSize?: number }[] };
  const P = c.design.parameters as { adjustedSize?: number };
  if (st.method !== 'proportional' || !st.strata?.length) return c.strata.map(() => P.adjustedSize);
  return c.strata.map(
    (s) => st.strata!.find((x) => typeof x.name === 'string' && trimId(x.name) === s.name)?.sampleSize,
  );
}

/** Could the randomness have been chosen by whoever drew? */
function trustChecks(c: Commitment, p: Proof, chain: ChainInfo | null, t: TrustOptions, k: Checks): void {
  const r = p.randomness;
  const na = 'not applicable: you supplied the randomness yourself';
  if (r.source === 'verifier') {
    if (t.seedHex === undefined) {
      k.fail(
        'randomness',
        'trust',
        `the randomness (${r.randomness.length / 2} bytes, ${short(r.randomness)}…) was supplied by whoever ran \`sample select draw --seed-hex\`, not drand round ${c.beacon.round}: they could retry seeds until the sample suited them. Only the verifier who chose it can accept it — pass your own randomness with --seed-hex`,
      );
    } else if (t.seedHex !== r.randomness) {
      k.fail(
        'randomness',
        'trust',
        `the proof's randomness ${short(r.randomness)}… is not the randomness you supplied (${short(t.seedHex)}…): this draw was not made with your randomness`,
      );
    } else {
      k.pass('randomness', 'trust', `the randomness is yours (--seed-hex, ${r.randomness.length / 2} bytes)`);
    }
    k.skip('chain pinned', 'trust', na);
    k.skip('future round', 'trust', na);
    k.skip('published before round', 'trust', na);
    return;
  }
  if (t.seedHex !== undefined)
    k.fail(
      'randomness',
      'integrity',
      `you passed --seed-hex ${short(t.seedHex)}…, but the proof uses drand round ${r.round}: this is not the draw made with your randomness`,
    );
  else k.pass('randomness', 'trust', `drand round ${r.round}`);
  if (!chain) {
    k.fail('chain pinned', 'trust', 'the committed chain info is invalid');
    return;
  }
  const why = untrustedChainReason(chain);
  if (why) k.fail('chain pinned', 'trust', why);
  else
    k.pass(
      'chain pinned',
      'trust',
      `drand's public "${pinnedChainName(chain)}" chain ${short(chain.hash)}… (public key and genesis pinned in oraclekit)`,
    );
  const rtMs = roundTime(chain, c.beacon.round) * 1000;
  if (rtMs <= Date.parse(c.committedAt))
    k.fail(
      'future round',
      'trust',
      `the committed round ${c.beacon.round} was produced at ${iso(rtMs)}, not after committedAt ${c.committedAt}: its randomness could have been known when committing`,
    );
  else k.pass('future round', 'trust', `round ${c.beacon.round} (${iso(rtMs)}) is after committedAt ${c.committedAt}`);
  if (!t.publishedAt) {
    k.fail(
      'published before round',
      'trust',
      `nothing establishes that the commitment was published before round ${c.beacon.round} was produced (${iso(rtMs)}); committedAt is the committer's own clock. Pass --published-at <when you, or a public record you trust, first had this commitment>`,
    );
  } else if (t.publishedAt.getTime() >= rtMs) {
    k.fail(
      'published before round',
      'trust',
      `the commitment was published at ${t.publishedAt.toISOString()}, not before round ${c.beacon.round} was produced (${iso(rtMs)}): the randomness was public before the commitment was`,
    );
  } else {
    k.pass(
      'published before round',
      'trust',
      `published at ${t.publishedAt.toISOString()} (your record), before round ${c.beacon.round} at ${iso(rtMs)}`,
    );
  }
}

/** The proof's round is the committed one and its BLS signature verifies against the committed chain's key. */
async function beaconChecks(
  c: Commitment,
  p: Proof,
  chain: ChainInfo | null,
  k: Checks,
  inWorker = false,
): Promise<void> {
  const r = p.randomness;
  if (r.source !== 'drand') return;
  if (!chain) return;
  if (r.chainHash !== chain.hash) {
    k.fail('beacon.chain', 'integrity', `proof beacon chain ${r.chainHash} is not the committed chain ${chain.hash}`);
    return;
  }
  if (r.round !== c.beacon.round) {
    k.fail(
      'beacon.round',
      'integrity',
      `proof uses drand round ${r.round}, the commitment fixed round ${c.beacon.round}`,
    );
    return;
  }
  try {
    const beacon = parseBeaconRound(
      { round: r.round, randomness: r.randomness, signature: r.signature, previous_signature: r.previous_signature },
      chain,
      'proof.randomness',
    );
    await (inWorker ? verifyBeaconRoundInWorker : verifyBeaconRound)(chain, beacon, c.beacon.round, 'proof.randomness');
    k.pass(
      'beacon.signature',
      'integrity',
      `the BLS signature of round ${r.round} verifies against the committed chain's public key; randomness = sha256(signature) = ${short(r.randomness)}…`,
    );
  } catch (e) {
    if (isOracleKitError(e)) k.fail('beacon.signature', 'integrity', e.message);
    else throw e;
  }
}

/** proof.frameHash and the seed; returns the recomputed seed. */
function seedChecks(c: Commitment, p: Proof, frameHash: string, k: Checks): string {
  if (p.frameHash !== c.frame.frameHash)
    k.fail(
      'proof.frameHash',
      'integrity',
      `proof.frameHash ${p.frameHash} differs from the committed ${c.frame.frameHash}`,
    );
  const seed = computeSeed(frameHash, p.randomness.randomness);
  if (seed !== p.seed)
    k.fail(
      'seed',
      'integrity',
      `proof.seed ${p.seed} is not sha256("${ALGORITHM}" || frameHash || randomness) = ${seed}`,
    );
  else
    k.pass(
      'seed',
      'integrity',
      `seed = sha256("${ALGORITHM}" || frameHash ${short(frameHash)}… || randomness) = ${short(seed)}…`,
    );
  return seed;
}

/**
 * Without the frame: the proof lists the committed strata with their n_h;
 * every listed ticket is HMAC-SHA256(seed, stratum + U+001F + id); ranks run
 * 1..n_h in (ticket, id bytes) order; no household twice.
 */
function listedTicketChecks(c: Commitment, p: Proof, seed: string, k: Checks): void {
  const t = new Ticketer(seed);
  if (p.strata.length !== c.strata.length) {
    k.fail('tickets', 'integrity', `proof has ${p.strata.length} strata, the commitment ${c.strata.length}`);
    return;
  }
  let listed = 0;
  for (let i = 0; i < c.strata.length; i++) {
    const cs = c.strata[i]!;
    const ps = p.strata[i]!;
    if (
      ps.name !== cs.name ||
      ps.sampleSize !== cs.sampleSize ||
      ps.sample.length !== cs.sampleSize ||
      ps.households !== cs.households
    ) {
      k.fail(
        'tickets',
        'integrity',
        `proof stratum ${i + 1} is ${JSON.stringify(ps.name)} with n = ${ps.sampleSize} (${ps.sample.length} listed) of ${ps.households}; the commitment has ${JSON.stringify(cs.name)} with n = ${cs.sampleSize} of ${cs.households}`,
      );
      return;
    }
    const seen = new Set<string>();
    for (let r = 0; r < ps.sample.length; r++) {
      const x = ps.sample[r]!;
      const want = t.hex(cs.name, x.household_id);
      if (x.rank !== r + 1) {
        k.fail('tickets', 'integrity', `stratum ${cs.name}: entry ${r + 1} of the sample has rank ${x.rank}`);
        return;
      }
      if (x.ticket !== want) {
        k.fail(
          'tickets',
          'integrity',
          `stratum ${cs.name} rank ${r + 1}: household ${JSON.stringify(x.household_id)} has ticket ${short(x.ticket)}… in the proof; recomputed from the seed ${short(want)}…`,
        );
        return;
      }
      if (seen.has(x.household_id)) {
        k.fail(
          'tickets',
          'integrity',
          `stratum ${cs.name}: household ${JSON.stringify(x.household_id)} is listed twice`,
        );
        return;
      }
      seen.add(x.household_id);
      if (r > 0) {
        const prev = ps.sample[r - 1]!;
        if (
          prev.ticket > x.ticket ||
          (prev.ticket === x.ticket && compareUtf8(prev.household_id, x.household_id) >= 0)
        ) {
          k.fail(
            'tickets',
            'integrity',
            `stratum ${cs.name}: rank ${r} (ticket ${short(prev.ticket)}…) and rank ${r + 1} (ticket ${short(x.ticket)}…) are not in (ticket, id) order`,
          );
          return;
        }
      }
    }
    listed += ps.sample.length;
  }
  k.pass(
    'tickets',
    'integrity',
    `all ${listed} listed tickets recompute from the seed, in (ticket, id) order, n_h per stratum as committed`,
  );
}

interface VerifyOptions extends TrustOptions {
  commitment: Commitment;
  proof: Proof;
  framePath: string;
  selectionPath?: string;
  onProgress?: (p: Progress) => void;
}

/**
 * Reads the frame and checks it is the committed one: it parses, its frameHash and each stratum's hash and count,
 * then the file's sha256. Each step is a check; null after the first that fails (a missing file throws).
 */
async function readCheckedFrame(
  c: Commitment,
  o: VerifyOptions,
  k: Checks,
): Promise<Awaited<ReturnType<typeof loadFrame>> | null> {
  let loaded: Awaited<ReturnType<typeof loadFrame>>;
  try {
    loaded = await loadFrame(commitmentStrata(c), o.framePath, o.onProgress);
  } catch (e) {
    if (isOracleKitError(e) && e.status !== 404) {
      k.fail('frame', 'integrity', e.message);
      return null;
    }
    throw e;
  }
  const { frame, hashes } = loaded;
  k.pass(
    'frame',
    'integrity',
    `${frame.file}: ${frame.rows} households parse (no blank, duplicate or U+001F IDs; strata known)`,
  );
  if (hashes.frameHash !== c.frame.frameHash) {
    k.fail(
      'frameHash',
      'integrity',
      `${frame.file}: frameHash ${hashes.frameHash} (${frame.rows} households) is not the committed ${c.frame.frameHash} (${c.frame.households} households): the household IDs differ from the committed frame`,
    );
    return null;
  }
  for (let i = 0; i < c.strata.length; i++) {
    const h = hashes.strata[i]!;
    const cs = c.strata[i]!;
    if (h.frameHash !== cs.frameHash || h.households !== cs.households) {
      k.fail(
        `stratum ${cs.name}`,
        'integrity',
        `${frame.file}: stratum ${cs.name} has ${h.households} households (frameHash ${short(h.frameHash)}), committed ${cs.households} (${short(cs.frameHash)}): households moved between strata`,
      );
      return null;
    }
  }
  k.pass(
    'frameHash',
    'integrity',
    `frameHash ${short(hashes.frameHash)}… and every stratum's hash and count are the committed ones`,
  );
  if (frame.fileSha256 !== c.frame.fileSha256) {
    k.fail(
      'frame file',
      'integrity',
      `${frame.file}: sha256 ${frame.fileSha256} is not the committed ${c.frame.fileSha256}; the IDs and strata are unchanged, so another column (adopter, address, ...) was edited after the commitment`,
    );
    return null;
  }
  k.pass('frame file', 'integrity', `sha256 of ${frame.file} is the committed ${short(c.frame.fileSha256)}…`);
  return loaded;
}

/** `sample verify`: everything, with the frame; stops at the first integrity failure. */
export async function verifySelection(o: VerifyOptions): Promise<VerifyResult> {
  const c = o.commitment;
  const p = o.proof;
  const k = new Checks();
  const notes: string[] = [];
  const findings = commitmentFindings(c);
  const stop = () => verifyResult(k, '', notes, findings);
  const chain = commitmentChecks(c, p, k);
  if (k.integrityFailed) return stop();
  trustChecks(c, p, chain, o, k);
  if (k.integrityFailed) return stop();
  // the BLS signature on a worker thread while the frame is read; reported in its place below
  const beacon = new Checks();
  const beaconDone = beaconChecks(c, p, chain, beacon, true);
  beaconDone.catch(() => {});

  const loaded = await readCheckedFrame(c, o, k);
  if (!loaded) return stop();
  const { frame, by, hashes } = loaded;
  await beaconDone;
  k.list.push(...beacon.list);
  if (k.integrityFailed) return stop();
  const seed = seedChecks(c, p, hashes.frameHash, k);
  if (k.integrityFailed) return stop();

  const sel = await selectFrame(
    frame,
    by,
    seed,
    c.strata.map((s) => s.sampleSize),
    { onProgress: (done, total) => o.onProgress?.({ phase: 'tickets', done, total }) },
  );
  const m = compareProofWithSelection(p, frame, sel);
  if (m) {
    k.fail(m.check, 'integrity', m.message);
    return stop();
  }
  const sampled = sel.strata.reduce((a, s) => a + s.sampleSize, 0);
  k.pass(
    'selection',
    'integrity',
    `every ticket, the ${sampled} sampled households in rank order and the replacement order (orderDigest) of every stratum recompute`,
  );
  if (o.selectionPath !== undefined) {
    const mm = await checkSelectionCsv(o.selectionPath, frame, sel, p);
    if (mm) {
      k.fail('selection.csv', 'integrity', mm);
      return stop();
    }
    k.pass('selection.csv', 'integrity', `every row of ${basename(o.selectionPath)} and its sha256`);
  }
  const src =
    p.randomness.source === 'drand'
      ? `drand round ${p.randomness.round} (chain ${short(p.randomness.chainHash)})`
      : 'verifier-supplied randomness';
  if (p.randomness.source === 'verifier' && o.seedHex === p.randomness.randomness)
    notes.push('the randomness is the one you supplied (--seed-hex); no beacon was used');
  return verifyResult(
    k,
    `verified ${ALGORITHM}: frameHash ${short(hashes.frameHash)}, ${src}, seed ${short(seed)}, ${sampled} sampled of ${frame.rows} households in ${sel.strata.length} ${sel.strata.length === 1 ? 'stratum' : 'strata'}`,
    notes,
    findings,
  );
}

/**
 * The proof's strata, sample (rank, id, ticket) and order digests against a recomputed selection; the first difference
 * or null.
 */
function compareProofWithSelection(
  p: Proof,
  frame: Frame,
  sel: FrameSelection,
): { check: string; message: string } | null {
  if (p.strata.length !== sel.strata.length)
    return { check: 'strata', message: `proof has ${p.strata.length} strata, the commitment ${sel.strata.length}` };
  for (let i = 0; i < sel.strata.length; i++) {
    const s = sel.strata[i]!;
    const ps = p.strata[i]!;
    if (ps.name !== s.name || ps.sampleSize !== s.sampleSize || ps.sample.length !== s.sampleSize) {
      return {
        check: `stratum ${s.name}`,
        message: `proof stratum ${i + 1} is ${JSON.stringify(ps.name)} with n = ${ps.sampleSize} (${ps.sample.length} listed); the commitment has ${JSON.stringify(s.name)} with n = ${s.sampleSize}`,
      };
    }
    for (let r = 0; r < s.sampleSize; r++) {
      const row = s.order[r]!;
      const id = frame.ids[row]!;
      const t = ticketHex(sel.tickets, row);
      const got = ps.sample[r]!;
      if (got.household_id !== id || got.ticket !== t || got.rank !== r + 1) {
        return {
          check: `sample ${s.name}`,
          message: `stratum ${s.name} rank ${r + 1}: proof has ${JSON.stringify(got.household_id)} (ticket ${short(got.ticket)}), recomputed ${JSON.stringify(id)} (ticket ${short(t)})`,
        };
      }
    }
    if (ps.orderDigest !== s.orderDigest)
      return {
        check: `replacements ${s.name}`,
        message: `stratum ${s.name}: proof.orderDigest ${short(ps.orderDigest)} is not the recomputed ${short(s.orderDigest)}: the replacement order differs`,
      };
  }
  return null;
}

interface PackageCheckOptions extends TrustOptions {
  commitment: Commitment;
  proof?: Proof;
  /** selection.csv: lets the order, the replacements and the frameHash be checked without the frame. */
  selectionPath?: string;
  /** The frame: the full verification of `sample verify` too. */
  framePath?: string;
  /** How many replacements per stratum to return (default n_h). */
  replacementsPerStratum?: number[];
}

interface PackageCheckResult extends VerifyResult {
  replacements: SelectionFileReading['replacements'] | null;
  /** The checked selection.csv's order (null without a selection.csv that recomputes). */
  order: SelectionFileReading['order'] | null;
}

/**
 * `sample report`: every check that needs no frame — commitment digest, the
 * design, the beacon's signature and round time, trust, the seed, every
 * listed ticket — then selection.csv's when given, and the full
 * verification with the frame when given. Never stops early.
 */
export async function checkPackage(o: PackageCheckOptions): Promise<PackageCheckResult> {
  const c = o.commitment;
  const k = new Checks();
  const p = o.proof;
  const notes: string[] = [];
  if (!p) {
    const bad = designDiscrepancies(c.design.parameters, c.design.stratification);
    if (bad.length > 0) k.fail('commitment.design', 'integrity', `commitment.design.${bad[0]!.message}`);
    else k.pass('commitment.design', 'integrity', 'every size of the committed design follows from its own parameters');
    const chain = chainOf(c);
    if (typeof chain === 'string') k.fail('chain', 'integrity', chain);
    else {
      const why = untrustedChainReason(chain);
      if (why) k.fail('chain pinned', 'trust', why);
      else k.pass('chain pinned', 'trust', `drand's public "${pinnedChainName(chain)}" chain`);
    }
    k.skip('draw', 'integrity', 'no proof: the draw has not been made');
    return {
      ...verifyResult(k, 'committed, not drawn', notes, commitmentFindings(c)),
      replacements: null,
      order: null,
    };
  }
  const chain = commitmentChecks(c, p, k);
  trustChecks(c, p, chain, o, k);
  await beaconChecks(c, p, chain, k);
  const seed = seedChecks(c, p, c.frame.frameHash, k);
  listedTicketChecks(c, p, seed, k);
  let replacements: SelectionFileReading['replacements'] | null = null;
  let order: SelectionFileReading['order'] | null = null;
  if (o.selectionPath) {
    const r = await selectionFileChecks(
      c,
      p,
      seed,
      o.selectionPath,
      o.replacementsPerStratum ?? c.strata.map((s) => s.sampleSize),
      k,
    );
    replacements = r?.replacements ?? null;
    order = r?.order ?? null;
  } else {
    k.skip(
      'selection.csv',
      'integrity',
      'not supplied: the replacement order, the order digests and the frameHash could not be recomputed (give selection.csv or the frame)',
    );
  }
  if (o.framePath) {
    const full = await verifySelection({
      commitment: c,
      proof: p,
      framePath: o.framePath,
      ...(o.selectionPath ? { selectionPath: o.selectionPath } : {}),
      ...(o.seedHex !== undefined ? { seedHex: o.seedHex } : {}),
      ...(o.publishedAt ? { publishedAt: o.publishedAt } : {}),
    });
    if (full.mismatch) k.fail(`frame: ${full.mismatch.check}`, 'integrity', full.mismatch.message);
    else
      k.pass(
        'frame',
        'integrity',
        `with the frame: ${full.checks
          .filter((x) => x.status === 'pass' && x.kind === 'integrity')
          .map((x) => x.check)
          .join(', ')}`,
      );
  } else {
    k.skip('frame', 'integrity', "not supplied: the frame file's other columns (fileSha256) were not checked");
  }
  const sampled = c.strata.reduce((a, s) => a + s.sampleSize, 0);
  return {
    ...verifyResult(
      k,
      `checked ${ALGORITHM}: ${p.randomness.source === 'drand' ? `drand round ${p.randomness.round}` : 'verifier-supplied randomness'}, seed ${short(p.seed)}, ${sampled} sampled of ${c.frame.households} households`,
      notes,
      commitmentFindings(c),
    ),
    replacements,
    order,
  };
}
