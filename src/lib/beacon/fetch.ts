/**
 * Fetching a drand round from an HTTP relay, for `sample select beacon`: GET
 * <relay>/<chain hash>/public/<round>, then the same checks as a round given
 * as a file (parseBeaconRound, verifyBeaconRound: the round number,
 * randomness = sha256(signature) and the BLS signature against the chain's
 * public key). A relay is only a messenger: what it serves is believed only
 * once the signature verifies.
 */
import { beaconError } from './errors.ts';
import { fetchJson, type FetchJsonReply } from '../fetch-json.ts';
import { parseBeaconRound, roundTime, verifyBeaconRound, type BeaconRound, type ChainInfo } from './drand.ts';

/** drand's public HTTP relays (League of Entropy), tried in order. */
const DEFAULT_RELAYS = [
  'https://api.drand.sh',
  'https://api2.drand.sh',
  'https://api3.drand.sh',
  'https://drand.cloudflare.com',
] as const;

/** The URL of a round at a relay. */
function roundUrl(relay: string, chain: ChainInfo, round: number): string {
  return `${relay.replace(/\/+$/, '')}/${chain.hash}/public/${round}`;
}

interface FetchRoundOptions {
  relays?: readonly string[];
  /** Per relay. */
  timeoutMs?: number;
  now?: Date;
}

/** The round, fetched from the first relay that serves it, and its BLS signature verified. */
export async function fetchRound(
  chain: ChainInfo,
  round: number,
  o: FetchRoundOptions = {},
): Promise<{ beacon: BeaconRound; url: string }> {
  const at = roundTime(chain, round);
  const now = (o.now ?? new Date()).getTime() / 1000;
  if (at > now) {
    throw beaconError(
      'round_not_produced',
      'round',
      round,
      `a round produced by now (it is produced at ${new Date(at * 1000).toISOString()})`,
      {
        message:
          `round ${round} is produced at ${new Date(at * 1000).toISOString()}, ${Math.ceil(at - now)} s ` +
          `from now; valid: run this again after that time`,
      },
    );
  }
  const failures: string[] = [];
  for (const relay of o.relays ?? DEFAULT_RELAYS) {
    const url = roundUrl(relay, chain, round);
    let reply: FetchJsonReply<unknown>;
    try {
      reply = await fetchJson({
        url,
        timeoutMs: o.timeoutMs ?? 10_000,
        what: 'the relay',
        fail: (f) => new Error(f.message),
      });
    } catch (e) {
      failures.push(`${url}: ${(e as Error).message}`);
      continue;
    }
    if (!reply.ok || !reply.json) {
      failures.push(`${url}: ${reply.ok ? 'the reply is not JSON' : `HTTP ${reply.status}`}`);
      continue;
    }
    const beacon = parseBeaconRound(reply.body, chain, url);
    await verifyBeaconRound(chain, beacon, round, url);
    return { beacon, url };
  }
  throw beaconError(
    'beacon_unreachable',
    'relay',
    o.relays ?? DEFAULT_RELAYS,
    'a drand relay that answers with the round',
    {
      message:
        `no relay served round ${round} of chain ${chain.hash.slice(0, 16)}…: ${failures.join('; ')}; ` +
        `valid: a reachable relay (--relay URL), or fetch ${roundUrl(DEFAULT_RELAYS[0], chain, round)} on any connected device and pass the saved file to \`sample select draw --beacon\``,
    },
  );
}
