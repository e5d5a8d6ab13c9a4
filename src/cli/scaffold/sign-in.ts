/**
 * `new`'s sign-in: the saved identity, or a login (src/cli/identity). A mnemonic generated on a terminal is shown
 * once, and `new` waits for Enter before the rest of its output scrolls it away.
 */
import { ensureIdentity, type AuthMethod, type LoginResult } from '../identity/login.ts';
import { askEnter, type AskContext } from './ask.ts';

export interface SignInInput {
  auth: AuthMethod;
  /** --auth was given (a saved identity of another method is then not reused silently). */
  explicit: boolean;
  mnemonicFile?: string;
  mnemonicEnv?: string;
  generate?: boolean;
  timeout?: number;
  callbackHost?: string;
  callbackUrl?: string;
}

export async function signIn(
  ctx: AskContext,
  i: SignInInput,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<LoginResult> {
  const id = await ensureIdentity({
    auth: i.auth,
    explicit: i.explicit,
    yes: ctx.yes,
    mnemonicFile: i.mnemonicFile,
    mnemonicEnv: i.mnemonicEnv,
    generate: i.generate,
    interactive: ctx.interactive,
    timeoutSeconds: i.timeout,
    callbackHost: i.callbackHost,
    callbackUrl: i.callbackUrl,
    env,
    signal,
  });
  if (!id.created) return id;
  const tty = Boolean(process.stderr.isTTY);
  log((await import('../identity/print.ts')).formatCreated(id, tty));
  // the words are on the screen only now: the registration and npm install that follow would scroll them away
  if (id.source === 'generated' && tty) await askEnter(ctx, 'Written it down? (Enter)');
  return id;
}
