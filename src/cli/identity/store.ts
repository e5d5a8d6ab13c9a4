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
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../../lib/paths.ts';
import { writeSecretFile } from '../../lib/secret-file.ts';
import { cliError } from '../errors.ts';

export const identityPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'identity.json');

interface WalletSignIn {
  did: string;
  signedInAt: string;
}

export interface StoredIdentity {
  /** did:key of the mnemonic (the local key). */
  did: string;
  mnemonic: string;
  createdAt: string;
  wallet?: WalletSignIn;
}

/** The saved identity, or undefined when none is saved. */
export function readIdentity(env: NodeJS.ProcessEnv = process.env): StoredIdentity | undefined {
  const path = identityPath(env);
  if (!existsSync(path)) return undefined;
  let raw: Partial<StoredIdentity>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<StoredIdentity>;
  } catch {
    throw cliError('invalid_identity', `${path} is not valid JSON; run \`oraclekit logout\` and log in again`);
  }
  if (typeof raw.mnemonic !== 'string' || typeof raw.did !== 'string') {
    throw cliError(
      'invalid_identity',
      `${path} does not hold a mnemonic identity; run \`oraclekit logout\` and log in again`,
    );
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return raw as StoredIdentity;
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
  const text = readFileSync(path);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  for (let n = 0; ; n++) {
    const bak = `${path}.${stamp}${n === 0 ? '' : `-${n}`}.bak`;
    try {
      writeFileSync(bak, text, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    chmodSync(bak, 0o600);
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
