/** How `login`, `whoami` and `logout` print for a person, and what they print with --json. */
import type { LoginResult, LogoutReply, WhoamiReply } from './login.ts';

export function loginReply(r: LoginResult) {
  return {
    did: r.principal,
    keyDid: r.identity.did,
    method: r.method,
    source: r.source,
    wallet: r.identity.wallet?.did ?? null,
    path: r.path,
    ...(r.replaced ? { replaced: r.replaced } : {}),
  };
}

export function formatLogin(r: LoginResult): string {
  return [
    `Signed in as ${r.principal}${r.identity.wallet ? ` (wallet; local key ${r.identity.did})` : ''}`,
    `identity saved in ${r.path} (mode 0600)`,
    ...(r.replaced ? [`the previous identity ${r.replaced.did} is kept in ${r.replaced.backup} (mode 0600)`] : []),
  ].join('\n');
}

/**
 * Said once, on stderr, when a mnemonic was generated: on a terminal the
 * words themselves with the instruction to write them down; without one
 * (a pipe, a CI log) never the words, but where they are saved.
 */
export function generatedNotice(r: LoginResult, tty: boolean): string | undefined {
  if (r.source !== 'generated') return undefined;
  if (tty) {
    return [
      'A new recovery phrase (BIP39 mnemonic) was generated. Write it down and keep it offline; it is shown only this once:',
      '',
      `  ${r.identity.mnemonic}`,
      '',
      `Whoever holds it controls ${r.identity.did}. It is also saved in ${r.path} (mode 0600).`,
    ].join('\n');
  }
  return `A new mnemonic was generated for ${r.identity.did}; it is not shown here (no terminal). It is saved in ${r.path} (mode 0600) and nowhere else: copy its "mnemonic" words somewhere safe and offline now.`;
}

/** `new`'s line when it signed you in (a generated mnemonic says where it is, or shows it on a terminal). */
export function formatCreated(r: LoginResult, tty = Boolean(process.stderr.isTTY)): string {
  const notice = generatedNotice(r, tty);
  return `${notice ? 'Created' : 'Saved'} your identity ${r.principal} (in ${r.path}, mode 0600)${notice ? `\n${notice}` : ''}`;
}

export function formatWhoami(w: WhoamiReply): string {
  return [
    w.did,
    ...(w.wallet ? [`  wallet sign-in ${w.wallet.signedInAt}; local key ${w.keyDid}`] : []),
    `  saved in ${w.path}`,
  ].join('\n');
}

export function formatLogout(r: LogoutReply): string {
  if (!r.loggedOut) return 'Not signed in.';
  return `Signed out${r.did ? ` (${r.did})` : ''}; removed ${r.path}${r.backup ? `, kept as ${r.backup} (0600): \`oraclekit login --mnemonic-file\` with its mnemonic restores it` : ''}`;
}
