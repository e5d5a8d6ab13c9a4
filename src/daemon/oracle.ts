/**
 * The daemon's default oracle (docs/daemon.md, "The default oracle"):
 * createOracle's plugin registered on the daemon's fastify under
 * ORACLE_PREFIX (/oracle) — the same plugin createOracleApp serves, with the
 * same start and close order (it follows the daemon's ready and close) —
 * socket.io on the daemon's /socket.io/, its tables in the
 * daemon's database file (area 'runtime'), the bundled plugins as the
 * daemon's environment enables them, the model from the daemon's
 * environment (LLM_BASE_URL, LLM_PROVIDER_API_KEY, LLM_MODEL) or daemon.json's
 * `oracle.model`. Its signing mnemonic is created on the first start in
 * oracle-key.json (0600) and never logged. Its domains plugin reads the
 * daemon's own registry with a read-only key (role `reader`, bound to the
 * oracle's DID) that the daemon provisions: kept in oracle-key.json as
 * `registryKey`, made again when the database does not know it (a new
 * database, a revocation), given to the oracle as ORACLEKIT_API_KEY — unless
 * the daemon's environment points the oracle at another registry
 * (ORACLEKIT_REGISTRY_URL), whose key is then its ORACLEKIT_API_KEY.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseJsonFile } from '../lib/json-file.ts';
import { ORACLE_PREFIX, oracleKeyPath } from '../lib/paths.ts';
import { TOOL_ENV_NAMES, toolEnv } from '../lib/env.ts';
import type { DaemonOracleConfig } from './config.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry } from './registry/index.ts';
import { mountPlugin } from '../runtime/http/server.ts';
import type { PluginsStatus } from '../lib/protocol/index.ts';
import { signerFromMnemonic } from '../lib/keys/keys.ts';
import { signKeyProof } from '../lib/registry/key-proof.ts';
import { keepSecretFileMode, writeSecretFile } from '../lib/secret-file.ts';

/** oracle-key.json: the default oracle's mnemonic and, once provisioned, its read-only registry key. */
const OracleKeyFileSchema = z.looseObject({
  did: z.string().optional(),
  mnemonic: z.string(),
  createdAt: z.string().optional(),
  registryKey: z.string().optional(),
});
type OracleKeyFile = z.infer<typeof OracleKeyFileSchema>;

const MOVE_AWAY = 'move it away to create a new key for the default oracle';

/** oracle-key.json through its schema; its mode put back to 0600 when it was wider. */
function readOracleKeyFile(path: string): OracleKeyFile {
  const r = parseJsonFile(path, readFileSync(path, 'utf8'), OracleKeyFileSchema);
  if (!r.ok) throw new Error(`${r.problem.message}; ${MOVE_AWAY}`);
  keepSecretFileMode(path);
  return r.value;
}

function writeOracleKeyFile(path: string, file: OracleKeyFile, o: { exclusive?: boolean } = {}): void {
  writeSecretFile(path, JSON.stringify(file, null, 2) + '\n', o);
}

interface OracleKey {
  did: string;
  mnemonic: string;
  path: string;
  created: boolean;
}

/** Reads the default oracle's key, creating it (0600 in a 0700 directory) on first use. */
export async function loadOracleKey(env = process.env): Promise<OracleKey> {
  const { didFromMnemonic, generateMnemonic, isValidMnemonic } = await import('../lib/keys/keys.ts');
  const path = oracleKeyPath(env);
  if (existsSync(path)) {
    const raw = readOracleKeyFile(path);
    if (!isValidMnemonic(raw.mnemonic)) throw new Error(`${path} does not hold a valid BIP39 mnemonic; ${MOVE_AWAY}`);
    return { did: didFromMnemonic(raw.mnemonic), mnemonic: raw.mnemonic, path, created: false };
  }
  const mnemonic = generateMnemonic();
  const did = didFromMnemonic(mnemonic);
  try {
    writeOracleKeyFile(path, { did, mnemonic, createdAt: new Date().toISOString() }, { exclusive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return loadOracleKey(env); // created meanwhile
    throw e;
  }
  return { did, mnemonic, path, created: true };
}

/**
 * The default oracle's read-only registry key: the one saved in
 * oracle-key.json while the registry knows it as a reader key of the
 * oracle's DID, else a new one (saved there, 0600).
 */
async function ensureOracleRegistryKey(key: OracleKey, registry: Registry): Promise<{ key: string; created: boolean }> {
  const file = readOracleKeyFile(key.path);
  const saved = file.registryKey;
  const p = saved ? await registry.keys.authenticate(saved) : undefined; // await: the registry modules are becoming async (s5-storage)
  if (saved && p && p.did === key.did && p.roles.length === 1 && p.roles[0] === 'reader')
    return { key: saved, created: false };
  // signed with the oracle's own key, so a registry that sets requireDidProof provisions it too
  const proof = await signKeyProof(await signerFromMnemonic(key.mnemonic), key.did, ['reader'], Date.now());
  const made = await registry.db.write(() =>
    registry.keys.create(key.did, ['reader'], 'default oracle (read-only, provisioned by the daemon)', proof),
  );
  writeOracleKeyFile(key.path, { ...file, registryKey: made.key });
  return { key: made.key, created: true };
}

interface DefaultOracleInfo {
  did: string;
  /** Path of the HTTP API inside the daemon (the URL is the daemon's URL + this). */
  path: string;
  name: string;
  model: string | null;
  signingKeyLoaded: boolean;
  plugins: PluginsStatus;
}

export interface DefaultOracle {
  info(): DefaultOracleInfo;
  /** Aborts the running turns and disconnects realtime clients (first step of a graceful stop). */
  quiesce(): void;
  close(): Promise<void>;
}

/**
 * Registers the default oracle on the daemon's app (before listen): it starts
 * when the app is ready and closes with it. Boot lines go to `log`. A boot
 * error (e.g. a feature forced on without its variable) throws a BootError:
 * the daemon logs it and serves the registry without an oracle.
 */
export async function mountDefaultOracle(
  app: FastifyInstance,
  o: {
    database: Storage;
    /** The daemon's registry: provisions the read-only key (without ' +
      'it, the env's key as it is). */ registry?: Registry;
    config: DaemonOracleConfig;
    env: Record<string, string | undefined>;
    key: OracleKey;
    log: { info(l: string): void; error(l: string): void };
  },
): Promise<DefaultOracle> {
  const { createOracle } = await import('../runtime/oracle.ts');
  const c = o.config;
  let env = o.env;
  if (o.registry && !toolEnv(o.env).registryUrl) {
    const rk = await ensureOracleRegistryKey(o.key, o.registry);
    if (rk.created)
      o.log.info(
        `[daemon] provisioned a read-only registry key (role reader) for the default oracle ${o.key.did}, saved in ` +
          `${o.key.path}`,
      );
    env = { ...o.env, [TOOL_ENV_NAMES.apiKey]: rk.key };
  }
  const oracle = createOracle({
    config: {
      name: c.name,
      description: c.description,
      prompt: c.prompt,
      model: c.model,
      models: c.models,
      oracleDid: o.key.did,
    },
    features: c.features,
    env,
    database: o.database,
    signingMnemonic: o.key.mnemonic,
    logger: o.log,
    pino: app.log, // failed turns and tools go to the daemon's log
    modelHint:
      "set LLM_BASE_URL, LLM_PROVIDER_API_KEY and LLM_MODEL in the daemon's environment (or oracle.model in " +
      'daemon.json), then `oraclekit daemon restart`',
  });
  // a Node client (the chat) needs no CORS; browser apps run their own oracle
  await mountPlugin(app, { plugin: oracle.plugin, options: { cors: false }, prefix: ORACLE_PREFIX });
  const rt = oracle.runtime;
  return {
    info: () => ({
      did: rt.oracleDid,
      path: ORACLE_PREFIX,
      name: rt.config.name,
      model: rt.models().default,
      signingKeyLoaded: rt.signingKeyLoaded,
      plugins: rt.status(),
    }),
    quiesce: oracle.quiesce,
    close: oracle.close,
  };
}
