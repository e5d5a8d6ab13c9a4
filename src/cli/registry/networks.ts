/**
 * Networks and their registries, for the scaffolder (`new`,
 * `update-oracle-api-url`). `local` is the local daemon's registry (found or
 * started like every registry command). devnet, testnet and mainnet are
 * remote registries whose URLs (and API keys) live in the settings
 * (settings.ts) under `networks.<name>`; `--registry <url>` (and `--api-key`)
 * given with a network are saved there for the next time.
 *
 * Against the local daemon the API key is made for you: the CLI, holding the
 * daemon's discovery token, creates a key bound to your DID (roles
 * representative, member) and saves it under `networks.local`; a key bound
 * to another DID (after a new login) or unknown to the daemon (a new
 * database) is replaced.
 */
import { RegistryClient, errorFromReply } from '../../lib/registry/client.ts';
import { toolEnv } from '../../lib/env.ts';
import type { KeyCreated } from '../../lib/registry/types.ts';
import { cliError } from '../errors.ts';
import { ensureDaemon, registryUrl } from './client.ts';
import { adoptGeneralKey, readNetwork, saveNetwork, type Network } from './settings.ts';

export { NETWORKS, type Network } from './settings.ts';

export interface Connection {
  network: Network;
  url: string;
  apiKey: string;
  local: boolean;
  /** The daemon's discovery token (local only). */
  token?: string;
  /** A key was created (local first run). */
  createdKey: boolean;
  /** The typed client, with the key (and, on local, the token for admin routes). */
  client: RegistryClient;
}

interface ConnectOptions {
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
    const raw = o.registry ?? saved.registry;
    if (!raw)
      throw cliError(
        'unknown_network_registry',
        `no registry URL is saved for ${o.network}: pass --registry <url> (saved for next time)`,
        { field: 'registry', valid: 'an http(s) URL' },
      );
    const url = registryUrl(raw);
    const apiKey = o.apiKey ?? toolEnv(env).apiKey ?? saved.apiKey;
    if (!apiKey)
      throw cliError(
        'missing_api_key',
        `the ${o.network} registry needs an API key bound to ${o.principal}: pass --api-key (saved for next time)`,
        { field: 'api-key' },
      );
    const client = new RegistryClient({ baseUrl: url, apiKey, what: `the ${o.network} registry`, timeoutMs: 15_000 });
    // reachable and the key works
    const r = await client.request('GET', '/v1/domains', { query: { limit: 1 } });
    if (r.status >= 400) throw errorFromReply(r, `the ${o.network} registry refused the API key`);
    if (o.network !== 'local') await saveNetwork(o.network, { registry: url, apiKey }, env);
    return { network: o.network, url, apiKey, local: false, createdKey: false, client };
  }
  const d = await ensureDaemon({ autoStart: o.autoStart, env });
  const local = (apiKey?: string) =>
    new RegistryClient({
      baseUrl: d.url,
      adminToken: d.token,
      what: 'the local daemon',
      timeoutMs: 15_000,
      ...(apiKey ? { apiKey } : {}),
    });
  let apiKey = o.apiKey ?? (saved.did === o.principal ? saved.apiKey : undefined);
  if (apiKey) {
    const r = await local(apiKey).request('GET', '/v1/domains', { query: { limit: 1 } });
    if (r.status === 401 && !o.apiKey)
      apiKey = undefined; // a key of another database: make a new one
    else if (r.status >= 400) throw errorFromReply(r, 'the local registry refused the API key');
  }
  let createdKey = false;
  if (!apiKey) {
    const r = await local().request<KeyCreated>('POST', '/admin/v1/keys', {
      admin: true,
      body: { did: o.principal, roles: ['representative', 'member'], label: 'oraclekit new' },
    });
    if (r.status !== 201) throw errorFromReply(r, 'creating an API key on the local daemon');
    apiKey = r.body.key;
    createdKey = true;
    await saveNetwork('local', { apiKey, did: o.principal }, env);
    await adoptGeneralKey(apiKey, env);
  }
  return { network: 'local', url: d.url, apiKey, local: true, token: d.token, createdKey, client: local(apiKey) };
}
