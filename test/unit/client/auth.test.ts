import { describe, expect, it } from 'vitest';
import { UcanAuth } from '../../../src/client/auth.ts';
import { generateSigner } from '../../../src/lib/keys/keys.ts';
import { decodeToken } from '../../../src/lib/ucan/ucan.ts';

describe('UcanAuth', () => {
  it('mints one delegation for concurrent callers and renews it before it expires', async () => {
    const signer = await generateSigner();
    const oracle = await generateSigner();
    let now = 1_000_000;
    const auth = new UcanAuth(oracle.did(), { signer }, { delegationTtl: 600, renewMargin: 60, now: () => now });
    const all = await Promise.all(Array.from({ length: 10 }, () => auth.currentDelegation()));
    expect(auth.minted.delegations).toBe(1);
    expect(new Set(all.map((d) => d!.token)).size).toBe(1);
    now += 500; // 100 s left: still outside the 60 s margin
    await auth.currentDelegation();
    expect(auth.minted.delegations).toBe(1);
    now += 50; // 50 s left: renewed
    const d2 = await auth.currentDelegation();
    expect(auth.minted.delegations).toBe(2);
    expect(d2!.token).not.toBe(all[0]!.token);
    const view = await decodeToken(d2!.token);
    expect(view.issuer.did()).toBe(signer.did());
    expect(view.audience.did()).toBe(oracle.did());
  });

  it('mints a fresh invocation per request; renew(1) drops the delegation', async () => {
    const signer = await generateSigner();
    const oracle = await generateSigner();
    const auth = new UcanAuth(oracle.did(), { signer });
    const h1 = await auth.headers();
    const h2 = await auth.headers();
    expect(h1.authorization).not.toBe(h2.authorization);
    expect(h1['x-ucan-delegation']).toBe(h2['x-ucan-delegation']);
    expect(h1['x-auth-type']).toBe('ucan');
    auth.renew(0);
    expect((await auth.headers())['x-ucan-delegation']).toBe(h1['x-ucan-delegation']);
    auth.renew(1);
    expect((await auth.headers())['x-ucan-delegation']).not.toBe(h1['x-ucan-delegation']);
  });

  it('uses createInvocation / createDelegation when given (a wallet)', async () => {
    const calls: string[] = [];
    const auth = new UcanAuth('did:key:z6Mkoracle', {
      did: 'did:key:z6Mkuser',
      createInvocation: async ({ oracleDid }) => (calls.push(`inv ${oracleDid}`), 'INV'),
      createDelegation: async () => (
        calls.push('del'),
        { token: 'DEL', expiration: Math.floor(Date.now() / 1000) + 3600 }
      ),
    });
    expect(await auth.headers()).toEqual({
      authorization: 'Bearer INV',
      'x-auth-type': 'ucan',
      'x-ucan-delegation': 'DEL',
    });
    expect(calls).toEqual(['inv did:key:z6Mkoracle', 'del']);
  });
});

describe('UcanAuth premint', () => {
  it('hands out a spare invocation minted ahead, each token once', async () => {
    const signer = await generateSigner();
    const oracle = await generateSigner();
    const auth = new UcanAuth(oracle.did(), { signer }, { premint: true });
    auth.prepare();
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const t = await auth.invocation();
      expect(seen.has(t)).toBe(false);
      seen.add(t);
      await new Promise((r) => setTimeout(r, 5));
    }
    const v = await decodeToken([...seen][4]!);
    expect(v.audience.did()).toBe(oracle.did());
  });
});
