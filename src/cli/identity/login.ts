/**
 * Signing in, for `oraclekit login` and `oraclekit new`:
 * - mnemonic: from --mnemonic-file, $ORACLEKIT_MNEMONIC (or --mnemonic-env)
 *   or a hidden prompt; or --generate for a new one. Saved in identity.json
 *   (0600), the file the chat uses.
 * - qr: a wallet signs a challenge naming the local key (kept, or created);
 *   its DID is saved as `wallet`.
 */
import { cliError } from '../errors.ts';
import { didFromMnemonic, generateMnemonic } from '../../lib/keys/index.ts';
import { readMnemonic } from './mnemonic.ts';
import { identityPath, principalDid, readIdentity, removeIdentity, writeIdentity, type StoredIdentity } from './store.ts';

export type AuthMethod = 'qr' | 'mnemonic';

export interface LoginOptions {
  auth: AuthMethod;
  mnemonicFile?: string;
  mnemonicEnv?: string;
  generate?: boolean;
  /** May prompt (TTY and not --yes). */
  interactive: boolean;
  timeoutSeconds?: number;
  callbackHost?: string;
  callbackUrl?: string;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface LoginResult {
  identity: StoredIdentity;
  principal: string;
  path: string;
  method: AuthMethod;
  /** Where the key came from (file, $VAR, prompt, generated, saved). */
  source: string;
  created: boolean;
}

export async function login(o: LoginOptions): Promise<LoginResult> {
  const env = o.env ?? process.env;
  const existing = readIdentity(env);
  if (o.auth === 'mnemonic') {
    let mnemonic: string;
    let source: string;
    if (o.generate) {
      mnemonic = generateMnemonic();
      source = 'generated';
    } else {
      const m = await readMnemonic({ file: o.mnemonicFile, envName: o.mnemonicEnv, env, interactive: o.interactive });
      if (!m) {
        throw cliError('missing_mnemonic', 'no mnemonic: pass --mnemonic-file <path>, set $ORACLEKIT_MNEMONIC, use --generate, or run on a terminal to type it', { field: 'mnemonic-file' });
      }
      mnemonic = m.mnemonic;
      source = m.source;
    }
    const did = didFromMnemonic(mnemonic);
    const identity: StoredIdentity = { did, mnemonic, createdAt: existing?.did === did ? existing.createdAt : new Date().toISOString() };
    const path = writeIdentity(identity, env);
    return { identity, principal: did, path, method: 'mnemonic', source, created: existing?.did !== did };
  }
  // QR: keep the local key (the chat signs with it), or make one
  let local = existing;
  let created = false;
  if (!local) {
    const mnemonic = generateMnemonic();
    local = { did: didFromMnemonic(mnemonic), mnemonic, createdAt: new Date().toISOString() };
    created = true;
  }
  const { qrSignIn } = await import('./qr.ts');
  const r = await qrSignIn({ aud: local.did, host: o.callbackHost, publicUrl: o.callbackUrl, timeoutMs: (o.timeoutSeconds ?? 120) * 1000, signal: o.signal });
  const identity: StoredIdentity = { ...local, wallet: { did: r.did, signedInAt: new Date().toISOString() } };
  const path = writeIdentity(identity, env);
  return { identity, principal: principalDid(identity), path, method: 'qr', source: 'wallet', created };
}

/** For `new`: the saved identity, or a login (generating a key with --yes and no other source). */
export async function ensureIdentity(o: LoginOptions & { yes: boolean; explicit: boolean }): Promise<LoginResult> {
  const env = o.env ?? process.env;
  const existing = readIdentity(env);
  const hasSource = Boolean(o.mnemonicFile || o.generate || (env[o.mnemonicEnv ?? 'ORACLEKIT_MNEMONIC'] ?? '').trim());
  if (existing && !o.explicit && !hasSource) {
    return { identity: existing, principal: principalDid(existing), path: identityPath(env), method: existing.wallet ? 'qr' : 'mnemonic', source: 'saved', created: false };
  }
  if (o.auth === 'mnemonic' && !hasSource && o.yes) return login({ ...o, generate: true });
  return login(o);
}

/** `whoami`: the saved identity as the registry knows it, or not_logged_in. */
export interface WhoamiReply {
  did: string;
  keyDid: string;
  method: AuthMethod;
  wallet: StoredIdentity['wallet'] | null;
  createdAt: string;
  path: string;
}

export function whoami(env: NodeJS.ProcessEnv = process.env): WhoamiReply {
  const id = readIdentity(env);
  if (!id) throw cliError('not_logged_in', 'not signed in: run `oraclekit login`');
  return { did: principalDid(id), keyDid: id.did, method: id.wallet ? 'qr' : 'mnemonic', wallet: id.wallet ?? null, createdAt: id.createdAt, path: identityPath(env) };
}

export interface LogoutReply {
  loggedOut: boolean;
  did: string | null;
  path: string;
}

/** `logout`: removes identity.json (an unreadable one too). */
export function logout(env: NodeJS.ProcessEnv = process.env): LogoutReply {
  let did: string | null;
  try {
    const id = readIdentity(env);
    did = id ? principalDid(id) : null;
  } catch {
    did = null; // an unreadable file is removed all the same
  }
  return { loggedOut: removeIdentity(env), did, path: identityPath(env) };
}
