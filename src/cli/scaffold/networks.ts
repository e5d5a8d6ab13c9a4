/**
 * Networks and their registries. `local` is the local daemon's registry
 * (found or started like every registry command). devnet, testnet and
 * mainnet are remote registries whose URLs (and API keys) live in the CLI
 * settings (conf, settings.json in the config directory, mode 0600) under
 * `networks.<name>`; `--registry <url>` (and `--api-key`) given with a
 * network are saved there for the next time.
 *
 * Against the local daemon the API key is made for you: the CLI, holding the
 * daemon's discovery token, creates a key bound to your DID (roles
 * representative, member) and saves it under `networks.local`; a key bound
 * to another DID (after a new login) or unknown to the daemon (a new
 * database) is replaced.
 */
import { OracleKitError } from '../../lib/errors.ts';

export const NETWORKS = ['local', 'devnet', 'testnet', 'mainnet'] as const;
export type Network = (typeof NETWORKS)[number];

export interface NetworkSettings {
  registry?: string;
  apiKey?: string;
  /** The DID the saved key is bound to. */
  did?: string;
  /** The Protocol domain new oracles use as their class. */
  oracleClass?: string;
}

interface SettingsShape {
  registry?: string;
  apiKey?: string;
  networks?: Partial<Record<Network, NetworkSettings>>;
}

async function store(env: NodeJS.ProcessEnv) {
  const { default: Conf } = await import('conf');
  const { configDir } = await import('../identity/store.ts');
  return new Conf<SettingsShape>({ projectName: 'oraclekit', cwd: configDir(env), configName: 'settings', configFileMode: 0o600 } as ConstructorParameters<typeof Conf<SettingsShape>>[0]);
}

export async function readNetwork(network: Network, env = process.env): Promise<NetworkSettings> {
  const s = await store(env);
  return { ...(s.get('networks')?.[network] ?? {}) };
}

export async function saveNetwork(network: Network, patch: NetworkSettings, env = process.env): Promise<void> {
  const s = await store(env);
  const all = { ...(s.get('networks') ?? {}) };
  const next: NetworkSettings = { ...(all[network] ?? {}) };
  for (const [k, v] of Object.entries(patch) as [keyof NetworkSettings, string | undefined][]) {
    if (v === undefined) delete next[k];
    else next[k] = v;
  }
  all[network] = next;
  s.set('networks', all);
}

/** The general saved key (used by `domain …` commands against the local daemon), when none is saved yet. */
export async function adoptGeneralKey(apiKey: string, env = process.env): Promise<boolean> {
  const s = await store(env);
  if (s.get('apiKey') || s.get('registry')) return false;
  s.set('apiKey', apiKey);
  return true;
}

export interface Connection {
  network: Network;
  url: string;
  apiKey: string;
  local: boolean;
  /** The daemon's discovery token (local only). */
  token?: string;
  /** A key was created (local first run). */
  createdKey: boolean;
}

interface HttpReply<T> {
  status: number;
  body: T;
}

/** One JSON request; an unreachable server is a 503 OracleKitError (exit 9). */
export async function http<T>(method: string, url: string, o: { body?: unknown; bearer?: string; headers?: Record<string, string>; what: string; timeoutMs?: number }): Promise<HttpReply<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...(o.headers ?? {}) };
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: AbortSignal.timeout(o.timeoutMs ?? 15_000) });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message;
    throw new OracleKitError({ status: 503, code: 'unavailable', message: `cannot reach ${o.what} at ${new URL(url).origin}: ${cause}`, details: { url } });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body: body as T };
}

export function fromErrorBody(r: HttpReply<unknown>, what: string): OracleKitError {
  const b = (r.body ?? {}) as { code?: string; message?: string; field?: string; details?: Record<string, unknown> };
  return new OracleKitError({ status: r.status, code: typeof b.code === 'string' ? b.code : 'http_error', message: `${what}: ${typeof b.message === 'string' ? b.message : `HTTP ${r.status}`}`, ...(b.field ? { field: b.field } : {}), ...(b.details ? { details: b.details } : {}) });
}

export interface ConnectOptions {
  network: Network;
  principal: string;
  registry?: string;
  apiKey?: string;
  autoStart?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Finds the network's registry and an API key for the principal. */
export async function connect(o: ConnectOptions): Promise<Connection> {
  const env = o.env ?? process.env;
  const saved = await readNetwork(o.network, env);
  if (o.network !== 'local' || o.registry) {
    const url = (o.registry ?? saved.registry)?.replace(/\/+$/, '');
    if (!url) {
      throw new OracleKitError({ status: 400, code: 'unknown_network_registry', message: `no registry URL is saved for ${o.network}: pass --registry <url> (saved for next time)`, field: 'registry', valid: 'an http(s) URL' });
    }
    try {
      new URL(url);
    } catch {
      throw new OracleKitError({ status: 400, code: 'invalid_registry_url', message: `--registry ${url} is not a URL`, field: 'registry', value: url, valid: 'http(s)://host[:port]' });
    }
    const apiKey = o.apiKey ?? env.ORACLEKIT_API_KEY ?? saved.apiKey;
    if (!apiKey) throw new OracleKitError({ status: 401, code: 'missing_api_key', message: `the ${o.network} registry needs an API key bound to ${o.principal}: pass --api-key (saved for next time)`, field: 'api-key' });
    // reachable and the key works
    const r = await http<unknown>('GET', `${url}/v1/domains?limit=1`, { bearer: apiKey, what: `the ${o.network} registry` });
    if (r.status >= 400) throw fromErrorBody(r, `the ${o.network} registry refused the API key`);
    if (o.network !== 'local') await saveNetwork(o.network, { registry: url, apiKey }, env);
    return { network: o.network, url, apiKey, local: false, createdKey: false };
  }
  const { ensureDaemon } = await import('../registry-client.ts');
  const d = await ensureDaemon({ autoStart: o.autoStart, env });
  let apiKey = o.apiKey ?? (saved.did === o.principal ? saved.apiKey : undefined);
  if (apiKey) {
    const r = await http<unknown>('GET', `${d.url}/v1/domains?limit=1`, { bearer: apiKey, what: 'the local daemon' });
    if (r.status === 401 && !o.apiKey) apiKey = undefined; // a key of another database: make a new one
    else if (r.status >= 400) throw fromErrorBody(r, 'the local registry refused the API key');
  }
  let createdKey = false;
  if (!apiKey) {
    const r = await http<{ key: string }>('POST', `${d.url}/admin/v1/keys`, { bearer: d.token, body: { did: o.principal, roles: ['representative', 'member'], label: 'oraclekit new' }, what: 'the local daemon' });
    if (r.status !== 201) throw fromErrorBody(r, 'creating an API key on the local daemon');
    apiKey = r.body.key;
    createdKey = true;
    await saveNetwork('local', { apiKey, did: o.principal }, env);
    await adoptGeneralKey(apiKey, env);
  }
  return { network: 'local', url: d.url, apiKey, local: true, token: d.token, createdKey };
}
