/**
 * Signing in, for `oraclekit login` and `oraclekit new`:
 * - mnemonic: from --mnemonic-file, $ORACLEKIT_MNEMONIC (or --mnemonic-env)
 *   or, on a terminal, typed (hidden) or generated on request; or --generate
 *   for a new one. Saved in identity.json (0600), the file the chat uses.
 * - qr: a wallet signs a challenge naming the local key (kept, or created);
 *   its DID is saved as `wallet`.
 * A saved key is never replaced by another one without a confirmation: a
 * prompt on a terminal, --force otherwise (identity_exists); the replaced
 * file is kept as identity.json.<UTC timestamp>.bak (0600). A QR sign-in
 * keeps the saved key (the wallet vouches for it), so it replaces nothing.
 */
import { existsSync } from 'node:fs';
import { cliError } from '../errors.ts';
import { didFromMnemonic, generateMnemonic } from '../../lib/keys/keys.ts';
import { mnemonicInEnv, readMnemonic } from './mnemonic.ts';
import {
  backupIdentity,
  identityPath,
  principalDid,
  readIdentity,
  removeIdentity,
  writeIdentity,
  type StoredIdentity,
} from './store.ts';

export type AuthMethod = 'qr' | 'mnemonic';

interface LoginOptions {
  auth: AuthMethod;
  mnemonicFile?: string;
  mnemonicEnv?: string;
  generate?: boolean;
  /** May prompt (TTY and not --yes). */
  interactive: boolean;
  /** Replace a saved identity of another DID without asking (its file is kept as a backup). */
  force?: boolean;
  /** How to confirm a replacement when there is no terminal (default: pass --force). */
  replaceHint?: string;
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
  /** The replaced identity's DID and the backup of its file, when one was replaced. */
  replaced?: { did: string; backup: string };
}

/** `login`'s --auth: the flag, else a prompt on a terminal, else an error naming the flags that exist. */
export async function chooseAuth(given: AuthMethod | undefined, interactive: boolean): Promise<AuthMethod> {
  if (given) return given;
  if (!interactive) {
    throw cliError(
      'missing_answer',
      'how to sign in is needed and there is no terminal to ask on: pass --auth mnemonic with --mnemonic-file <path>, $ORACLEKIT_MNEMONIC or --generate, or --auth qr',
      { field: 'auth', valid: 'qr, mnemonic' },
    );
  }
  const { default: select } = await import('@inquirer/select');
  return select<AuthMethod>({
    message: 'How do you sign in?',
    default: 'mnemonic',
    choices: [
      { value: 'qr', name: 'QR code — sign with your wallet' },
      { value: 'mnemonic', name: 'Offline mnemonic (BIP39)' },
    ],
  });
}

/**
 * Before the saved key (its mnemonic) is replaced by another one: asks on a
 * terminal (default no), else needs force; then keeps the old file as a
 * backup. Returns what was replaced, or undefined when nothing is. (A QR
 * sign-in keeps the saved key, so it replaces nothing.)
 */
async function guardReplace(
  o: LoginOptions,
  existing: StoredIdentity | undefined,
  next: string,
  env: NodeJS.ProcessEnv,
): Promise<LoginResult['replaced']> {
  if (!existing || existing.did === next) return undefined;
  const old = principalDid(existing);
  const path = identityPath(env);
  if (!o.force) {
    if (!o.interactive) {
      throw cliError(
        'identity_exists',
        `${path} already holds the identity ${old}; signing in as ${next} would replace it, and the domains and API keys bound to ${old} need its key. ${o.replaceHint ?? 'Pass --force to replace it (the old file is kept as a timestamped backup)'}`,
        { field: 'force', details: { saved: old, next, path } },
      );
    }
    const { default: confirm } = await import('@inquirer/confirm');
    const yes = await confirm({
      message: `Replace the saved identity ${old} with ${next}? (the old file is kept as a backup)`,
      default: false,
    });
    if (!yes)
      throw cliError('identity_exists', `kept the saved identity ${old}; nothing was changed`, {
        field: 'force',
        details: { saved: old, next, path },
      });
  }
  return { did: old, backup: backupIdentity(env)! };
}

/**
 * The mnemonic of a mnemonic sign-in: generated, from a file or variable, or on a terminal typed or generated on
 * request.
 */
async function mnemonicOf(o: LoginOptions, env: NodeJS.ProcessEnv): Promise<{ mnemonic: string; source: string }> {
  if (o.generate) return { mnemonic: generateMnemonic(), source: 'generated' };
  const given = await readMnemonic({ file: o.mnemonicFile, envName: o.mnemonicEnv, env, interactive: false });
  if (given) return given;
  if (o.interactive) {
    const { default: select } = await import('@inquirer/select');
    const how = await select<'type' | 'generate'>({
      message: 'Your offline mnemonic',
      default: 'type',
      choices: [
        { value: 'type', name: 'Type the mnemonic I have (hidden)' },
        { value: 'generate', name: 'Generate a new one (shown once: write it down)' },
      ],
    });
    if (how === 'generate') return { mnemonic: generateMnemonic(), source: 'generated' };
    const typed = await readMnemonic({ env: {}, interactive: true });
    if (typed) return typed;
  }
  throw cliError(
    'missing_mnemonic',
    'no mnemonic: pass --mnemonic-file <path>, set $ORACLEKIT_MNEMONIC, use --generate, or run on a terminal to type it',
    { field: 'mnemonic-file' },
  );
}

export async function login(o: LoginOptions): Promise<LoginResult> {
  const env = o.env ?? process.env;
  const existing = readIdentity(env);
  if (o.auth === 'mnemonic') {
    const { mnemonic, source } = await mnemonicOf(o, env);
    const did = didFromMnemonic(mnemonic);
    const replaced = await guardReplace(o, existing, did, env);
    const identity: StoredIdentity = {
      did,
      mnemonic,
      createdAt: existing?.did === did ? existing.createdAt : new Date().toISOString(),
    };
    const path = writeIdentity(identity, env);
    return {
      identity,
      principal: did,
      path,
      method: 'mnemonic',
      source,
      created: existing?.did !== did,
      ...(replaced ? { replaced } : {}),
    };
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
  const r = await qrSignIn({
    aud: local.did,
    host: o.callbackHost,
    publicUrl: o.callbackUrl,
    timeoutMs: (o.timeoutSeconds ?? 120) * 1000,
    signal: o.signal,
  });
  const identity: StoredIdentity = { ...local, wallet: { did: r.did, signedInAt: new Date().toISOString() } };
  const path = writeIdentity(identity, env);
  return { identity, principal: principalDid(identity), path, method: 'qr', source: 'wallet', created };
}

/** For `new`: the saved identity, or a login (generating a key with --yes and no other source). */
export async function ensureIdentity(o: LoginOptions & { yes: boolean; explicit: boolean }): Promise<LoginResult> {
  const env = o.env ?? process.env;
  const existing = readIdentity(env);
  const hasSource = Boolean(o.mnemonicFile || o.generate || mnemonicInEnv(env, o.mnemonicEnv));
  if (existing && !o.explicit && !hasSource) {
    return {
      identity: existing,
      principal: principalDid(existing),
      path: identityPath(env),
      method: existing.wallet ? 'qr' : 'mnemonic',
      source: 'saved',
      created: false,
    };
  }
  const replaceHint =
    'Run `oraclekit login --force` with that key source first to replace it (the old file is kept as a timestamped backup), or run `new` without one to use the saved identity';
  if (o.auth === 'mnemonic' && !hasSource && o.yes)
    return login({ ...o, generate: true, replaceHint, interactive: false });
  return login({ ...o, replaceHint });
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
  return {
    did: principalDid(id),
    keyDid: id.did,
    method: id.wallet ? 'qr' : 'mnemonic',
    wallet: id.wallet ?? null,
    createdAt: id.createdAt ?? '',
    path: identityPath(env),
  };
}

export interface LogoutReply {
  loggedOut: boolean;
  did: string | null;
  path: string;
  /** Where the removed file is kept (identity.json.<timestamp>.bak, 0600). */
  backup: string | null;
}

/**
 * `logout`: removes identity.json (an unreadable one too), always keeping it
 * as a timestamped backup first: the file holds the only copy of the key that
 * controls the identity's registered domains and API keys. On a terminal it
 * says which DID and asks (default no); without one it needs `force`.
 */
export async function logout(
  o: { force?: boolean; interactive: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<LogoutReply> {
  const path = identityPath(env);
  let did: string | null;
  try {
    const id = readIdentity(env);
    did = id ? principalDid(id) : null;
  } catch {
    did = null; // an unreadable file is removed all the same (after its backup)
  }
  if (!existsSync(path)) return { loggedOut: false, did: null, path, backup: null };
  const who = did ?? 'an unreadable identity';
  if (!o.force) {
    const what = `${path} holds the key of ${who}: the registry's domains and API keys bound to it need that key`;
    if (!o.interactive)
      throw cliError('logout_unconfirmed', `${what}. Pass --force to sign out (the file is kept as a backup)`, {
        field: 'force',
        details: { did, path },
      });
    const { default: confirm } = await import('@inquirer/confirm');
    const yes = await confirm({
      message: `Sign out of ${who}? Its key controls the domains and API keys bound to it; ${path} is kept as a backup.`,
      default: false,
    });
    if (!yes)
      throw cliError('logout_unconfirmed', `kept the saved identity ${who}; nothing was changed`, {
        field: 'force',
        details: { did, path },
      });
  }
  const backup = backupIdentity(env) ?? null;
  return { loggedOut: removeIdentity(env), did, path, backup };
}
