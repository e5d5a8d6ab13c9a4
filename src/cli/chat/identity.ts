/**
 * The chat user's identity: a BIP39 mnemonic → Ed25519 did:key.
 * `--mnemonic-file <path>` wins; else the saved key `identity.json` in the
 * config directory ($ORACLEKIT_HOME/config, $XDG_CONFIG_HOME/oraclekit,
 * ~/.config/oraclekit — the same directory the daemon's settings use),
 * created on first use with mode 0600 (directory 0700).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { OracleKitError } from '../../lib/errors.ts';
import { generateMnemonic, isValidMnemonic, signerFromMnemonic, type Signer } from '../../lib/keys/index.ts';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ORACLEKIT_HOME) return join(env.ORACLEKIT_HOME, 'config');
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'oraclekit');
  return join(homedir(), '.config/oraclekit');
}

export const identityPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'identity.json');

export interface Identity {
  signer: Signer;
  did: string;
  /** Where the key came from. */
  source: string;
  created: boolean;
}

export async function loadIdentity(o: { mnemonicFile?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Identity> {
  if (o.mnemonicFile) {
    let text: string;
    try {
      text = readFileSync(o.mnemonicFile, 'utf8');
    } catch {
      throw new OracleKitError({ status: 400, code: 'mnemonic_file_unreadable', message: `cannot read the mnemonic file ${o.mnemonicFile}`, field: 'mnemonic-file', value: o.mnemonicFile });
    }
    if (!isValidMnemonic(text)) throw new OracleKitError({ status: 400, code: 'invalid_mnemonic', message: `${o.mnemonicFile} does not hold a valid BIP39 English mnemonic`, field: 'mnemonic-file', valid: '12 or 24 BIP39 words' });
    const signer = await signerFromMnemonic(text);
    return { signer, did: signer.did(), source: o.mnemonicFile, created: false };
  }
  const path = identityPath(o.env);
  let created = false;
  let mnemonic: string;
  if (existsSync(path)) {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as { mnemonic?: string };
    if (!raw.mnemonic || !isValidMnemonic(raw.mnemonic)) throw new OracleKitError({ status: 400, code: 'invalid_identity', message: `${path} does not hold a valid mnemonic; move it away to create a new identity` });
    mnemonic = raw.mnemonic;
    // keep the secret private even if something loosened the mode
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  } else {
    mnemonic = generateMnemonic();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const signer = await signerFromMnemonic(mnemonic);
    writeFileSync(path, JSON.stringify({ did: signer.did(), mnemonic, createdAt: new Date().toISOString() }, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    created = true;
  }
  const signer = await signerFromMnemonic(mnemonic);
  return { signer, did: signer.did(), source: path, created };
}
