/**
 * Where a call's room lives and the access tokens that admit its participants:
 * a LiveKit server (LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET) or, when
 * none is set, the oracle's embedded LiveKit-protocol endpoint. Tokens are
 * LiveKit JWTs minted with livekit-server-sdk: one room per call, the user's
 * DID or the oracle's agent as the identity, a short life (a rejoin asks
 * POST /calls/:id/sync for a fresh one).
 */
import type { CallConnection } from 'oraclekit/plugin';

/** How long a token admits a join (seconds); an established connection outlives it. */
const TOKEN_TTL_S = 600;

export interface LiveKitTarget {
  mode: 'server' | 'embedded';
  /** The ws:// or wss:// URL a LiveKit client connects to. */
  url: string;
  apiKey: string;
  apiSecret: string;
}

/** A LiveKit server URL as clients take it: http(s) becomes ws(s), no trailing slash. */
export function wsUrl(url: string): string {
  return url.replace(/^http/i, 'ws').replace(/\/+$/, '');
}

type CallRole = 'user' | 'agent';

/** A join token for one room: publish, subscribe and data; the role goes in the participant's attributes. */
export async function joinToken(
  target: LiveKitTarget,
  o: { room: string; identity: string; name?: string; role: CallRole },
): Promise<CallConnection> {
  const { AccessToken } = await import('livekit-server-sdk'); // ~0.5 s to load: not at boot
  const at = new AccessToken(target.apiKey, target.apiSecret, {
    identity: o.identity,
    ...(o.name !== undefined ? { name: o.name } : {}),
    ttl: TOKEN_TTL_S,
    // the agent's state, as LiveKit Agents publish it (components-react's useVoiceAssistant reads it)
    attributes: { 'oraclekit.role': o.role, ...(o.role === 'agent' ? { 'lk.agent.state': 'initializing' } : {}) },
  });
  at.addGrant({
    roomJoin: true,
    room: o.room,
    canPublish: true,
    canSubscribe: true,
    canPublishData: true,
    ...(o.role === 'agent' ? { agent: true, canUpdateOwnMetadata: true } : {}),
  });
  const token = await at.toJwt();
  // the token's own exp is stamped by the signing library from the system clock, and the server checks it against the
  // system clock: its expiry is told by the same clock, not the runtime's (which a test may move)
  // eslint-disable-next-line no-restricted-syntax
  return { url: target.url, token, expiresAt: new Date(Date.now() + TOKEN_TTL_S * 1000).toISOString() };
}

/**
 * Where clients join the embedded endpoint: the configured public URL; else the origin the request came to, when its
 * Host was checked (a server bound to one address answers to its own names only, or ORACLE_ALLOWED_HOSTS names them);
 * else undefined: a server on every interface that answers to any host name cannot tell a real origin from a forged
 * Host header (a request naming a loopback host is answered: it reached this machine as such).
 */
export function embeddedJoinUrl(o: {
  publicUrl: string | undefined;
  prefix: string;
  /** The address the oracle listens on. */
  bound: string | undefined;
  /** Whether ORACLE_ALLOWED_HOSTS names the hosts (not `*`). */
  namedHosts: boolean;
  req: { protocol: string; host: string; hostname: string };
  isLoopback: (host: string) => boolean;
}): string | undefined {
  if (o.publicUrl) return `${wsUrl(o.publicUrl)}${o.prefix}`;
  const everyInterface = o.bound === '0.0.0.0' || o.bound === '::';
  if (everyInterface && !o.namedHosts && !o.isLoopback(o.req.hostname)) return undefined;
  return `${o.req.protocol === 'https' ? 'wss' : 'ws'}://${o.req.host}${o.prefix}`;
}
