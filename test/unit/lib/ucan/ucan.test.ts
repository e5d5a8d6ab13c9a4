import { describe, expect, it } from 'vitest';
import {
  generateSigner,
  signerFromMnemonic,
  generateMnemonic,
  isDidKeyEd25519,
  didFromMnemonic,
} from '../../../../src/lib/keys/keys.ts';
import { mintDelegation, mintInvocation, encodeToken } from '../../../../src/lib/ucan/ucan.ts';
import { MemoryReplayStore, verifyDelegation, verifyInvocation } from '../../../../src/lib/ucan/verify.ts';
import { invoke } from '@ucanto/core';
import type { OracleKitError } from '../../../../src/lib/errors.ts';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return (e as OracleKitError).code;
  }
}

const now = () => Math.floor(Date.now() / 1000);

describe('keys', () => {
  it('derives the same did:key from the same mnemonic, different from another', async () => {
    const m = generateMnemonic();
    const a = await signerFromMnemonic(m);
    const b = await signerFromMnemonic(` ${m.toUpperCase()} `);
    const c = await signerFromMnemonic(generateMnemonic());
    expect(a.did()).toBe(b.did());
    expect(a.did()).not.toBe(c.did());
    expect(isDidKeyEd25519(a.did())).toBe(true);
    expect(didFromMnemonic(m)).toBe(a.did());
  });
  it('refuses an invalid mnemonic', async () => {
    expect(await code(signerFromMnemonic('not a mnemonic at all'))).toBe('invalid_mnemonic');
  });
});

describe('ucan verification', async () => {
  const oracle = await generateSigner();
  const user = await generateSigner();
  const other = await generateSigner();
  const O = { oracleDid: oracle.did() };

  it('accepts a fresh invocation and names the user', async () => {
    const t = await mintInvocation({ issuer: user, audience: oracle.did() });
    const v = await verifyInvocation(t, O);
    expect(v.did).toBe(user.did());
  });
  it('refuses each failure with its code', async () => {
    expect(await code(verifyInvocation('%%%not base64', O))).toBe('malformed_token');
    expect(await code(verifyInvocation(Buffer.from('hello').toString('base64'), O))).toBe('malformed_token');
    expect(await code(verifyInvocation(await mintInvocation({ issuer: user, audience: other.did() }), O))).toBe(
      'wrong_audience',
    );
    expect(
      await code(
        verifyInvocation(await mintInvocation({ issuer: user, audience: oracle.did(), expiration: now() - 10 }), O),
      ),
    ).toBe('expired');
    expect(
      await code(
        verifyInvocation(
          await mintInvocation({
            issuer: user,
            audience: oracle.did(),
            notBefore: now() + 300,
            expiration: now() + 600,
          }),
          O,
        ),
      ),
    ).toBe('not_yet_valid');
    expect(
      await code(
        verifyInvocation(
          await mintInvocation({ issuer: user, audience: oracle.did(), notBefore: now(), expiration: now() + 901 }),
          O,
        ),
      ),
    ).toBe('ttl_too_long');
    expect(
      await code(
        verifyInvocation(
          await mintInvocation({
            issuer: user,
            audience: oracle.did(),
            withResource: 'did:key:z6Mkother' + oracle.did().slice(17),
          }),
          O,
        ),
      ),
    ).toBe('capability_mismatch');
  });
  it('accepts a not-before within the 60 s clock skew', async () => {
    const t = await mintInvocation({
      issuer: user,
      audience: oracle.did(),
      notBefore: now() + 30,
      expiration: now() + 300,
    });
    expect(await code(verifyInvocation(t, O))).toBe('ok');
  });
  it('refuses a forged signature', async () => {
    // signed with the user's key while claiming to be another did:key
    const liar = user.withDID(other.did() as `did:key:${string}`);
    const inv = await invoke({
      issuer: liar,
      audience: oracle,
      capability: { can: 'oracle/use', with: oracle.did() },
      expiration: now() + 300,
    }).delegate();
    expect(await code(verifyInvocation(await encodeToken(inv), O))).toBe('bad_signature');
  });
  it('refuses a replay and a revoked token', async () => {
    const replay = new MemoryReplayStore();
    const t = await mintInvocation({ issuer: user, audience: oracle.did() });
    expect(await code(verifyInvocation(t, { ...O, replay }))).toBe('ok');
    expect(await code(verifyInvocation(t, { ...O, replay }))).toBe('replayed');
    const v = await verifyInvocation(await mintInvocation({ issuer: user, audience: oracle.did() }), O);
    const { token: dt, delegation } = await mintDelegation({ issuer: user, audience: oracle.did() });
    expect(await code(verifyDelegation(dt, { ...O, isRevoked: (c) => c === delegation.cid.toString() }))).toBe(
      'revoked',
    );
    expect(v.did).toBe(user.did());
  });
  it('keeps refusing replays past the sweep size, and forgets expired CIDs', () => {
    const replay = new MemoryReplayStore();
    const live = now() + 300;
    expect(replay.seen('first', live)).toBe(false);
    for (let i = 0; i < 25_000; i++) replay.seen(`live-${i}`, live);
    for (let i = 0; i < 5_000; i++) replay.seen(`old-${i}`, now() - 1);
    for (let i = 25_000; i < 45_000; i++) replay.seen(`live-${i}`, live);
    expect(replay.seen('first', live)).toBe(true);
    expect(replay.seen('live-0', live)).toBe(true);
    // an expired CID is no replay (its token is refused as expired anyway)
    expect(replay.seen('old-1', live)).toBe(false);
  });
  it('accepts an invocation again without a replay store (a bearer credential for its lifetime)', async () => {
    const t = await mintInvocation({ issuer: user, audience: oracle.did() });
    expect([await code(verifyInvocation(t, O)), await code(verifyInvocation(t, O))]).toEqual(['ok', 'ok']);
  });
  it('bounds a delegation that logs in alone by maxTtl, whose setting the error names; an invocation keeps 900 s', async () => {
    const maxTtl = { seconds: 30 * 24 * 3600, setting: 'ORACLE_UCAN_DELEGATION_MAX_TTL_S' };
    // one reading of the clock: not-before and expiry read apart could straddle a second and differ by one more
    const start = now();
    const month = await mintDelegation({
      issuer: user,
      audience: oracle.did(),
      notBefore: start,
      expiration: start + maxTtl.seconds,
    });
    expect(await code(verifyDelegation(month.token, { ...O, maxTtl }))).toBe('ok');
    const longer = await mintDelegation({
      issuer: user,
      audience: oracle.did(),
      notBefore: start,
      expiration: start + maxTtl.seconds + 1,
    });
    await expect(verifyDelegation(longer.token, { ...O, maxTtl })).rejects.toMatchObject({
      code: 'ttl_too_long',
      message: expect.stringContaining('ORACLE_UCAN_DELEGATION_MAX_TTL_S'),
    });
    // without maxTtl (downstream authority next to an invocation) a delegation's lifetime is not bounded
    expect(await code(verifyDelegation(longer.token, O))).toBe('ok');
    const inv = await mintInvocation({
      issuer: user,
      audience: oracle.did(),
      notBefore: start,
      expiration: start + 901,
    });
    expect(await code(verifyInvocation(inv, { ...O, maxTtl }))).toBe('ttl_too_long');
  });
  it('refuses a delegation from another user', async () => {
    const { token } = await mintDelegation({ issuer: other, audience: oracle.did() });
    expect(await code(verifyDelegation(token, { ...O, user: user.did() }))).toBe('delegation_issuer_mismatch');
    expect(await code(verifyDelegation(token, { ...O, user: other.did() }))).toBe('ok');
  });
  it('refuses a misaligned proof chain', async () => {
    const { delegation } = await mintDelegation({ issuer: other, audience: other.did() });
    const t = await mintInvocation({ issuer: user, audience: oracle.did(), proofs: [delegation] });
    expect(await code(verifyInvocation(t, O))).toBe('proof_chain_misaligned');
  });
});
