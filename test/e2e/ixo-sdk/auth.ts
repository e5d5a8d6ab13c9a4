/**
 * Refused credentials through the SDK: a provider whose wallet mints a bad
 * token, `useOracleSessions` asking for the session list. The SDK's own error
 * keeps the status but not the code, so the code is read from the replies the
 * proxy recorded.
 */
import { expect } from 'vitest';
import { ed25519 } from '@ucanto/principal';
import { mountChat, type Loaded } from './sdk.ts';
import { unauthorized, type IxoRuntime } from './runtime.ts';
import { createWallet, type WalletOptions } from './wallet.ts';

type BadCredential = 'missing' | 'forged' | 'expired' | 'wrong audience';

export const BAD_CREDENTIALS: { bad: BadCredential; code: string }[] = [
  { bad: 'missing', code: 'missing_token' },
  { bad: 'forged', code: 'bad_signature' },
  { bad: 'expired', code: 'expired' },
  { bad: 'wrong audience', code: 'wrong_audience' },
];

async function walletOptions(bad: BadCredential): Promise<WalletOptions> {
  switch (bad) {
    case 'missing':
      return {};
    case 'forged':
      // signed by another key while claiming the user's DID
      return { forgeWith: await ed25519.generate() };
    case 'expired':
      return { expiredBy: 120 };
    case 'wrong audience':
      return { audience: (await ed25519.generate()).did() };
  }
}

/**
 * Lists sessions with a bad credential. `mode` 'invocation': the wallet's
 * invocation is bad (its delegation is good); 'delegation': the provider has
 * no createInvocation and the delegation is bad. 'missing' sends nothing.
 * Returns the SDK's error status and the codes of the 401 replies.
 */
export async function refusedWith(
  l: Loaded,
  rt: IxoRuntime,
  mode: 'invocation' | 'delegation',
  bad: BadCredential,
): Promise<{ status: unknown; codes: string[] }> {
  const wallet = await createWallet({ ...(await walletOptions(bad)), bad: mode, invocationTtl: 20 });
  const mark = rt.proxy.log.length;
  const { probe } = mountChat(l, {
    oracleDid: rt.oracleDid,
    baseUrl: rt.baseUrl,
    wallet,
    invocations: bad !== 'missing' && mode === 'invocation',
    delegations: bad !== 'missing',
  });
  await l.rtl.waitFor(() => expect(probe.sessions.error).toBeTruthy());
  const codes = [...new Set(unauthorized(rt.proxy, mark).map((line) => line.replace(/^.* → /, '')))];
  return { status: (probe.sessions.error as { status?: unknown }).status, codes };
}
