/** How `login`, `whoami` and `logout` print for a person, and what they print with --json. */
import type { LoginResult, LogoutReply, WhoamiReply } from './login.ts';

export function loginReply(r: LoginResult) {
  return { did: r.principal, keyDid: r.identity.did, method: r.method, source: r.source, wallet: r.identity.wallet?.did ?? null, path: r.path };
}

export function formatLogin(r: LoginResult): string {
  return [
    `Signed in as ${r.principal}${r.identity.wallet ? ` (wallet; local key ${r.identity.did})` : ''}`,
    `identity saved in ${r.path} (mode 0600)${r.source === 'generated' ? ' — a new mnemonic: back that file up' : ''}`,
  ].join('\n');
}

export function formatWhoami(w: WhoamiReply): string {
  return [w.did, ...(w.wallet ? [`  wallet sign-in ${w.wallet.signedInAt}; local key ${w.keyDid}`] : []), `  saved in ${w.path}`].join('\n');
}

export function formatLogout(r: LogoutReply): string {
  return r.loggedOut ? `Signed out${r.did ? ` (${r.did})` : ''}; removed ${r.path}` : 'Not signed in.';
}
