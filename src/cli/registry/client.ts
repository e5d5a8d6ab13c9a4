/**
 * The CLI's registry client: finds the registry and returns the one typed
 * client (src/lib/registry/client.ts) pointed at it.
 *
 * Which registry, and which key (the first that is set wins):
 * 1. `--registry <url>`, $ORACLEKIT_REGISTRY, the saved `registry`
 *    (settings.ts) → that server, with `--api-key`, $ORACLEKIT_API_KEY or the
 *    saved `apiKey`;
 * 2. else the local daemon from its discovery file — started on first use
 *    when absent (never when CI=true unless $ORACLEKIT_AUTOSTART=1) and
 *    replaced when its version differs from the CLI's — with the same key,
 *    and its discovery token for the admin routes.
 * Every error arrives as an OracleKitError with the server's body; an
 * unreachable registry is status 503 (exit code 9).
 *
 * Free of @oclif/core (the fast path of `sample calc --save` may load it);
 * conf and the daemon's lifecycle code load lazily.
 */
import { RegistryClient } from '../../lib/registry/client.ts';
import { autoStartAllowed, toolEnv } from '../../lib/env.ts';
import type { DesignRecord } from '../../lib/registry/types.ts';
import { cliError } from '../errors.ts';
import { readSettings, type Settings } from './settings.ts';

interface ClientOptions {
  /** Base URL of a remote registry (else the local daemon). */
  registry?: string;
  apiKey?: string;
  /** Start the local daemon when it is not running (default: yes, unless CI=true and ORACLEKIT_AUTOSTART is not 1). */
  autoStart?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The registry flags as parsed by a command → client options. */
export function clientOptions(flags: { registry?: string; 'api-key'?: string }): ClientOptions {
  const o: ClientOptions = {};
  if (flags.registry) o.registry = flags.registry;
  if (flags['api-key']) o.apiKey = flags['api-key'];
  return o;
}

interface Target {
  url: string;
  apiKey?: string;
  /** The local daemon's discovery token (admin routes). */
  token?: string;
  local: boolean;
}

/** Finds (or starts) the local daemon; replaces one of another version. */
export async function ensureDaemon(
  opts: {
    autoStart?: boolean;
    env?: NodeJS.ProcessEnv;
    /** Print "started the local daemon: …" after an auto-start (default yes; the chat says it in its own words). */
    sayStarted?: boolean;
  } = {},
): Promise<{ url: string; token: string; started: boolean }> {
  const env = opts.env ?? process.env;
  const { daemonStatus, startDaemon, stopDaemon } = await import('../daemon/control.ts');
  const { packageVersion } = await import('../../lib/version.ts');
  const version = packageVersion();
  const { status, discovery } = await daemonStatus(env);
  if (status.running && status.healthy && discovery) {
    if (discovery.version === version) return { url: discovery.url, token: discovery.token, started: false };
    await stopDaemon(env); // another version: replace it
  }
  const auto = opts.autoStart ?? autoStartAllowed(env);
  if (status.running && !status.healthy)
    throw cliError(
      'unavailable',
      `the daemon (pid ${status.pid}) is not answering at ${status.url}; try \`oraclekit daemon restart\``,
      { details: { pid: status.pid } },
    );
  if (!auto)
    throw cliError(
      'unavailable',
      'the oraclekit daemon is not running; start it with `oraclekit daemon start` (CI=true never auto-starts it unless ORACLEKIT_AUTOSTART=1)',
    );
  const { slowStep } = await import('../progress.ts');
  const d = await slowStep('starting the local daemon', () => startDaemon({ env }), {
    ...(opts.sayStarted === false
      ? {}
      : { done: (d, s) => `started the local daemon: pid ${d.pid} at ${d.url} (${s} s)` }),
  });
  return { url: d.url, token: d.token, started: true };
}

/** A registry URL from a flag, the environment or the settings: origin + path without a trailing slash. */
export function registryUrl(raw: string, field = 'registry'): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw cliError('invalid_registry_url', `--${field} ${raw} is not a URL`, {
      field,
      value: raw,
      valid: 'http(s)://host[:port]',
    });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw cliError('invalid_registry_url', `--${field} ${raw}: http or https only`, {
      field,
      value: raw,
      valid: 'http(s)://host[:port]',
    });
  return u.origin + u.pathname.replace(/\/+$/, '');
}

export async function resolveTarget(opts: ClientOptions = {}): Promise<Target> {
  const env = opts.env ?? process.env;
  let saved: Pick<Settings, 'registry' | 'apiKey'> = {};
  // each of the two is looked up on its own: flag, then environment, then settings
  const t = toolEnv(env);
  if (!(opts.registry || t.registry) || !(opts.apiKey || t.apiKey)) saved = await readSettings(env).catch(() => ({}));
  const remote = opts.registry || t.registry || saved.registry;
  const apiKey = opts.apiKey || t.apiKey || saved.apiKey;
  if (remote) return { url: registryUrl(remote), local: false, ...(apiKey ? { apiKey } : {}) };
  const d = await ensureDaemon({ autoStart: opts.autoStart, env });
  return { url: d.url, token: d.token, local: true, ...(apiKey ? { apiKey } : {}) };
}

const NO_KEY_HINT =
  'no API key: pass --api-key, set ORACLEKIT_API_KEY, or `oraclekit daemon keys create --did <did> --role <role> --save`';

/** The typed client of the registry the options (flags, environment, settings) point at. */
export async function registryClient(opts: ClientOptions = {}): Promise<RegistryClient> {
  const t = await resolveTarget(opts);
  return new RegistryClient({
    baseUrl: t.url,
    what: t.local ? 'the local daemon' : 'the registry',
    ...(t.apiKey ? { apiKey: t.apiKey } : {}),
    ...(t.token ? { adminToken: t.token } : {}),
    ...(t.local && !t.apiKey ? { unauthorizedHint: NO_KEY_HINT } : {}),
  });
}

/**
 * For `sample calc --save --project <did>`: stores the design through the
 * API (POST /v1/sampling with the sampling.md inputs plus projectId) and
 * returns the stored record. `input` is the object passed to computeDesign.
 */
export async function saveDesign<T = DesignRecord>(
  input: Record<string, unknown>,
  projectId: string,
  opts: ClientOptions & { idempotencyKey?: string } = {},
): Promise<T> {
  return (await registryClient(opts)).saveDesign(input, projectId, opts.idempotencyKey) as Promise<T>;
}
