/**
 * The CLI's identity, shared by `login`/`whoami`/`logout`, `new` and the chat:
 * one file `identity.json` in the config directory ($ORACLEKIT_HOME/config,
 * $XDG_CONFIG_HOME/oraclekit, ~/.config/oraclekit), mode 0600 (directory
 * 0700), `{did, mnemonic, createdAt}`; the chat's loadIdentity
 * (src/cli/chat/identity.ts) reads and creates it through this module.
 *
 * A QR sign-in adds `wallet: {did, signedInAt}`: the wallet signed a
 * challenge that names the local key, so the local key (which signs UCANs
 * for the chat) stays, and the wallet's DID becomes the principal that the
 * registry knows (controller of the domains `new` registers, API keys).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { configDir } from '../../lib/paths.ts';
import { parseJsonFile } from '../../lib/json-file.ts';
import { keepSecretFileMode, writeSecretFile } from '../../lib/secret-file.ts';
import { cliError } from '../errors.ts';

export const identityPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'identity.json');

/** identity.json (extra keys are kept as they are). */
const IdentitySchema = z.looseObject({
  /** did:key of the mnemonic (the local key). */
  did: z.string(),
  mnemonic: z.string(),
  createdAt: z.string().optional(),
  wallet: z.object({ did: z.string(), signedInAt: z.string() }).optional(),
});
export type StoredIdentity = z.infer<typeof IdentitySchema>;

/** The saved identity, or undefined when none is saved. */
export function readIdentity(env: NodeJS.ProcessEnv = process.env): StoredIdentity | undefined {
  const path = identityPath(env);
  if (!existsSync(path)) return undefined;
  const r = parseJsonFile(path, readFileSync(path, 'utf8'), IdentitySchema);
  if (!r.ok)
    throw cliError('invalid_identity', `${r.problem.message}; run \`oraclekit logout\` and log in again`, {
      ...(r.problem.field ? { field: r.problem.field } : {}),
    });
  keepSecretFileMode(path);
  return r.value;
}

/** Writes the identity atomically with mode 0600. */
export function writeIdentity(id: StoredIdentity, env: NodeJS.ProcessEnv = process.env): string {
  const path = identityPath(env);
  writeSecretFile(path, JSON.stringify(id, null, 2) + '\n');
  return path;
}

/**
 * Keeps the saved identity file as `identity.json.<UTC timestamp>.bak` next
 * to it (0600) before it is replaced; returns its path (undefined when
 * nothing is saved). The copy is byte for byte, so a backup of an unreadable
 * file is kept too.
 */
export function backupIdentity(env: NodeJS.ProcessEnv = process.env, now = new Date()): string | undefined {
  const path = identityPath(env);
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8');
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const bak = `${path}.${stamp}${n === 0 ? '' : `-${n}`}.bak`;
    try {
      writeSecretFile(bak, text, { exclusive: true }); // it holds the old mnemonic: 0600, whole, never over another
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    return bak;
  }
}

export function removeIdentity(env: NodeJS.ProcessEnv = process.env): boolean {
  const path = identityPath(env);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

/** The DID the registry knows the user by: the wallet's after a QR sign-in, else the local key's. */
export function principalDid(id: StoredIdentity): string {
  return id.wallet?.did ?? id.did;
}
