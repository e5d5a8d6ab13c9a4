/**
 * The CLI's client of the registry API. Finds the registry:
 * 1. `--registry <url>` (or $ORACLEKIT_REGISTRY, or the saved setting
 *    `registry`) → that server, with `--api-key` / $ORACLEKIT_API_KEY / the
 *    saved `apiKey`;
 * 2. else the local daemon from its discovery file — started on first use
 *    when absent (never when CI=true unless $ORACLEKIT_AUTOSTART=1), and
 *    replaced when its version differs from the CLI's.
 * Every error arrives as an OracleKitError with the server's body; an
 * unreachable registry is status 503 (exit code 9).
 *
 * Heavy modules (undici, conf, the daemon's lifecycle code) load lazily, so
 * commands that do not talk to a registry (sample calc) do not pay for them.
 */
import type { DomainView } from '../lib/registry/domain.ts';
import { OracleKitError, type ErrorBody } from '../lib/errors.ts';

export interface ClientOptions {
  /** Base URL of a remote registry (else the local daemon). */
  registry?: string;
  apiKey?: string;
  /** Start the local daemon when it is not running (default: yes, unless CI=true and ORACLEKIT_AUTOSTART is not 1). */
  autoStart?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Send the discovery token instead of an API key (admin routes of the local daemon). */
  admin?: boolean;
}

export interface Target {
  url: string;
  apiKey?: string;
  token?: string;
  local: boolean;
}

export interface Settings {
  registry?: string;
  apiKey?: string;
}

async function settingsStore(env: NodeJS.ProcessEnv) {
  const { default: Conf } = await import('conf');
  const { configDir } = await import('../lib/paths.ts');
  return new Conf<Settings>({ projectName: 'oraclekit', cwd: configDir(env), configName: 'settings', configFileMode: 0o600 } as ConstructorParameters<typeof Conf<Settings>>[0]);
}

export async function readSettings(env = process.env): Promise<Settings> {
  const s = await settingsStore(env);
  return { registry: s.get('registry'), apiKey: s.get('apiKey') };
}

export async function saveSettings(patch: Settings, env = process.env): Promise<string> {
  const s = await settingsStore(env);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) s.delete(k as keyof Settings);
    else s.set(k as keyof Settings, v);
  }
  return s.path;
}

function unavailable(message: string, details?: Record<string, unknown>): OracleKitError {
  return new OracleKitError({ status: 503, code: 'unavailable', message, details });
}

/** Finds (or starts) the local daemon; replaces one of another version. */
export async function ensureDaemon(opts: { autoStart?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<{ url: string; token: string; started: boolean }> {
  const env = opts.env ?? process.env;
  const { daemonStatus, startDaemon, stopDaemon } = await import('./daemon/control.ts');
  const { packageVersion } = await import('../lib/version.ts');
  const version = packageVersion();
  const { status, discovery } = await daemonStatus(env);
  if (status.running && status.healthy && discovery) {
    if (discovery.version === version) return { url: discovery.url, token: discovery.token, started: false };
    await stopDaemon(env); // another version: replace it
  }
  const auto = opts.autoStart ?? (env.CI === 'true' || env.CI === '1' ? env.ORACLEKIT_AUTOSTART === '1' : env.ORACLEKIT_AUTOSTART !== '0');
  if (status.running && !status.healthy) throw unavailable(`the daemon (pid ${status.pid}) is not answering at ${status.url}; try \`oraclekit daemon restart\``, { pid: status.pid });
  if (!auto) throw unavailable('the oraclekit daemon is not running; start it with `oraclekit daemon start` (CI=true never auto-starts it unless ORACLEKIT_AUTOSTART=1)');
  const d = await startDaemon({ env });
  return { url: d.url, token: d.token, started: true };
}

export async function resolveTarget(opts: ClientOptions = {}): Promise<Target> {
  const env = opts.env ?? process.env;
  let saved: Settings = {};
  const needSaved = !opts.registry || !opts.apiKey;
  if (needSaved && !env.ORACLEKIT_REGISTRY && !env.ORACLEKIT_API_KEY) saved = await readSettings(env).catch(() => ({}));
  const remote = opts.registry || env.ORACLEKIT_REGISTRY || saved.registry;
  const apiKey = opts.apiKey || env.ORACLEKIT_API_KEY || saved.apiKey;
  if (remote) {
    let u: URL;
    try {
      u = new URL(remote);
    } catch {
      throw new OracleKitError({ status: 400, code: 'invalid_registry_url', message: `--registry ${remote} is not a URL`, field: 'registry', value: remote, valid: 'http(s)://host[:port]' });
    }
    const t: Target = { url: u.origin + u.pathname.replace(/\/+$/, ''), local: false };
    if (apiKey) t.apiKey = apiKey;
    return t;
  }
  const d = await ensureDaemon({ autoStart: opts.autoStart, env });
  const t: Target = { url: d.url, token: d.token, local: true };
  if (apiKey) t.apiKey = apiKey;
  return t;
}

export interface RequestOptions extends ClientOptions {
  headers?: Record<string, string>;
  /** Return the raw status and headers too. */
  full?: boolean;
}

export interface Reply<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** One API call; throws OracleKitError with the server's error body on a non-2xx. */
export async function call<T = unknown>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<Reply<T>> {
  const target = await resolveTarget(opts);
  const { request } = await import('undici');
  const headers: Record<string, string> = { accept: 'application/json', ...(opts.headers ?? {}) };
  const credential = opts.admin && target.token ? target.token : target.apiKey;
  if (credential) headers.authorization = `Bearer ${credential}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res;
  try {
    res = await request(target.url + path, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
  } catch (e) {
    throw unavailable(`cannot reach the registry at ${target.url}: ${(e as Error).message}`, { url: target.url });
  }
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (res.statusCode >= 400) {
    const b = (parsed ?? {}) as Partial<ErrorBody>;
    let message = typeof b.message === 'string' ? b.message : `HTTP ${res.statusCode}`;
    if (res.statusCode === 401 && target.local && !target.apiKey) message += ' — no API key: pass --api-key, set ORACLEKIT_API_KEY, or `oraclekit daemon keys create --did <did> --role <role> --save`';
    throw new OracleKitError({ status: res.statusCode, code: typeof b.code === 'string' ? b.code : 'http_error', message, field: b.field, details: b.details });
  }
  return { status: res.statusCode, headers: res.headers, body: parsed as T };
}

export const encodeDid = (did: string) => encodeURIComponent(did);

/**
 * For `sample calc --save --project <did>`: stores the design through the
 * API (POST /v1/sampling with the sampling.md inputs plus projectId) and
 * returns the stored record (designId, version, parameters, verification …).
 * `input` is the same object the command passes to computeDesign.
 */
export async function saveDesign<T = Record<string, unknown>>(input: Record<string, unknown>, projectId: string, opts: ClientOptions & { idempotencyKey?: string } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  const r = await call<T>('POST', '/v1/sampling', { ...input, projectId }, { ...opts, headers });
  return r.body;
}


// ------------------------------------------------ shared by the domain commands

/** A domain as the registry returns it (the one definition: src/lib/registry/domain.ts). */
export type DomainOut = DomainView;

export function parseServiceFlag(s: string): { id: string; type: string; serviceEndpoint: string } {
  const m = /^([^=]+)=([^,]+),(.+)$/.exec(s);
  if (!m) throw new OracleKitError({ status: 400, code: 'invalid_service', message: `--service ${s} is not id=type,url`, field: 'service', value: s, valid: 'id=type,url, e.g. "#api=oracleService,https://host"' });
  return { id: m[1]!.trim(), type: m[2]!.trim(), serviceEndpoint: m[3]!.trim() };
}

export function printDomain(cmd: { out(s: string): void } | object, d: DomainOut): void {
  const out = (s: string) => process.stdout.write(s + '\n');
  void cmd;
  out(`${d.id}`);
  out(`  type         ${d.type}${d.class ? `  class ${d.class}` : ''}`);
  out(`  state        ${d.state} (version ${d.version}; active ${d.active}, eligible ${d.eligible})`);
  if (typeof d.metadata?.name === 'string') out(`  name         ${d.metadata.name}`);
  out(`  controllers  ${d.controllers.join(', ')}`);
  if (d.validFrom || d.validUntil) out(`  valid        ${d.validFrom ?? '-'} .. ${d.validUntil ?? '-'}`);
  if (d.alsoKnownAs) out(`  alsoKnownAs  ${d.alsoKnownAs}`);
  for (const s of d.services ?? []) out(`  service      ${s.id} ${s.type} ${s.serviceEndpoint}`);
}
