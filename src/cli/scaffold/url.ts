/** The oracle's URL and the port its runtime listens on. */
import { cliError } from '../errors.ts';

export const DEFAULT_PORT = 3000;
export const DEFAULT_URL = `http://localhost:${DEFAULT_PORT}`;

export function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Addresses a server binds to but no client can connect to. */
function isUnspecified(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || /^[0:]+$/.test(h);
}

export interface OracleUrl {
  /** Normalised: origin + path without a trailing slash. */
  url: string;
  local: boolean;
  /** The port in the URL (explicit or the scheme's default). */
  port: number;
  /** A local URL without a port: it means the scheme's port (80 or 443) — say so (`impliedPortNote`). */
  portImplied: boolean;
  /**
   * HOST for .env, where the runtime binds: the URL's own loopback address (127.x.y.z, ::1), else 127.0.0.1 —
   * this machine only, also behind a proxy on the same machine; 0.0.0.0 (every interface) only when you set it.
   */
  bindHost: string;
}

/** What a local URL without a port means, for the user (a warning, not a refusal). */
export function impliedPortNote(u: OracleUrl, flag = 'url'): string | undefined {
  if (!u.local || !u.portImplied) return undefined;
  return `--${flag} ${u.url} has no port, so it means port ${u.port} (the ${u.url.startsWith('https:') ? 'https' : 'http'} default): the oracle will listen on PORT=${u.port}, which needs root or CAP_NET_BIND_SERVICE. To use another port, name it: ${u.url.replace(/^(https?:\/\/[^/]+)/, `$1:3000`)}`;
}

export function parseOracleUrl(raw: string, flag = 'url'): OracleUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw cliError('invalid_url', `--${flag} ${raw} is not a URL`, {
      field: flag,
      value: raw,
      valid: 'http(s)://host[:port][/path]',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw cliError('invalid_url', `--${flag} ${raw}: http or https only`, {
      field: flag,
      value: raw,
      valid: 'http(s)://host[:port]',
    });
  if (u.username || u.password)
    throw cliError('invalid_url', `--${flag}: no credentials in URLs`, { field: flag, value: raw });
  if (u.search || u.hash) throw cliError('invalid_url', `--${flag}: no query or fragment`, { field: flag, value: raw });
  if (isUnspecified(u.hostname)) {
    throw cliError(
      'invalid_url',
      `--${flag} ${raw}: ${u.hostname} is an address a server binds to, not one a client can reach; register the address clients use`,
      {
        field: flag,
        value: raw,
        valid: `http://localhost:<port> (this machine; the oracle binds 127.0.0.1, or HOST in .env) or the public http(s) URL in front of it`,
      },
    );
  }
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  // new URL() drops a port that is the scheme's default: ":80" written out is not implied
  const explicit = /^[a-z]+:\/\/(\[[^\]]*\]|[^/?#:]*):\d+/i.test(raw.trim());
  const h = u.hostname.replace(/^\[|\]$/g, '');
  const bindHost = /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1' ? h : '127.0.0.1';
  return {
    url: u.origin + u.pathname.replace(/\/+$/, ''),
    local: isLocalHost(u.hostname),
    port,
    portImplied: !explicit,
    bindHost,
  };
}
