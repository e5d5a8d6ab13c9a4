/**
 * The CLI's one settings store: `settings.json` in the config directory
 * ($ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit, ~/.config/oraclekit),
 * mode 0600, written whole and atomically (writeSecretFile). One shape:
 *
 *   { registry?, apiKey?,                       // the registry commands' defaults
 *     networks?: { local|devnet|testnet|mainnet: { registry?, apiKey?, did?, oracleClass? } } }  // the scaffolder's
 *
 * `registry`/`apiKey` are used by every registry command when neither the
 * flag nor the environment gives one (src/cli/registry/client.ts);
 * `networks.<name>` by `new` and `update-oracle-api-url`
 * (src/cli/registry/networks.ts). A file that is not valid JSON or not of
 * this shape is an invalid_settings error naming the field; nothing is
 * written over it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { configDir } from '../../lib/paths.ts';
import { parseJsonFile } from '../../lib/json-file.ts';
import { writeSecretFile } from '../../lib/secret-file.ts';
import { cliError } from '../errors.ts';

export const NETWORKS = ['local', 'devnet', 'testnet', 'mainnet'] as const;
export type Network = (typeof NETWORKS)[number];

const NetworkSettingsSchema = z.looseObject({
  registry: z.string().optional(),
  apiKey: z.string().optional(),
  /** The DID the saved key is bound to. */
  did: z.string().optional(),
  /** The Protocol domain new oracles use as their class. */
  oracleClass: z.string().optional(),
});
type NetworkSettings = z.infer<typeof NetworkSettingsSchema>;

/** settings.json (extra keys are kept as they are). */
const SettingsSchema = z.looseObject({
  /** The default registry of the registry commands (else the local daemon). */
  registry: z.string().optional(),
  /** The default API key of the registry commands. */
  apiKey: z.string().optional(),
  networks: z.partialRecord(z.enum(NETWORKS), NetworkSettingsSchema).optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;

interface Store {
  path: string;
  get<K extends keyof Settings>(key: K): Settings[K];
  set<K extends keyof Settings>(key: K, value: Settings[K]): void;
  delete(key: keyof Settings): void;
}

/** settings.json as read now; each change writes the whole file (0600, atomically). */
async function store(env: NodeJS.ProcessEnv): Promise<Store> {
  const path = join(configDir(env), 'settings.json');
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  let data: Settings = {};
  if (text !== undefined) {
    const r = parseJsonFile(path, text, SettingsSchema);
    if (!r.ok)
      throw cliError('invalid_settings', `${r.problem.message}; fix or remove it (the registry commands rewrite it)`, {
        ...(r.problem.field ? { field: r.problem.field } : {}),
      });
    data = r.value;
  }
  const write = () => writeSecretFile(path, JSON.stringify(data, null, 2) + '\n');
  return {
    path,
    get: (key) => data[key],
    set: (key, value) => {
      data = { ...data, [key]: value };
      write();
    },
    delete: (key) => {
      const { [key]: _gone, ...rest } = data;
      data = rest;
      write();
    },
  };
}

/** The registry commands' saved defaults. */
export async function readSettings(env = process.env): Promise<Pick<Settings, 'registry' | 'apiKey'>> {
  const s = await store(env);
  return { registry: s.get('registry'), apiKey: s.get('apiKey') };
}

/** Sets (or, with undefined, removes) the registry commands' defaults; returns the file's path. */
export async function saveSettings(patch: Pick<Settings, 'registry' | 'apiKey'>, env = process.env): Promise<string> {
  const s = await store(env);
  for (const [k, v] of Object.entries(patch) as ['registry' | 'apiKey', string | undefined][]) {
    if (v === undefined) s.delete(k);
    else s.set(k, v);
  }
  return s.path;
}

/** The general key, saved only when no default registry or key is saved yet; true when it was. */
export async function adoptGeneralKey(apiKey: string, env = process.env): Promise<boolean> {
  const s = await store(env);
  if (s.get('apiKey') || s.get('registry')) return false;
  s.set('apiKey', apiKey);
  return true;
}

export async function readNetwork(network: Network, env = process.env): Promise<NetworkSettings> {
  const s = await store(env);
  return { ...(s.get('networks')?.[network] ?? {}) };
}

/** Merges a patch into one network's settings (undefined removes a field). */
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
