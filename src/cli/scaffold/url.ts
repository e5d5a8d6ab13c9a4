/** The oracle's URL and the port its runtime listens on. */
import { cliError } from '../errors.ts';

export const DEFAULT_PORT = 3000;
export const DEFAULT_URL = `http://localhost:${DEFAULT_PORT}`;

function isLocalHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '0.0.0.0';
}

export interface OracleUrl {
  /** Normalised: origin + path without a trailing slash. */
  url: string;
  local: boolean;
  /** The port in the URL (explicit or the scheme's default). */
  port: number;
}

export function parseOracleUrl(raw: string, flag = 'url'): OracleUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw cliError('invalid_url', `--${flag} ${raw} is not a URL`, { field: flag, value: raw, valid: 'http(s)://host[:port][/path]' });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw cliError('invalid_url', `--${flag} ${raw}: http or https only`, { field: flag, value: raw, valid: 'http(s)://host[:port]' });
  if (u.username || u.password) throw cliError('invalid_url', `--${flag}: no credentials in URLs`, { field: flag, value: raw });
  if (u.search || u.hash) throw cliError('invalid_url', `--${flag}: no query or fragment`, { field: flag, value: raw });
  const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
  return { url: u.origin + u.pathname.replace(/\/+$/, ''), local: isLocalHost(u.hostname), port };
}
