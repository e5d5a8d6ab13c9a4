/**
 * drand beacon rounds: chain info, round times, and verification of a round
 * JSON ({round, randomness, signature[, previous_signature]}) against the
 * chain's public key. The BLS check is bls.ts (@noble/curves' pairing, as
 * drand signs each scheme); randomness = sha256(signature) and the round
 * number are checked first so a failure names its cause.
 */
import { sha256Hex } from '../hash.ts';
import { verifyDrandSignature } from './bls.ts';
import { Worker } from 'node:worker_threads';
import { beaconError, type BeaconErrorCode } from './errors.ts';

const SUPPORTED_SCHEMES = [
  'bls-unchained-g1-rfc9380',
  'pedersen-bls-chained',
  'pedersen-bls-unchained',
  'bls-unchained-on-g1',
] as const;
export type SchemeId = (typeof SUPPORTED_SCHEMES)[number];

export interface ChainInfo {
  public_key: string;
  period: number;
  genesis_time: number;
  hash: string;
  schemeID: SchemeId;
  groupHash?: string;
  metadata?: { beaconID?: string };
}

export interface BeaconRound {
  round: number;
  randomness: string;
  signature: string;
  previous_signature?: string;
}

/**
 * The public drand chains a verifier can trust, pinned in the code: the
 * League of Entropy mainnet's "quicknet" and "default" chains, exactly as
 * their relays publish them at https://api.drand.sh/<hash>/info (the same
 * values ship in drand-client's lib/defaults.ts and drand/tlock-js's
 * src/drand/defaults.ts). Randomness from any other chain — including a chain
 * info file whose key the committer may hold — is never trusted by `sample
 * verify` or `sample report` (docs/selection.md, "Trust").
 */
export const PINNED_CHAINS: Readonly<Record<'quicknet' | 'default', Readonly<ChainInfo>>> = {
  quicknet: {
    public_key:
      '83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a',
    period: 3,
    genesis_time: 1692803367,
    hash: '52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971',
    groupHash: 'f477d5c89f21a17c863a7f937c6a6d15859414d2be09cd448d4279af331c5d3e',
    schemeID: 'bls-unchained-g1-rfc9380',
    metadata: { beaconID: 'quicknet' },
  },
  default: {
    public_key: '868f005eb8e6e4ca0a47c8a77ceaa5309a47978a7c71bc5cce96366b5d7a569937c529eeda66c7293784a9402801af31',
    period: 30,
    genesis_time: 1595431050,
    hash: '8990e7a9aaed2ffed73dbd7092123d6f289930540d7651336225dc172e51b2ce',
    groupHash: '176f93498eac9ca337150b46d21dd58673ea4e3581185f869672e59fa4cb390a',
    schemeID: 'pedersen-bls-chained',
    metadata: { beaconID: 'default' },
  },
};

type PinnedChainName = keyof typeof PINNED_CHAINS;

/** The name of the pinned chain this chain info is — same hash, key, period, genesis and scheme — or undefined. */
export function pinnedChainName(chain: ChainInfo): PinnedChainName | undefined {
  for (const [name, k] of Object.entries(PINNED_CHAINS) as [PinnedChainName, ChainInfo][]) {
    if (
      k.hash === chain.hash &&
      k.public_key === chain.public_key &&
      k.period === chain.period &&
      k.genesis_time === chain.genesis_time &&
      k.schemeID === chain.schemeID
    )
      return name;
  }
  return undefined;
}

/** Why a chain is not trusted (undefined when it is a pinned chain). */
export function untrustedChainReason(chain: ChainInfo): string | undefined {
  if (pinnedChainName(chain)) return undefined;
  const pinned = Object.entries(PINNED_CHAINS)
    .map(([n, k]) => `${n} ${k.hash.slice(0, 12)}…`)
    .join(', ');
  const sameHash = Object.values(PINNED_CHAINS).find((k) => k.hash === chain.hash);
  const what = sameHash
    ? `chain ${chain.hash.slice(0, 12)}… claims the hash of drand's ${sameHash.metadata?.beaconID} chain but its ` +
      `public key, period, genesis or scheme differ from the published ones`
    : `chain ${chain.hash.slice(0, 12)}… ` +
      `(${chain.schemeID}${chain.metadata?.beaconID ? `, "${chain.metadata.beaconID}"` : ''}) is not one of the pinned public drand chains (${pinned})`;
  return `${what}: whoever holds that chain's key can sign any round, so the committer could have chosen the randomness`;
}

const HEX = /^[0-9a-f]+$/;
const isHex = (v: unknown, bytes?: number): v is string =>
  typeof v === 'string' && HEX.test(v) && v.length % 2 === 0 && (bytes === undefined || v.length === bytes * 2);

/** Validates chain info (drand's /info JSON); field names the source for messages. */
export function parseChainInfo(raw: unknown, source = 'chain'): ChainInfo {
  if (typeof raw !== 'object' || raw === null)
    throw beaconError(
      'invalid_chain_info',
      source,
      raw,
      'drand chain info JSON ({public_key, period, genesis_time, hash, schemeID})',
    );
  const o = raw as Record<string, unknown>;
  const bad = (f: string, valid: string) => beaconError('invalid_chain_info', `${source}.${f}`, o[f], valid);
  if (!isHex(o.public_key)) throw bad('public_key', 'lowercase hex of the group public key');
  if (typeof o.period !== 'number' || !Number.isInteger(o.period) || o.period < 1)
    throw bad('period', 'an integer number of seconds >= 1');
  if (typeof o.genesis_time !== 'number' || !Number.isInteger(o.genesis_time) || o.genesis_time < 0)
    throw bad('genesis_time', 'a Unix time in seconds');
  if (!isHex(o.hash, 32)) throw bad('hash', '64 lowercase hex characters (the chain hash)');
  if (!SUPPORTED_SCHEMES.includes(o.schemeID as SchemeId))
    throw bad('schemeID', `one of ${SUPPORTED_SCHEMES.join(', ')}`);
  const out: ChainInfo = {
    public_key: o.public_key,
    period: o.period,
    genesis_time: o.genesis_time,
    hash: o.hash,
    schemeID: o.schemeID as SchemeId,
  };
  if (typeof o.groupHash === 'string') out.groupHash = o.groupHash;
  const beaconID = (o.metadata as { beaconID?: unknown } | undefined)?.beaconID;
  if (typeof beaconID === 'string') out.metadata = { beaconID };
  const known = Object.values(PINNED_CHAINS).find((k) => k.hash === out.hash);
  if (
    known &&
    (known.public_key !== out.public_key ||
      known.period !== out.period ||
      known.genesis_time !== out.genesis_time ||
      known.schemeID !== out.schemeID)
  ) {
    throw beaconError(
      'chain_mismatch',
      `${source}.public_key`,
      out.public_key,
      `the published parameters of chain ${known.hash} (${known.metadata?.beaconID})`,
      {
        message:
          `${source}: chain hash ${out.hash} is drand's ${known.metadata?.beaconID} chain but the public ` +
          `key, period, genesis or scheme differ from the published ones; valid: the published chain info`,
      },
    );
  }
  return out;
}

/** The chain info of a pinned chain name ("quicknet", "default"), or undefined. */
export function knownChain(name: string): ChainInfo | undefined {
  const c = (PINNED_CHAINS as Record<string, ChainInfo>)[name];
  return c ? structuredClone(c) : undefined;
}

const isChained = (c: ChainInfo) => c.schemeID === 'pedersen-bls-chained';

export function parseBeaconRound(raw: unknown, chain: ChainInfo, source = 'beacon'): BeaconRound {
  if (typeof raw !== 'object' || raw === null)
    throw beaconError('invalid_beacon', source, raw, 'a drand round JSON {round, randomness, signature}');
  const o = raw as Record<string, unknown>;
  if (typeof o.round !== 'number' || !Number.isInteger(o.round) || o.round < 1)
    throw beaconError('invalid_beacon', `${source}.round`, o.round, 'an integer >= 1');
  if (!isHex(o.randomness, 32))
    throw beaconError('invalid_beacon', `${source}.randomness`, o.randomness, '64 lowercase hex characters');
  if (!isHex(o.signature))
    throw beaconError('invalid_beacon', `${source}.signature`, o.signature, 'lowercase hex of the BLS signature');
  const out: BeaconRound = { round: o.round, randomness: o.randomness, signature: o.signature };
  if (isChained(chain)) {
    if (!isHex(o.previous_signature))
      throw beaconError(
        'invalid_beacon',
        `${source}.previous_signature`,
        o.previous_signature,
        `lowercase hex (scheme ${chain.schemeID} chains each round to the previous signature)`,
      );
    out.previous_signature = o.previous_signature;
  }
  return out;
}

/** Unix time (seconds) at which a round is produced: genesis + (round - 1) * period. */
export function roundTime(chain: ChainInfo, round: number): number {
  return chain.genesis_time + (round - 1) * chain.period;
}

/** The first round produced strictly after unix time t (seconds). */
export function firstRoundAfter(chain: ChainInfo, t: number): number {
  if (t < chain.genesis_time) return 1;
  return Math.floor((t - chain.genesis_time) / chain.period) + 2;
}

/**
 * Verifies a round: its number is the expected one, randomness =
 * sha256(signature), and the BLS signature verifies against the chain public
 * key (bls.ts). Throws beacon_round_mismatch or invalid_beacon_signature.
 */
export async function verifyBeaconRound(
  chain: ChainInfo,
  beacon: BeaconRound,
  expectedRound: number,
  source = 'beacon',
  opts: { signature?: boolean } = {},
): Promise<void> {
  if (beacon.round !== expectedRound) {
    throw beaconError(
      'beacon_round_mismatch',
      `${source}.round`,
      beacon.round,
      `the committed round ${expectedRound}`,
      {
        message:
          `${source}.round = ${beacon.round} is not the committed round ${expectedRound}; valid: the round ` +
          `fixed in the commitment`,
      },
    );
  }
  const expected = sha256Hex(Buffer.from(beacon.signature, 'hex'));
  if (expected !== beacon.randomness) {
    throw beaconError(
      'invalid_beacon_signature',
      `${source}.randomness`,
      beacon.randomness,
      `sha256(signature) = ${expected}`,
      {
        message:
          `${source}.randomness = ${beacon.randomness} is not sha256(signature) = ${expected}; valid: the ` +
          `randomness drand derived from the signature`,
      },
    );
  }
  if (opts.signature === false) return;
  const ok = verifyDrandSignature(
    chain.schemeID,
    chain.public_key,
    expectedRound,
    beacon.signature,
    beacon.previous_signature,
  );
  if (!ok) {
    throw beaconError(
      'invalid_beacon_signature',
      `${source}.signature`,
      beacon.signature,
      `a ${chain.schemeID} signature of round ${expectedRound} by chain ${chain.hash}`,
      {
        message:
          `${source}.signature does not verify for round ${expectedRound} against the public key of chain ` +
          `${chain.hash} (${chain.schemeID}); valid: the round as published by that drand chain`,
      },
    );
  }
}

/**
 * verifyBeaconRound on a worker thread (verify-worker.ts): the same checks
 * and the same errors, while the calling thread does other work (reading the
 * frame). Rejects with the error verifyBeaconRound would have thrown.
 */
export function verifyBeaconRoundInWorker(
  chain: ChainInfo,
  beacon: BeaconRound,
  expectedRound: number,
  source = 'beacon',
): Promise<void> {
  return new Promise((resolve, reject) => {
    const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
    const w = new Worker(new URL(`./verify-worker${ext}`, import.meta.url), {
      workerData: { chain, beacon, round: expectedRound, source },
    });
    let settled = false;
    w.once(
      'message',
      (m: {
        ok: boolean;
        error?: { code: BeaconErrorCode; field: string; value: unknown; valid: string; message: string };
        crash?: string;
      }) => {
        settled = true;
        if (m.ok) resolve();
        else if (m.error)
          reject(beaconError(m.error.code, m.error.field, m.error.value, m.error.valid, { message: m.error.message }));
        else reject(new Error(`beacon verification failed: ${m.crash}`));
        void w.terminate();
      },
    );
    w.once('error', (e) => {
      settled = true;
      reject(e);
    });
    w.once('exit', (code) => {
      if (!settled) reject(new Error(`beacon verification worker exited with code ${code}`));
    });
  });
}
